"""Grading one written question for a class of 200 in Chromium (the hub service's page, served by its own
handlers on loopback; who grades is given as the hub's OAuth would give it): a rubric of four items made on the
page, every answer graded with under 40 actions, an item's points changed and every student re-scored, two
graders at once without a silent overwrite, and nothing a student wrote run or read as markup.

The gradebook is nbgrader's (tests/question_gradebook.py), the answers are autograded notebooks on disk.
"""

import json
import random
import re
import sqlite3
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.grades.outbox import SessionSql, latest
from tests.question_gradebook import ASSIGNMENT, CELL, NOTEBOOK, question_gradebook
from tests.question_service import serving_questions

STUDENTS = [f"s{i:03d}" for i in range(200)]
HOSTILE = ('<img src=x onerror="window.pwned=1"></script><script>window.pwned=2</script> the blocks line up '
           "[x](javascript:window.pwned=3)")
# What 200 students wrote: a few answers written by many (retyped with other spacing), near-duplicates of them,
# and the odd one out. 4 distinct ideas, the groups the page should show.
IDEAS = [
    ("The first n_h columns of W_h only meet h_{t-1} and the last n_x columns only meet x_t, so the block "
     "product is W_hh h + W_hx x.", 90),
    ("Matrix multiplication splits into blocks: W_hh times h plus W_hx times x, as long as the orders match.", 50),
    ("They are the same because numpy computes both the same way.", 30),
    ("YOUR ANSWER HERE", 25),
]
RUBRIC = [("2", "Names which block meets which: W_hh meets h, W_hx meets x."),
          ("1", "Says the product splits into blocks, without saying which parts meet."),
          ("-1", "Misses that the two orders must match."),
          ("0", "No reason given: an answer must explain why, not that.")]


def answers() -> dict[str, str]:
    rng = random.Random(44)
    texts = []
    for text, count in IDEAS:
        for n in range(count):
            if n % 10 == 9:  # a near-duplicate: a word changed
                words = text.split()
                words[len(words) // 2] = "really"
                texts.append(" ".join(words))
            else:  # the same, retyped
                texts.append(text.replace(" ", rng.choice([" ", "  ", "\n"]), 2))
    texts[-1] = HOSTILE  # one student's answer is an attack
    texts = texts[:len(STUDENTS)] + [IDEAS[0][0]] * (len(STUDENTS) - len(texts))
    return dict(zip(STUDENTS, texts, strict=True))


@pytest.fixture
def course(tmp_path: Path) -> Path:
    (tmp_path / "nbgrader_config.py").write_text('c = get_config()\nc.CourseDirectory.course_id = "demo"\n')
    question_gradebook(tmp_path, STUDENTS)
    for student, text in answers().items():
        write_answer(tmp_path, student, text)
    return tmp_path


def write_answer(course: Path, student: str, text: str) -> None:
    """The student's autograded notebook, holding `text` as their written answer."""
    folder = course / "autograded" / student / ASSIGNMENT
    folder.mkdir(parents=True, exist_ok=True)
    cell = {"cell_type": "markdown", "id": "a", "source": text,
            "metadata": {"nbgrader": {"grade": True, "solution": True, "grade_id": CELL, "points": 2}}}
    (folder / f"{NOTEBOOK}.ipynb").write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4,
                                                          "nbformat_minor": 5}))


@pytest.fixture
def service(course):
    with serving_questions(course) as url:
        yield f"{url}?assignment={ASSIGNMENT}&notebook={NOTEBOOK}&cell={CELL}"


def manual(course: Path) -> dict[str, float | None]:
    db = sqlite3.connect(course / "gradebook.db")
    try:
        return dict(db.execute(
            "SELECT sa.student_id, g.manual_score FROM grade g JOIN base_cell bc ON g.cell_id = bc.id "
            "JOIN submitted_notebook sn ON g.notebook_id = sn.id JOIN submitted_assignment sa "
            "ON sn.assignment_id = sa.id WHERE bc.name = ?", (CELL,)))
    finally:
        db.close()


