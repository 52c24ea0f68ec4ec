"""The student's side of `autograder watch`, as students meet it: JupyterLab with nbgrader's Assignments
panel in headless Chromium, and the exchange's permissions between two students (real OS users)."""

import re
import shutil

import pytest

from tests.assignments_panel import answer_and_save, fetch, fetch_feedback, open_assignment_list, submit
from tests.grading_course import ASSIGNMENT, scores
from tests.students import jupyterlab, students
from tests.watching import COURSE_ID, copy_watched, make_template, watching

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return make_template(tmp_path_factory.mktemp("watch-browser-template"))


def test_a_student_submits_in_jupyterlab_and_reads_graded_feedback(template, tmp_path):
    from playwright.sync_api import sync_playwright

    watched = copy_watched(template, tmp_path)
    shot = tmp_path / "feedback-page.png"
    with students(1, watched.exchange, COURSE_ID) as (student,), watching(watched.course) as watcher, \
            jupyterlab(student, tmp_path / "jupyterlab.log") as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(60_000)
            page.goto(url)
            # The Assignments panel: the course is found (no "Error fetching courses!") and the assignment listed.
            panel, menu = open_assignment_list(page)
            fetch(panel, ASSIGNMENT)
            answer_and_save(page, panel, ASSIGNMENT)  # one exercise answered in the notebook, saved
            submitted = submit(page, panel)
            watcher.wait_line(rf"graded {student.name} {ASSIGNMENT}")
            frame = fetch_feedback(page, submitted, ASSIGNMENT)
            body = frame.locator("body")
            text = body.inner_text()
            # Drawn as in a plain browser though the viewer runs no script: the formulas, one table.
            drawn = frame.locator("math").evaluate_all("all => all.filter(m => m.getBoundingClientRect().width > 0)"
                                                       ".length")
            tables = frame.locator("table").count()
            page.screenshot(path=str(shot))
            shutil.copy(shot, "/tmp/page-jupyterlab-feedback.png")  # kept to be looked at (docs, "Tests")
        finally:
            browser.close()
    assert "Error fetching courses" not in text
    # The instructor's tools are not on a student's menu (nbgrader's lab extensions switched off for students).
    # (An instructor's menu: Assignment List, Course List, Formgrader, Formgrader (local), Create assignment.)
    assert [item for item in menu if item.strip()] == ["Assignment List"], menu  # (hidden items have no text)
    # Submit copied no checkpoint and logged no warning about one (jupyter-config/student/nbgrader_config.py).
    log = (tmp_path / "jupyterlab.log").read_text()
    assert "Submitted as:" in log and "EXTRA" not in log and ".ipynb_checkpoints" not in log
    # The exercise's score (in the table at the top) and the graders' explanation (under its grade cell).
    assert re.search(r"concat_weights\s+6 / 6", text), text[:3000]
    assert "concat_weights: 6 / 6 points" in text and "[pass] value[" in text
    assert re.search(r"concat_state_input\s+0 / 6", text)
    assert "BEGIN HIDDEN TESTS" not in text
    assert drawn > 20 and "$" not in text and tables == 1, (drawn, tables)
    assert scores(watched.course)[student.name]["test_concat_weights"] == 6
    assert shot.stat().st_size > 10_000
    print(f"feedback page screenshot: {shot}")


def test_students_cannot_read_each_others_submissions_or_feedback(template, tmp_path):
    watched = copy_watched(template, tmp_path)  # nbgrader's owner check on (its default)
    with students(2, watched.exchange, COURSE_ID) as (ann, ben), watching(watched.course) as watcher:
        for student in (ann, ben):
            student.nbgrader("fetch_assignment", ASSIGNMENT)
            student.nbgrader("submit", ASSIGNMENT)
        # ben hands in a submission in ann's name: his folder, her name.
        ben.nbgrader("submit", ASSIGNMENT, f"--student={ann.name}")
        watcher.wait_line(rf"graded {ann.name} ")
        watcher.wait_line(rf"graded {ben.name} ")
        watcher.wait_line(rf"refused {re.escape(ann.name)}\+.*owned by {ben.name}, not by {ann.name}")
        for student in (ann, ben):
            student.nbgrader("fetch_feedback", ASSIGNMENT)
        inbound, feedback = watched.inbound, watched.feedback
        for student, other in ((ann, ben), (ben, ann)):
            own = list((student.home / ASSIGNMENT / "feedback").glob("*/*.html"))
            assert len(own) == 1
            # Neither the exchange's inbound nor its feedback folder can be listed by a student...
            assert student.shell(f"ls '{inbound}'").returncode != 0
            assert student.shell(f"ls '{feedback}'").returncode != 0
            # ... nor the other's home (their notebooks, their cache with the secrets naming their feedback).
            assert student.shell(f"ls '{other.home}'").returncode != 0
            cached = next((other.home / ".local/share/jupyter/nbgrader_cache" / COURSE_ID).glob("*"))
            assert student.shell(f"cat '{cached}/submission_secret.txt'").returncode != 0
        # ann's grade is from her own submission (the one in her cache), not from ben's in her name.
        cached = [p.name for p in (ann.home / ".local/share/jupyter/nbgrader_cache" / COURSE_ID).glob("*")]
        graded = [r["name"] for r in watched.ledger if r["state"] == "graded" and r["student"] == ann.name]
        assert len(cached) == 1 and len(graded) == 1 and graded[0].startswith(cached[0] + "+")
    assert set(scores(watched.course)) == {ann.name, ben.name}
    # ben's folder in ann's name was refused in the log (waited for above), and is not the ledger's: folders in
    # another's name are junk, which a flood of them must not grow (tests/test_watch_fairness.py).
    assert not [r for r in watched.ledger if r["state"] == "refused"]
