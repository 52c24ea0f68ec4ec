"""Regrade requests (autograder/by_question/regrade_requests.py) on a real nbgrader gradebook (SQLite,
tests/question_gradebook.py): one open request per question per student, the text's bound, only a graded question
of one's own, and an answer that changes a score is an override whose reason is the request, settled through the
one arithmetic so the grade and the LMS outbox follow.

Then the whole way in Chromium, without a hub (both services' handlers on loopback, the user given as the hub's OAuth
would give it): a student asks on My assignments, the instructor answers on grade by question with a new score, the
student reads the answer and the new grade."""

import json
import re
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.by_question.regrade_requests import (
    MAX_TEXT,
    RequestError,
    answer_request,
    open_counts,
    open_request,
    requests_about,
    requests_of,
)
from autograder.by_question.rubric import Question, QuestionGrading
from autograder.deadlines.exception_store import Exceptions
from autograder.deadlines.rules import LateRules
from autograder.grades.facts import read_facts
from autograder.grades.outbox import SessionSql, latest
from autograder.grades.settle import GradeRules
from autograder.migrations import upgrade
from tests.question_gradebook import ASSIGNMENT, CELL, CODE_CELL, NOTEBOOK, copy_opened, made_once, question_gradebook
from tests.question_service import question_routes, serving

STUDENTS = ["ann", "ben", "cy"]
HOSTILE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2"> I named both blocks!'


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    return made_once(tmp_path_factory.mktemp("regrade"), STUDENTS)  # 7 of 7 autograded, the written answer waiting


@pytest.fixture
def gradebook(made: Path, tmp_path: Path):
    with copy_opened(made, tmp_path) as gb:
        yield gb


def sql_of(gb: Gradebook) -> SessionSql:
    return SessionSql(gb.db)


def ask(gb: Gradebook, student: str, text: str, cell: str = CODE_CELL, notebook: str = NOTEBOOK,
        assignment: str = ASSIGNMENT):
    found = open_request(sql_of(gb), student, assignment, notebook, cell, text)
    gb.db.commit()
    return found


def grade_written(gb: Gradebook, points: float, students: list[str]) -> None:
    """The written answer graded by rubric (one item of `points`), as grade by question does."""
    grading = QuestionGrading(sql_of(gb), Question(ASSIGNMENT, NOTEBOOK, CELL), GradeRules(LateRules()), "ta")
    item = grading.add_item(points, "Names which block meets which.")
    grading.apply(item.id, {s: 0 for s in students})
    gb.db.commit()


def cell_scores(gb: Gradebook, student: str) -> dict[str, float]:
    gb.db.expire_all()
    facts = read_facts(sql_of(gb).rows, ASSIGNMENT, [student], labels=False)[student]
    return {c.cell: c.score for c in facts.cells}


def test_one_open_request_per_question_per_student_and_a_new_one_after_the_answer(gradebook):
    first = ask(gradebook, "ann", "Why did test_sigmoid lose points?")
    assert first.open and first.score_asked == 7.0 and first.student == "ann"
    with pytest.raises(RequestError, match=f"already have an open request about {CODE_CELL}"):
        ask(gradebook, "ann", "Again: why?")
    grade_written(gradebook, 1, ["ann"])
    ask(gradebook, "ann", "My explanation names both blocks.", cell=CELL)  # another question: its own request
    ask(gradebook, "ben", "Same question as Ann.")  # another student
    assert open_counts(sql_of(gradebook)) == {(ASSIGNMENT, NOTEBOOK, CODE_CELL): 2, (ASSIGNMENT, NOTEBOOK, CELL): 1}
    # The table holds it too, whatever a caller checks: two open rows of one (question, student) cannot exist.
    db = sqlite3.connect(gradebook.db.get_bind().url.database)
    with pytest.raises(sqlite3.IntegrityError):
        db.execute("INSERT INTO autograder_regrade_request (assignment, notebook, cell, student_id, text, asked_at) "
                   "VALUES (?, ?, ?, 'ann', 'x', 'now')", (ASSIGNMENT, NOTEBOOK, CODE_CELL))
    db.close()
    answer_request(Exceptions(gradebook, LateRules(), user="prof"), first.id, "The tests were right: see cell 3.")
    again = ask(gradebook, "ann", "I still think the tolerance is too strict.")  # answered: she may ask again
    assert again.id != first.id and [r.id for r in requests_of(sql_of(gradebook), "ann")][:1] == [again.id]
    assert [r.open for r in requests_about(sql_of(gradebook), ASSIGNMENT, NOTEBOOK, CODE_CELL)] == [True, True, False]