def test_a_class_of_200_graded_by_question_in_under_40_actions(course, service):
    from playwright.sync_api import expect, sync_playwright

    from tests.axe import serious_violations
    from tests.browser import CHROMIUM, CHROMIUM_FLAGS

    actions = []

    def act(what: str, step) -> None:
        actions.append(what)
        step()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        try:
            ta1 = browser.new_context(extra_http_headers={"X-Test-User": "ta1"}, viewport={"width": 1100,
                                                                                          "height": 900})
            page = ta1.new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            # From the service's first page, which lists the course's questions graded by hand.
            act("open", lambda: page.goto(service.split("?")[0]))
            listed = page.locator("li").filter(has_text=f"{ASSIGNMENT}: {CELL}").inner_text()
            act("question", lambda: page.get_by_role("link", name=f"{ASSIGNMENT}: {CELL}").click())
            page.wait_for_url(re.compile(r"\?assignment="))
            # The rubric, made on the page.
            for points, comment in RUBRIC:
                form = page.locator("form.item").last
                page.locator("details summary").click() if not page.locator("details").get_attribute("open") \
                    else None
                act("points", lambda f=form, p=points: f.get_by_label("New item points").fill(p))
                act("comment", lambda f=form, c=comment: f.get_by_label("comment the student reads").fill(c))
                with page.expect_navigation():
                    act("add", lambda f=form: f.get_by_role("button", name="Add item").click())
            groups = page.locator("section.group")
            count = groups.count()
            assert 4 <= count <= 10, count  # 200 answers, 4 ideas (near-duplicates and the attack apart)
            texts = [groups.nth(i).inner_text() for i in range(count)]
            # Every group graded with one key: the focus moves itself to the next group nobody graded.
            for i in range(count):
                text = texts[i]
                key = ("1" if "only meet" in text else "2" if "splits into blocks" in text
                       else "4" if "numpy computes" in text or "YOUR ANSWER" in text else "3")
                act(f"key {key}", lambda k=key: page.keyboard.press(k))
                expect(page.locator("section.group.graded")).to_have_count(i + 1)  # (the page's CSP forbids eval)
            assert page.locator("#progress").inner_text() == "200 of 200 graded"
            page.screenshot(path="/tmp/page-grade-by-question.png", full_page=False)
            # axe-core is injected as a script, which the page's own CSP refuses: audited in a copy without it.
            audit = browser.new_context(bypass_csp=True, extra_http_headers={"X-Test-User": "ta1"}).new_page()
            audit.goto(service)
            violations = serious_violations(audit)
            # Nothing the attacker wrote ran or became an element.
            assert page.evaluate("() => window.pwned") is None and errors == []
            assert page.locator("section.group img, section.group a, section.group script").count() == 0
            assert "onerror=\"window.pwned=1\"" in page.locator("section.group").filter(has_text="onerror").inner_text()

            scores = manual(course)
            assert all(v is not None for v in scores.values())
            # The first page says each question's progress, before and after, as the grades read.
            index = browser.new_context(extra_http_headers={"X-Test-User": "ta2"}).new_page()
            index.goto(service.split("?")[0])
            after = index.locator("li").filter(has_text=f"{ASSIGNMENT}: {CELL}").inner_text()
            assert "0 of 200 answers graded" in listed and "200 of 200 answers graded" in after, (listed, after)
            full = {s for s, v in scores.items() if v == 2.0}
            assert len(full) >= 80  # the first idea's answers and their near-duplicates
            # An item's points changed: every student it was given to is scored again.
            page.locator("details summary").click()
            first = page.locator("form.item").first
            act("points", lambda: first.get_by_label("Item 1 points").fill("1.5"))
            with page.expect_navigation():
                act("save", lambda: first.get_by_role("button", name="Save item 1").click())
            assert {s for s, v in manual(course).items() if v == 1.5} == full

            # A second grader, loaded before the first changes a group: their change is refused, said, not written.
            ta2 = browser.new_context(extra_http_headers={"X-Test-User": "ta2"})
            other = ta2.new_page()
            other.goto(service)
            target = texts.index(next(t for t in texts if "numpy computes" in t))
            page.locator("section.group").nth(target).focus()
            page.keyboard.press("3")  # ta1 adds "misses the order" to that group
            expect(page.locator("#status")).to_have_text(re.compile("^Gave item 3"))
            before = manual(course)
            other.locator("section.group").nth(target).focus()
            other.keyboard.press("2")
            expect(other.locator("#status.conflict")).to_have_count(1)
            assert "another grader changed" in other.locator("#status").inner_text()
            assert manual(course) == before
        finally:
            browser.close()
    assert len(actions) < 40, actions
    assert violations == [], violations
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        sent = latest(SessionSql(gb.db), ASSIGNMENT)
    assert len(sent) == 200 and all(row.origin == "rubric" for row in sent.values())
    assert {s for s, row in sent.items() if row.score == 8.5} == full  # 7 autograded + 1.5 written