def test_the_text_is_bounded_and_kept_as_written_but_for_what_hides_it(gradebook):
    with pytest.raises(RequestError, match=f"{MAX_TEXT + 1} characters long, more than {MAX_TEXT}"):
        ask(gradebook, "ann", "x" * (MAX_TEXT + 1))
    for empty in ("", "   \n\t ", "\x00\x07\x1b"):
        with pytest.raises(RequestError, match="is empty"):
            ask(gradebook, "ann", empty)
    kept = ask(gradebook, "ann", f"  {HOSTILE}\r\nline two\x1b[31m \u202eevil\u202c\x00 ")
    assert kept.text == f"{HOSTILE}\nline two[31m evil"  # markup is kept as text: escaping is the pages' job
    assert requests_of(sql_of(gradebook), "ann")[0].text == kept.text


def test_only_a_graded_question_of_ones_own_submission_may_be_asked_about(gradebook):
    for assignment, notebook, cell, said in [
            (ASSIGNMENT, NOTEBOOK, "no_such_cell", "no graded question 'no_such_cell'"),
            (ASSIGNMENT, "other", CODE_CELL, "in 'other'"),
            ("other", NOTEBOOK, CODE_CELL, "other has no graded question"),
            (ASSIGNMENT, NOTEBOOK, CELL, f"{CELL} is not graded yet")]:  # waiting for a person: nothing to dispute
        with pytest.raises(RequestError, match=said):
            ask(gradebook, "ann", "Why?", cell, notebook, assignment)
    with pytest.raises(RequestError, match="no graded question"):
        ask(gradebook, "nobody", "Why?")  # not a student with a submission
    assert requests_of(sql_of(gradebook), "ann") == [] and open_counts(sql_of(gradebook)) == {}


def test_an_answer_without_a_score_closes_the_request_and_changes_no_grade(gradebook):
    request = ask(gradebook, "ann", "Why did test_sigmoid lose points?")
    exceptions = Exceptions(gradebook, LateRules(), user="prof")
    closed = answer_request(exceptions, request.id, "It did not: 7 of 7.", score=7.0)  # the same score: no change
    assert not closed.open and closed.answer == "It did not: 7 of 7." and closed.answered_by == "prof"
    assert closed.score_before is None and closed.score_after is None
    assert exceptions.events() == [] and exceptions.overrides() == []
    with pytest.raises(RequestError, match="already answered by prof"):
        answer_request(exceptions, request.id, "Twice?")
    with pytest.raises(RequestError, match="no regrade request 999"):
        answer_request(exceptions, 999, "Nobody asked.")


def test_a_new_score_is_an_override_with_the_request_as_its_reason_settled_for_the_grade_and_the_lms(gradebook):
    request = ask(gradebook, "ann", HOSTILE)
    exceptions = Exceptions(gradebook, LateRules(), user="prof")
    for bad in (8.0, -1.0):  # out of the cell's 7 points: refused, nothing written, still open
        with pytest.raises(RequestError, match=f"score of {bad:g} is not between 0 and {CODE_CELL}'s 7 points"):
            answer_request(exceptions, request.id, "Fine.", score=bad)
    assert requests_of(sql_of(gradebook), "ann")[0].open and exceptions.events() == []
    closed = answer_request(exceptions, request.id, "Test 2 was too strict; 5 of 7.", score=5.0)
    assert (closed.score_before, closed.score_after) == (7.0, 5.0)
    (event,) = exceptions.events("ann")
    assert event.kind == "override" and event.user == "prof" and event.assignment == ASSIGNMENT
    assert event.reason == f"regrade request {request.id} from ann: {HOSTILE}"
    assert exceptions.overrides() == [(ASSIGNMENT, "ann", NOTEBOOK, CODE_CELL, 5.0)]
    # The one arithmetic reads it: the cell's score, the grade, and the LMS's next row, with what changed it.
    assert cell_scores(gradebook, "ann")[CODE_CELL] == 5.0
    grade = GradeRules(LateRules()).grades(sql_of(gradebook).rows, ASSIGNMENT, ["ann"])["ann"]
    assert grade.score == 5.0 and grade.pending_points() == 2.0
    sent = latest(sql_of(gradebook), ASSIGNMENT)
    assert sent["ann"].score == 5.0 and sent["ann"].origin == "override" and "ben" not in sent


def test_a_written_answers_new_score_stays_an_override_over_the_rubric(gradebook):
    grade_written(gradebook, 1, STUDENTS)
    request = ask(gradebook, "ben", "My explanation says which block meets which.", cell=CELL)
    assert request.score_asked == 1.0
    answer_request(Exceptions(gradebook, LateRules(), user="prof"), request.id, "Yes it does: 2 of 2.", score=2.0)
    assert cell_scores(gradebook, "ben")[CELL] == 2.0
    later = Exceptions(gradebook, LateRules(), user="prof")
    assert later.adopt_formgrader_scores() == []  # not mistaken for a formgrader score cleared
    assert later.overrides() == [(ASSIGNMENT, "ben", NOTEBOOK, CELL, 2.0)]
    grading = QuestionGrading(sql_of(gradebook), Question(ASSIGNMENT, NOTEBOOK, CELL), GradeRules(LateRules()), "ta")
    (item,) = grading.items()
    grading.edit_item(item.id, item.version, 0.5, "Names one block.")  # re-scores everyone given the item...
    gradebook.db.commit()
    assert cell_scores(gradebook, "ben")[CELL] == 2.0 and cell_scores(gradebook, "ann")[CELL] == 0.5  # ...but him


def test_a_written_answers_override_removed_gives_back_its_rubric_score_or_to_be_graded_never_a_0(gradebook):
    grade_written(gradebook, 1, ["ann"])  # ann's answer given an item; cy's not graded by anyone
    prof = Exceptions(gradebook, LateRules(), user="prof")
    prof.override(ASSIGNMENT, "ann", CELL, 2.0, "Re-read: both blocks named.")
    prof.override(ASSIGNMENT, "cy", CELL, 1.5, "Graded on paper.")
    said = {e.student: e.detail for e in prof.events() if e.kind == "override"}
    assert said == {"ann": f"{CELL}: 2 of 2 (graded by hand: 1 before)",
                    "cy": f"{CELL}: 1.5 of 2 (graded by hand: not graded before)"}  # never "graders gave 0"
    prof.override(ASSIGNMENT, "ann", CELL, None, "Paper lost; the rubric stands.")
    prof.override(ASSIGNMENT, "cy", CELL, None, "Paper lost; to be graded here.")
    assert cell_scores(gradebook, "ann")[CELL] == 1.0  # her rubric item's point again
    (cy,) = [c for c in read_facts(sql_of(gradebook).rows, ASSIGNMENT, ["cy"], labels=False)["cy"].cells
             if c.cell == CELL]
    assert cy.pending and cy.manual is None  # to be graded, as before anyone graded it: not a 0
    assert latest(sql_of(gradebook), ASSIGNMENT)["cy"].comment.count("to be graded") == 1
    removed = {e.student: e.detail for e in prof.events() if e.kind == "unoverride"}
    assert removed == {"ann": f"{CELL}: its rubric items' 1 of 2 counts again",
                       "cy": f"{CELL}: to be graded by hand again"}


# The whole way, in Chromium -----------------------------------------------------------------------------------------