def test_two_graders_at_once_never_overwrite_each_other_silently(course, service):
    """Two TAs (two browser contexts) on the question at once. A student resubmits between their loads, so the
    two pages group that student apart: A grades the group holding them, B grades another group that holds them
    too and is refused whole, told to reload, nothing of B's written. After reloading, each sees the other's
    progress. Then both press a key on the same group at the same moment: exactly one of them is written."""
    from playwright.sync_api import expect, sync_playwright

    from autograder.by_question.rubric import Question
    from autograder.hub.grade_by_question_service import Course
    from tests.browser import CHROMIUM, CHROMIUM_FLAGS

    graded = Course(course)
    with graded.session() as session, session.begin():
        rubric = graded.grading(session, Question(ASSIGNMENT, NOTEBOOK, CELL), "lead")
        for points, comment in [(2, "Names which block meets which."), (1, "Says the product splits."),
                                (0.5, "Half a reason."), (0, "No reason given.")]:
            rubric.add_item(points, comment)
    mover = next(s for s, text in answers().items() if "only meet" in text)
    holding = f"section.group[data-students*='\"{mover}\"']"

    def progress(page) -> str:
        return page.locator("#progress").inner_text()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        try:
            a, b = (browser.new_context(extra_http_headers={"X-Test-User": who}).new_page() for who in ("ta1", "ta2"))
            errors = []
            for page in (a, b):
                page.on("pageerror", lambda e: errors.append(str(e)))
            a.goto(service)
            write_answer(course, mover, IDEAS[2][0])  # a resubmission, graded between the two loads
            b.goto(service)
            assert progress(a) == progress(b) == "0 of 200 graded"
            mine = json.loads(a.locator(holding).get_attribute("data-students"))
            theirs = json.loads(b.locator(holding).get_attribute("data-students"))
            assert "only meet" in a.locator(holding).inner_text()
            assert "numpy computes" in b.locator(holding).inner_text()
            assert set(mine) & set(theirs) == {mover}  # the two groups overlap in the one student

            a.locator(holding).focus()
            a.keyboard.press("1")
            expect(a.locator("#status")).to_have_text(f"Gave item 1 to {len(mine)} answer(s).")
            assert progress(a) == f"{len(mine)} of 200 graded"
            after_a = manual(course)
            assert {s for s, v in after_a.items() if v is not None} == set(mine)

            b.locator(holding).focus()
            b.keyboard.press("4")  # B saw the mover's grade before A changed it
            expect(b.locator("#status.conflict")).to_have_text(re.compile(
                f"another grader changed {mover} since you loaded the question.*Reload the page"))
            assert manual(course) == after_a  # nothing of B's written, A's kept
            assert b.locator(holding).get_attribute("class") == "group"  # not shown as graded either

            b.reload()
            assert progress(b) == f"{len(mine)} of 200 graded"  # B sees A's work
            b.locator(holding).focus()
            b.keyboard.press("4")
            expect(b.locator("#status")).to_have_text(f"Gave item 4 to {len(theirs)} answer(s).")
            a.reload()
            b.reload()
            assert progress(a) == progress(b) == f"{len(set(mine) | set(theirs))} of 200 graded"

            # At the same moment on the same group: both pages, just loaded, focus the first group nobody graded.
            same = a.evaluate("() => document.activeElement.dataset.students")
            assert same == b.evaluate("() => document.activeElement.dataset.students")
            a.keyboard.press("2")
            b.keyboard.press("3")
            for page in (a, b):
                expect(page.locator("#status")).not_to_have_text("")
            said = sorted(page.locator("#status").get_attribute("class") for page in (a, b))
            assert said == ["", "conflict"], said
            won = 1.0 if a.locator("#status").get_attribute("class") == "" else 0.5
            assert {manual(course)[s] for s in json.loads(same)} == {won}
            assert errors == []
        finally:
            browser.close()