def write_course(folder: Path) -> None:
    """A course folder My assignments reads: its gradebook (3 students, 7 of 7 autograded, the written answer graded
    1 of 2 by rubric) and the watcher's ledger with each student's one graded attempt (7 of 9 autograded)."""
    from dataclasses import asdict

    from autograder.watch.ledger import Record
    from autograder.watch.watch_status import LEDGER_FILE, STATE_FOLDER

    (folder / "nbgrader_config.py").write_text('c = get_config()\nc.CourseDirectory.course_id = "regrade"\n')
    upgrade(question_gradebook(folder, STUDENTS))
    with Gradebook(f"sqlite:///{folder / 'gradebook.db'}") as gb:
        grade_written(gb, 1, STUDENTS)
    at = datetime.now(UTC).replace(tzinfo=None) - timedelta(hours=1)
    records = [Record(f"{s}+{ASSIGNMENT}+1", "graded", at.isoformat(), s, ASSIGNMENT,
                      (at - timedelta(minutes=1)).isoformat(), 7.0, 9.0) for s in STUDENTS]
    for student in STUDENTS:  # the written answers, as autograde leaves them (the page groups them)
        (folder / "autograded" / student / ASSIGNMENT).mkdir(parents=True)
        cell = {"cell_type": "markdown", "id": "a", "source": "W_hh meets h and W_hx meets x.",
                "metadata": {"nbgrader": {"grade": True, "solution": True, "grade_id": CELL, "points": 2}}}
        (folder / "autograded" / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb").write_text(json.dumps(
            {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    (folder / STATE_FOLDER).mkdir()
    (folder / STATE_FOLDER / LEDGER_FILE).write_text("".join(json.dumps(asdict(r)) + "\n" for r in records))


class HeaderUser:
    """Whose page it is, as the hub's OAuth mixin says it in the service: here the `X-Test-User` header."""

    def get_current_user(self):
        name = self.request.headers.get("X-Test-User")
        return {"name": name} if name else None


@pytest.fixture
def services(tmp_path: Path):
    """My assignments (under /mine/) and grade by question (under /grade/), their own handlers on one loopback port
    in a thread, the user given by the `X-Test-User` header as the hub's OAuth gives it in the services."""
    from autograder.course.settings import read_course
    from autograder.hub.my_assignments_service import Site, handlers
    from autograder.watch.attempt_policy import read_policy

    write_course(tmp_path)
    settings = read_course(tmp_path)
    site = Site(settings, read_policy(settings.coursedir.config), tmp_path / "no-feedback", "/lab")
    mine = [(f"/mine/{path}", handler) for path, handler in handlers(site, HeaderUser)]
    with serving(question_routes(tmp_path) + mine) as url:
        yield url, tmp_path


def test_a_student_asks_the_instructor_answers_with_a_new_score_and_the_student_reads_it(services):
    from playwright.sync_api import expect, sync_playwright

    from tests.axe import serious_violations
    from tests.browser import CHROMIUM, CHROMIUM_FLAGS

    url, folder = services
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        try:
            size = {"width": 1100, "height": 900}
            ann = browser.new_context(extra_http_headers={"X-Test-User": "ann"}, viewport=size).new_page()
            errors: list[str] = []
            ann.on("pageerror", lambda e: errors.append(str(e)))
            ann.goto(f"{url}/mine/")
            form = ann.locator("form.ask")
            assert "explain_formulas: 1 / 2 points" in form.get_by_label("Question").inner_text()
            # Whose request it is comes from the hub's user alone: a field naming another student is not read.
            form.evaluate("f => { const i = document.createElement('input'); i.type = 'hidden'; i.name = 'student';"
                          " i.value = 'ben'; f.appendChild(i); }")
            form.get_by_label("Question").select_option(label="explain_formulas: 1 / 2 points")
            form.get_by_label(re.compile("^Your request")).fill(HOSTILE)
            form.get_by_role("button", name=f"Ask about {ASSIGNMENT}").click()
            ann.wait_for_url(re.compile(r"/mine/#requests$"))
            mine = ann.locator("#requests").locator("xpath=..")
            expect(mine).to_contain_text("Open: waiting for your instructor's answer.")
            assert HOSTILE in mine.locator("p.said").first.inner_text()  # her markup, shown as text
            assert "(your request is open)" in ann.locator("form.ask select").inner_text()
            # Asking again about the same question, past the form (the option is disabled): refused, said in a line.
            again = ann.request.post(f"{url}/mine/ask", form={
                "_xsrf": ann.locator("input[name=_xsrf]").first.get_attribute("value"), "assignment": ASSIGNMENT,
                "question": json.dumps([NOTEBOOK, CELL]), "text": "Again?"})
            assert again.status == 400 and "already have an open request about explain_formulas" in again.text()
            # Refused in the page itself: said at the form, which keeps what she wrote (escaped: it is hers).
            form.get_by_label(re.compile("^Your request")).fill("x" * 30 + "</textarea><b>bold</b>")
            form.evaluate("f => { f.querySelector('textarea').removeAttribute('maxlength');"
                          " f.querySelector('select option[disabled]').disabled = false; }")
            form.get_by_label("Question").select_option(label="explain_formulas: 1 / 2 points (your request is open)")
            form.get_by_role("button", name=f"Ask about {ASSIGNMENT}").click()
            expect(form.get_by_role("alert")).to_contain_text("Not sent: you already have an open request about")
            assert form.get_by_label(re.compile("^Your request")).input_value() == "x" * 30 + "</textarea><b>bold</b>"
            forged = ann.request.post(f"{url}/mine/ask", form={"assignment": ASSIGNMENT, "text": "No token",
                                                               "question": json.dumps([NOTEBOOK, CODE_CELL])})
            assert forged.status == 403  # no XSRF token: refused before anything is read
            student_violations = serious_violations(ann)
            ann.screenshot(path="/tmp/page-regrade-request-asked.png", full_page=True)

            prof = browser.new_context(extra_http_headers={"X-Test-User": "prof"}, viewport=size).new_page()
            prof.on("pageerror", lambda e: errors.append(str(e)))
            prof.goto(f"{url}/grade/")
            expect(prof.locator("main")).to_contain_text("1 open regrade request")
            prof.get_by_role("link", name=f"{ASSIGNMENT}: {CELL}").click()
            request = prof.locator("section.requests article").first
            expect(request).to_contain_text("ann: now 1 / 2 points")
            assert HOSTILE in request.locator(".answer").inner_text()
            assert prof.locator("section.requests img, section.requests script").count() == 0
            request.get_by_label("Your answer to ann").fill("You are right: your answer names both blocks.")
            request.get_by_label(re.compile("^New score")).fill("2")
            prof.screenshot(path="/tmp/page-regrade-request-to-answer.png", full_page=True)
            with prof.expect_navigation():
                request.get_by_role("button", name="Answer ann and close").click()
            expect(prof.locator("#requests")).to_have_text("Regrade requests: 0 open")
            held = prof.locator("section.group").filter(has_text="Scored by an override").inner_text()
            assert "not by these items: ann" in held  # the rubric no longer scores her: the page says so
            audit = browser.new_context(bypass_csp=True, extra_http_headers={"X-Test-User": "prof"}).new_page()
            audit.goto(prof.url)
            instructor_violations = serious_violations(audit)

            # An autograded exercise asked about: listed on the first page, its page its requests alone.
            asked = ann.request.post(f"{url}/mine/ask", form={
                "_xsrf": ann.locator("input[name=_xsrf]").first.get_attribute("value"), "assignment": ASSIGNMENT,
                "question": json.dumps([NOTEBOOK, CODE_CELL]), "text": "Is test 3's tolerance right?"})
            assert asked.ok
            prof.goto(f"{url}/grade/")
            prof.get_by_role("link", name=f"{ASSIGNMENT}: {CODE_CELL}").click()
            expect(prof.locator("h1")).to_contain_text("autograded): regrade requests")
            # and the class's code for it, by named mistake (none named here: identical code), with the scores
            expect(prof.locator("section.code h3").first).to_contain_text("identical code, 7 / 7 points")
            audit.goto(prof.url)
            instructor_violations += serious_violations(audit)
            prof.screenshot(path="/tmp/page-autograded-exercise.png", full_page=True)
            prof.get_by_label("Your answer to ann").fill("It is: 1e-6, as the notebook says.")
            with prof.expect_navigation():
                prof.get_by_role("button", name="Answer ann and close").click()
            expect(prof.locator("#requests")).to_have_text("Regrade requests: 0 open")

            sticky = panel_and_focused_group(browser)

            ann.goto(f"{url}/mine/")
            answer = ann.locator("#requests").locator("xpath=..").inner_text()
            page_text = ann.locator("main").inner_text()
            ann.screenshot(path="/tmp/page-regrade-request-read.png", full_page=True)
            assert ann.evaluate("() => window.pwned") is None and prof.evaluate("() => window.pwned") is None
        finally:
            browser.close()
    assert sticky["group"] >= sticky["panel"], sticky  # the rubric's sticky panel never hides the focused group
    assert student_violations == [] and instructor_violations == [], (student_violations, instructor_violations)
    assert errors == []
    assert "Answered by prof:" in answer and "You are right: your answer names both blocks." in answer
    assert "Your score for explain_formulas changed from 1 to 2 points." in answer
    assert "It is: 1e-6, as the notebook says. Your score is unchanged." in " ".join(answer.split())
    # The exercise's name, as the feedback page names it, never its grade cell's id.
    assert f"{ASSIGNMENT}: {CODE_CELL.removeprefix('test_')}" in answer and CODE_CELL not in page_text
    assert "Your grade: 9 / 9 points" in page_text  # 7 autograded + 2 written, as the gradebook and the LMS hold it
    with Gradebook(f"sqlite:///{folder / 'gradebook.db'}") as gb:
        (event,) = Exceptions(gb, LateRules()).events("ann")
        sent = latest(SessionSql(gb.db), ASSIGNMENT)
    assert event.kind == "override" and event.user == "prof" and event.reason.endswith(f"from ann: {HOSTILE}")
    assert sent["ann"].score == 9.0 and sent["ann"].origin == "override"
    assert requests_of(sql_of_path(folder), "ben") == []


def sql_of_path(folder: Path):
    from types import SimpleNamespace

    db = sqlite3.connect(folder / "gradebook.db")
    return SimpleNamespace(rows=lambda q, p=None: [tuple(r) for r in db.execute(q, p or {}).fetchall()])


def panel_and_focused_group(browser) -> dict[str, float]:
    """On a narrow window with a rubric of long comments (a tall sticky panel) and 40 groups, after `j` moved the
    focus down 12 groups: where the panel ends and the focused group begins (px from the top of the window)."""
    from autograder.by_question.answer_groups import Answer, group_answers
    from autograder.by_question.page import question_page
    from autograder.by_question.rubric import RubricItem, StudentAnswer

    written = {f"s{i:03d}": f"answer {i} " + "word " * (i % 7) + f"unique{i}" for i in range(40)}
    items = [RubricItem(i, i, 1.0, f"comment {i}: " + "a long comment the student reads " * 3, 1) for i in range(1, 8)]
    page = browser.new_page(viewport={"width": 500, "height": 600})
    page.set_content(question_page(
        Question(ASSIGNMENT, NOTEBOOK, CELL), 2, group_answers([Answer(s, t) for s, t in written.items()], code=False),
        items, {s: StudentAnswer(s, None, 0, frozenset()) for s in written}, "/", "x", "n", "ta"))
    for _ in range(12):
        page.keyboard.press("j")
    return page.evaluate("""() => ({group: document.activeElement.closest("section.group").getBoundingClientRect().top,
                                    panel: document.querySelector(".rubric").getBoundingClientRect().bottom})""")
