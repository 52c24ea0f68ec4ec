"""The class report, end to end: a scratch course graded by the real nbgrader, opened in headless Chromium.

The numbers the browser shows are checked against the gradebook read with plain SQL (not through the
report's own code), and misconception / limit / timing numbers against the result files.
"""

import html
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
from matplotlib import image as mpimg
from nbgrader.api import Gradebook

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.catalogue import Answer, correct_answers, write_submission, wrong_answers
from autograder.grader_support.exercise import run_exercise
from autograder.grader_support.student import InProcessStudent
from autograder.grading.model import CellResult, SubmissionResult
from autograder.nbgrader_glue.notebook import load_namespace
from autograder.report import write_report
from autograder.watch.ledger import Ledger, Record
from tests.browser import chromium, seen_after_load
from tests.grading_course import make_course

ASSIGNMENT = "hidden_state_activation"
REGRADE = 3.5  # an instructor's manual score for cy's sigmoid, which the result file does not know


def wrong(label: str) -> Answer:
    return next(a for a in wrong_answers(ASSIGNMENT) if a.label == label)


def correct(label: str) -> Answer:
    return next(a for a in correct_answers(ASSIGNMENT) if a.label == label)


# Who submitted what. ada, cy and dee get result files (as the engine would write); ben and eve are graded
# by plain nbgrader only; fay's notebook was unreadable, so she has a result file but no gradebook entry;
# zed is on the roster and never submitted.
SUBMISSIONS: dict[str, list[Answer] | None] = {
    "ada": [],
    "ben": [correct("concat_weights/block"), correct("sigmoid/stable-where"), correct("hidden_state/inline")],
    "cy": [wrong("concat_weights/axis-0"), wrong("sigmoid/sign-flipped")],
    "dee": [wrong("concat_state_input/axis-1"), wrong("sigmoid/in-place")],
    "eve": None,  # the blank release
}
WITH_RESULTS = {"ada": 1.2, "cy": 2.0, "dee": 10.5}  # student -> seconds
TIME_LIMIT_MESSAGE = "hidden_state stopped after 10 s: the time limit"
SELF_CHECK_ERROR = "ValueError: all the input array dimensions except for the concatenation axis must match"
UNREADABLE_MESSAGE = "hidden_state_activation.ipynb: not a readable notebook (NotJSONError: truncated)"
UNANSWERED_ERROR = "NotImplementedError: "  # what the released stub raises in a self-check
# The watcher's ledger: ben's earlier attempt, where the graders named a mistake he has since fixed, and
# a submission of eve's waiting over the attempts limit.
LEDGER = [
    Record("ben+a+1", "graded", "2026-11-25T09:00:01", "ben", ASSIGNMENT, "2026-11-25T09:00:00", 40.0, 46.0,
           hints={"test_sigmoid": ["sigmoid_sign"]}),
    Record("ben+a+2", "graded", "2026-11-25T10:00:01", "ben", ASSIGNMENT, "2026-11-25T10:00:00", 46.0, 46.0),
    Record("eve+a+3", "deferred", "2026-11-25T11:00:01", "eve", ASSIGNMENT, "2026-11-25T11:00:00",
           until="2026-11-26T09:00:01"),
]


def engine_result(course: Path, student: str, seconds: float) -> SubmissionResult:
    """What the engine would record: the real graders run on the student's submitted notebook."""
    folder = course / "submitted" / student / ASSIGNMENT
    namespace = load_namespace(folder / f"{ASSIGNMENT}.ipynb")
    cells = []
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gradebook:
        notebook = gradebook.find_notebook(ASSIGNMENT, ASSIGNMENT)
        for cell in notebook.grade_cells:
            if cell.cell_type != "code":  # a written answer: no graders, people grade it
                continue
            result = run_exercise(ASSIGNMENT, cell.name.removeprefix("test_"), InProcessStudent(namespace))
            cells.append(CellResult(cell.name, cell.max_score, result.score, exercise=result))
    return SubmissionResult(student, ASSIGNMENT, seconds=seconds, cells=cells)


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    course = make_course(tmp_path_factory.mktemp("report-course"))
    release = course / "release" / ASSIGNMENT
    for student, answers in SUBMISSIONS.items():
        folder = course / "submitted" / student / ASSIGNMENT
        write_submission(ASSIGNMENT, folder, answers or [], blank=answers is None, release=release)
        shutil.copy(release / "selfcheck.py", folder)
    nbgrader(course, "db", "student", "add", "zed")
    nbgrader(course, "autograde", ASSIGNMENT)
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gradebook:
        grade = gradebook.find_grade("test_sigmoid", ASSIGNMENT, ASSIGNMENT, "cy")
        grade.manual_score = REGRADE
        # dee's hidden_state waits for a person (as an unreadable notebook's cells or a disputed score do)
        gradebook.find_grade("test_hidden_state", ASSIGNMENT, ASSIGNMENT, "dee").needs_manual_grade = True
        gradebook.db.commit()

    for student, seconds in WITH_RESULTS.items():
        result = engine_result(course, student, seconds)
        if student == "dee":
            result.limits_hit, result.message = ["time"], TIME_LIMIT_MESSAGE
        if student == "cy":  # formula_1 calls cy's broken concat_weights: the self-check raised first
            cell = next(c for c in result.cells if c.grade_id == "test_formula_1")
            cell.score, cell.exercise, cell.visible_error = 0.0, None, SELF_CHECK_ERROR
        if student == "ada":  # she left sigmoid as released: its self-check raised the stub's error
            cell = next(c for c in result.cells if c.grade_id == "test_sigmoid")
            cell.score, cell.exercise, cell.visible_error = 0.0, None, UNANSWERED_ERROR
        result.save(course / "autograded" / student / ASSIGNMENT)
    fay = course / "autograded" / "fay" / ASSIGNMENT
    fay.mkdir(parents=True)
    SubmissionResult("fay", ASSIGNMENT, status="unreadable", message=UNREADABLE_MESSAGE, seconds=0.3).save(fay)
    ledger = Ledger(course / ".autograder-watch" / "ledger.jsonl")
    ledger.write_many(LEDGER)
    ledger.close()
    return course


# ---- the truth, read without the report's code -------------------------------------------------------

def gradebook_scores(course: Path) -> dict[str, dict[str, tuple[float, float]]]:
    """student -> grade cell -> (score, max score), as nbgrader computes a grade's score."""
    query = """
        SELECT sa.student_id, bc.name, gc.max_score,
               COALESCE(g.manual_score, g.auto_score, 0) + COALESCE(g.extra_credit, 0)
        FROM grade g
        JOIN submitted_notebook sn ON g.notebook_id = sn.id
        JOIN submitted_assignment sa ON sn.assignment_id = sa.id
        JOIN assignment a ON sa.assignment_id = a.id
        JOIN base_cell bc ON g.cell_id = bc.id
        JOIN grade_cells gc ON gc.id = bc.id
        WHERE a.name = ?"""
    scores: dict[str, dict[str, tuple[float, float]]] = {}
    with sqlite3.connect(course / "gradebook.db") as db:
        for student, cell, maximum, score in db.execute(query, (ASSIGNMENT,)):
            scores.setdefault(student, {})[cell] = (score, maximum)
    return scores


def roster(course: Path) -> list[str]:
    with sqlite3.connect(course / "gradebook.db") as db:
        return sorted(row[0] for row in db.execute("SELECT id FROM student"))


def pct(fraction: float) -> str:
    return f"{100 * fraction:.0f}%"


# ---- the browser -------------------------------------------------------------------------------------

# What a person sees after `load`, having expanded every "students" / "who" disclosure.
SEEN = """(() => {
  const main = document.querySelector("main");
  const height = document.body.scrollHeight;
  document.querySelectorAll("details").forEach(d => { d.open = true; });
  return {
    h1: document.querySelector("h1").innerText,
    height: height,
    mainMaxWidth: getComputedStyle(main).maxWidth,
    images: [...document.images].map(i => ({chart: i.dataset.chart, complete: i.complete,
      width: i.naturalWidth, height: i.naturalHeight, shown: i.getBoundingClientRect().width})),
    resources: performance.getEntriesByType("resource").map(e => e.name),
    metrics: [...document.querySelectorAll("[data-metric]")].map(e => {
      const row = e.closest("[data-exercise],[data-hint],[data-student]");
      return {metric: e.dataset.metric, text: e.innerText.trim(),
              row: row ? (row.dataset.exercise || row.dataset.hint || row.dataset.student) : null};
    }),
  };
})()"""


def browser_view(page: Path, tmp_path: Path) -> dict:
    return seen_after_load(page.read_text(), SEEN, tmp_path)


@pytest.fixture(scope="module")
def report(course: Path) -> Path:
    path, _ = write_report(course, ASSIGNMENT, course / "reports")
    return path


@pytest.fixture(scope="module")
def seen(report: Path, tmp_path_factory) -> dict:
    return browser_view(report, tmp_path_factory.mktemp("browser"))


def metric(seen: dict, name: str, row: str | None = None) -> str:
    values = [m["text"] for m in seen["metrics"] if m["metric"] == name and m["row"] == row]
    assert len(values) == 1, f"{name} ({row}) is shown {len(values)} times"
    return values[0]


# ---- tests -------------------------------------------------------------------------------------------

def test_page_renders_with_every_chart_loaded_and_nothing_fetched(seen):
    assert seen["h1"] == f"Class report: {ASSIGNMENT}"
    assert seen["mainMaxWidth"] == "980px"  # the inline CSS applied
    assert seen["height"] > 1500
    charts = {image["chart"]: image for image in seen["images"]}
    assert set(charts) == {"scores", "pass_rates", "misconceptions", "seconds"}
    for name, image in charts.items():
        assert image["complete"] and image["width"] > 0 and image["height"] > 0, f"{name} did not load"
        assert image["shown"] > 300, f"{name} is laid out {image['shown']} px wide"
    assert seen["resources"] == []  # self-contained: the browser fetched nothing


def test_the_file_references_nothing_outside_itself(report):
    """Nothing is loaded from elsewhere; the only links lead to the formgrader, when a person follows them."""
    text = report.read_text()
    assert not re.search(r'src\s*=\s*"(?!data:)', text)
    assert all(href.startswith("http://localhost:8888/formgrader/submissions/")
               for href in re.findall(r'href\s*=\s*"([^"]*)"', text))
    assert "<link" not in text and "@import" not in text and "<script" not in text


def test_headline_numbers_match_the_gradebook(course, seen):
    scores = gradebook_scores(course)
    totals = {student: sum(s for s, _ in cells.values()) for student, cells in scores.items()}
    maximum = sum(m for _, m in next(iter(scores.values())).values())
    assert set(totals) == set(SUBMISSIONS)  # fay (unreadable) and zed (absent) are not in it
    assert metric(seen, "roster") == str(len(roster(course))) == "6"
    assert metric(seen, "submissions") == str(len(totals)) == "5"
    assert metric(seen, "not-submitted") == "1"
    assert metric(seen, "mean-score") == f"{statistics.fmean(totals.values()):.1f}"
    assert metric(seen, "median-score") == f"{statistics.median(totals.values()):.1f}"
    assert metric(seen, "full-marks") == str(sum(t >= maximum for t in totals.values()))
    for student, total in totals.items():
        assert metric(seen, "total", student) == f"{total:.1f}"


def test_exercise_pass_rates_and_means_match_the_gradebook(course, seen):
    scores = gradebook_scores(course)
    cells = next(iter(scores.values()))
    assert len(cells) == 7  # six exercises and the written answer (explain_formulas), each a row of the report
    for cell, (_, maximum) in cells.items():
        exercise = cell.removeprefix("test_")
        values = [scores[student][cell][0] for student in scores]
        passed = sum(v >= maximum for v in values)
        assert metric(seen, "pass-rate", exercise) == pct(passed / len(values))
        assert metric(seen, "passed", exercise) == str(passed)
        assert metric(seen, "exercise-mean", exercise) == f"{statistics.fmean(values):.1f}"
    # From the result files: cy's formula_1 self-check failed; no other self-check did. ada's sigmoid is
    # unanswered, which is not a self-check failure.
    failed = {m["row"]: m["text"] for m in seen["metrics"] if m["metric"] == "self-check-failed"}
    assert failed == {cell.removeprefix("test_"): "1" if cell == "test_formula_1" else "0" for cell in cells}
    unanswered = {m["row"]: m["text"] for m in seen["metrics"] if m["metric"] == "unanswered"}
    assert unanswered == {cell.removeprefix("test_"): "1" if cell == "test_sigmoid" else "0" for cell in cells}
    assert metric(seen, "cells-without-graders") == "2"
    # The instructor's regrade is in the gradebook, and so in the report, whatever the result file says.
    assert scores["cy"]["test_sigmoid"][0] == REGRADE
    assert metric(seen, "total", "cy") == f"{sum(s for s, _ in scores['cy'].values()):.1f}"


def test_misconceptions_are_counted_once_per_student_from_the_result_files(course, seen):
    results = {s: SubmissionResult.load(course / "autograded" / s / ASSIGNMENT) for s in WITH_RESULTS}
    named = {student: set(result.hints) for student, result in results.items()}
    for record in LEDGER:  # earlier attempts count too: ben's since-fixed sign flip
        named.setdefault(record.student, set()).update(h for hints in record.hints.values() for h in hints)
    expected: dict[str, int] = {}
    for hints in named.values():
        for hint in hints:
            expected[hint] = expected.get(hint, 0) + 1
    # cy and dee each joined along the wrong axis (in different exercises): two students, not two checks.
    assert expected["wrong_axis"] == 2 and expected["modifies_input"] == 1
    assert expected["sigmoid_sign"] == 2  # cy now, ben in his first attempt
    shown = {m["row"]: int(m["text"]) for m in seen["metrics"] if m["metric"] == "students"}
    assert shown == expected
    # Per exercise, the most common one counts students in that exercise only (wrong_axis: 1 and 1, not 2).
    per_exercise: dict[str, dict[str, set[str]]] = {}
    found = [(s, c.grade_id, c.exercise.hints) for s, r in results.items() for c in r.cells if c.exercise]
    found += [(r.student, cell, hints) for r in LEDGER for cell, hints in r.hints.items()]
    for student, cell, hints in found:
        for hint in hints:
            per_exercise.setdefault(cell.removeprefix("test_"), {}).setdefault(hint, set()).add(student)
    tops = {m["row"]: m["text"] for m in seen["metrics"] if m["metric"] == "top-misconception"}
    assert tops == {exercise: "{} ({})".format(*min(((h, len(s)) for h, s in counts.items()),
                                                    key=lambda kv: (-kv[1], kv[0])))
                    for exercise, counts in per_exercise.items()}
    assert tops["sigmoid"] == "sigmoid_sign (2)"
    assert metric(seen, "attempts") == "2 attempts"  # ben's two graded attempts in the ledger
    assert tops["concat_weights"] == "wrong_axis (1)" and tops["concat_state_input"] == "wrong_axis (1)"
    assert metric(seen, "with-results") == "3"
    # ben and eve were graded by plain nbgrader: the page says their misconception data is unavailable.
    assert metric(seen, "without-results") == "2"
    assert metric(seen, "without-results-names") == "ben, eve"


def test_blank_hand_ins_failed_attempts_and_cells_to_grade_by_hand_are_shown_apart(course, report, seen):
    """Read from the gradebook with plain SQL: a blank hand-in has "No response." on every answer cell."""
    with sqlite3.connect(course / "gradebook.db") as db:
        comments: dict[str, list[str]] = {}
        for student, text in db.execute(
                "SELECT sa.student_id, c.auto_comment FROM comment c JOIN submitted_notebook sn ON c.notebook_id"
                " = sn.id JOIN submitted_assignment sa ON sn.assignment_id = sa.id"):
            comments.setdefault(student, []).append(text)
        flagged = db.execute("SELECT sa.student_id, sn.id FROM grade g JOIN submitted_notebook sn ON g.notebook_id"
                             " = sn.id JOIN submitted_assignment sa ON sn.assignment_id = sa.id"
                             " WHERE g.needs_manual_grade").fetchall()
    blank = sorted(s for s, texts in comments.items() if all(t == "No response." for t in texts))
    totals = {s: sum(score for score, _ in cells.values()) for s, cells in gradebook_scores(course).items()}
    assert blank == ["eve"]
    assert metric(seen, "blank") == "1"
    assert metric(seen, "failed-attempts") == str(sum(totals[s] <= 0 for s in totals if s not in blank))
    assert ("dee", ) in {(s,) for s, _ in flagged}
    assert metric(seen, "manual-cells") == str(len(flagged))
    page = report.read_text()
    for _, notebook_id in flagged:
        assert f'href="http://localhost:8888/formgrader/submissions/{notebook_id}/"' in page


def test_submissions_waiting_in_the_watcher_are_counted_and_listed(report, seen):
    assert metric(seen, "waiting") == "1" and metric(seen, "waiting-submissions") == "1 submission"
    text = html.unescape(report.read_text())
    waiting = text[text.index("<h3>Waiting to be graded</h3>"):]
    eve = re.search(r'<tr data-student="eve">(.*?)</tr>', waiting).group(1)
    assert "2026-11-25 11:00 UTC" in eve and "over the attempts limit" in eve and "2026-11-26 09:00 UTC" in eve


def test_limits_and_unreadable_submissions_are_listed_with_their_message(report, seen):
    assert metric(seen, "problems") == "2"
    text = html.unescape(report.read_text())
    dee = re.search(r'<tr data-student="dee">(.*?)</tr>', text).group(1)
    assert "time" in dee and TIME_LIMIT_MESSAGE in dee
    fay = re.search(r'<tr data-student="fay">(.*?)</tr>', text).group(1)
    assert "unreadable" in fay and UNREADABLE_MESSAGE in fay and "not in gradebook" in fay


def test_grading_time_comes_from_the_result_files(seen):
    seconds = [*WITH_RESULTS.values(), 0.3]  # fay's result counts: grading her notebook took time too
    assert metric(seen, "timed") == str(len(seconds))
    # One precision for every time: a total of 0.04 s is not "0.0 s" beside a mean of "0.04 s".
    assert metric(seen, "total-seconds") == f"{sum(seconds):.2f} s"
    assert metric(seen, "max-seconds") == "10.50 s"


def test_screenshot_shows_the_charts(report, tmp_path):
    shot = tmp_path / "report.png"
    chromium(tmp_path, "--window-size=1100,1400", f"--screenshot={shot}", report.as_uri())
    pixels = mpimg.imread(shot)[:, :, :3]
    assert pixels.shape[:2] == (1400, 1100)
    # The chart bars' blue (#3b6ea8) is painted: the embedded PNGs were decoded and drawn.
    blue = (abs(pixels[:, :, 0] - 0x3B / 255) < 0.03) & (abs(pixels[:, :, 1] - 0x6E / 255) < 0.03) \
        & (abs(pixels[:, :, 2] - 0xA8 / 255) < 0.03)
    assert blue.sum() > 2000


def autograder(course: Path, *args: str) -> subprocess.CompletedProcess:
    command = Path(sys.executable).parent / "autograder"  # the installed entry point, as a user runs it
    return subprocess.run([str(command), *args], cwd=course,
                          capture_output=True, text=True, timeout=300)


def test_cli_writes_the_report_and_prints_a_plain_exercise_table(course):
    done = autograder(course, "report", ASSIGNMENT, "--output", "elsewhere")
    assert done.returncode == 0, done.stderr
    assert (course / "elsewhere" / f"{ASSIGNMENT}.html").is_file()
    assert f"report: elsewhere/{ASSIGNMENT}.html" in done.stdout
    assert "\x1b[" not in done.stdout  # piped: no colour codes
    rows = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines() if line.strip()}
    scores = gradebook_scores(course)
    values = [scores[s]["test_concat_weights"][0] for s in scores]
    assert rows["concat_weights"][:3] == ["6", f"{statistics.fmean(values):.1f}",
                                          pct(sum(v >= 6 for v in values) / len(values))]


def test_cli_user_mistakes_are_one_line(course, tmp_path):
    unknown = autograder(course, "report", "no_such_assignment")
    assert unknown.returncode == 1
    lines = unknown.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("autograder report: unknown assignment 'no_such_assignment'")
    assert ASSIGNMENT in lines[0]  # and it names the ones that exist
    nowhere = autograder(tmp_path, "report", ASSIGNMENT)
    assert nowhere.returncode == 1 and len(nowhere.stderr.strip().splitlines()) == 1
    assert "no gradebook.db" in nowhere.stderr
    assert not (tmp_path / "gradebook.db").exists()  # not created as a side effect
    (tmp_path / "gradebook.db").touch()  # e.g. left behind by a command that failed half-way
    empty = autograder(tmp_path, "report", ASSIGNMENT)
    assert empty.returncode == 1 and empty.stderr.strip().splitlines() == [
        f"autograder report: {tmp_path / 'gradebook.db'} is not an nbgrader gradebook (no grade tables)"]
    assert (tmp_path / "gradebook.db").stat().st_size == 0  # read, never written


# ---- text from students is shown as text --------------------------------------------------------------

# A folder name (so a student id) cannot hold "/"; a message quoted from student code can hold anything.
HOSTILE_ID = '<img src=x onerror=alert(1)>"onerror=alert(2) x=\''
HOSTILE_MESSAGE = '</td></tr></table><script>alert(3)</script><b "onerror="alert(4)">bold</b>'
# Before any script of the page: record calls to alert instead of showing them.
ALERT_TRAP = "<script>window.__alerts = []; window.alert = m => window.__alerts.push(String(m));</script>"
HOSTILE_SEEN = """({alerts: window.__alerts,
  rows: [...document.querySelectorAll("tr[data-student]")].map(tr => ({
    student: tr.dataset.student, cells: [...tr.cells].map(td => td.innerText)})),
  scripts: document.scripts.length, images: [...document.images].filter(i => !i.dataset.chart).length,
  bold: document.querySelectorAll("main b").length})"""


def test_student_ids_and_messages_are_shown_as_text(course, tmp_path):
    # A copy of the course, with one more unreadable submission whose id and message are HTML.
    copy = tmp_path / "course"
    shutil.copytree(course, copy)
    folder = copy / "autograded" / HOSTILE_ID / ASSIGNMENT
    folder.mkdir(parents=True)
    SubmissionResult(HOSTILE_ID, ASSIGNMENT, status="unreadable", message=HOSTILE_MESSAGE, seconds=0.2).save(folder)
    path, _ = write_report(copy, ASSIGNMENT, copy / "reports")
    page = path.read_text()
    assert "<script" not in page and "<img src=x" not in page and "<b " not in page
    assert html.escape(HOSTILE_MESSAGE) in page and f'data-student="{html.escape(HOSTILE_ID)}"' in page

    seen = seen_after_load(page.replace("<head>", "<head>" + ALERT_TRAP), HOSTILE_SEEN, tmp_path)
    assert seen["alerts"] == [] and seen["scripts"] == 2  # the trap and the probe: nothing of the student's
    assert seen["images"] == 0 and seen["bold"] == 0
    row = next(r for r in seen["rows"] if r["student"] == HOSTILE_ID)
    assert row["cells"][0] == HOSTILE_ID and row["cells"][3] == HOSTILE_MESSAGE  # what a person reads


# ---- accessibility, and the page at 1, 2 and 200 students ------------------------------------------------

def class_of(course: Path, size: int, where: Path) -> Path:
    """A copy of the course with `size` graded students: the first few of the module's class, or the whole
    class and synthetic students up to `size` (gradebook rows written by the engine's own gradebook writer and
    result files copied from cy's and dee's with another name: nothing is graded again)."""
    from autograder.grading.model import Outcome
    from autograder.grading.writer import GradebookWriter

    copy = where / f"class-of-{size}"
    shutil.copytree(course, copy)
    keep = ["ada", "cy"][:size]
    url = f"sqlite:///{copy}/gradebook.db"
    if size <= len(keep):
        with Gradebook(url) as gradebook:
            for student in [s.id for s in gradebook.students if s.id not in keep]:
                gradebook.remove_student(student)
        for folder in (copy / "autograded").iterdir():
            if folder.name not in keep:
                shutil.rmtree(folder)
        shutil.rmtree(copy / ".autograder-watch")
        return copy
    models = [SubmissionResult.load(course / "autograded" / s / ASSIGNMENT) for s in ("cy", "dee")]
    writer = GradebookWriter(url, "course")
    try:
        for n in range(size - len(SUBMISSIONS)):
            model = models[n % 2]
            student = f"student{n:03d}_with_a_long_name"
            result = SubmissionResult(student, ASSIGNMENT, cells=model.cells, seconds=0.5 + (n % 37) / 10)
            (copy / "autograded" / student / ASSIGNMENT).mkdir(parents=True)
            result.save(copy / "autograded" / student / ASSIGNMENT)
            writer.add(Outcome(result), "2026-11-25 09:00:00.000000 UTC", {})
        writer.commit()
    finally:
        writer.close()
    return copy


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM, CHROMIUM_FLAGS

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.mark.parametrize("size", [1, 2, 200])
def test_the_report_passes_axe_and_fits_the_page_at_1_2_and_200_students(course, browser, size, tmp_path):
    from tests.axe import serious_violations

    copy = class_of(course, size, tmp_path)
    path, data = write_report(copy, ASSIGNMENT, copy / "reports")
    assert len(data.submissions) == size
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    try:
        page.goto(path.as_uri())
        page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        assert serious_violations(page) == []
        # Nothing wider than the window: the every-student table scrolls in its own box.
        assert page.evaluate("document.documentElement.scrollWidth") <= 1000
        # Every chart has a text alternative; the histograms' numbers are in a table under them.
        charts = page.evaluate("""[...document.querySelectorAll('img[data-chart]')].map(i => ({
            name: i.dataset.chart, alt: i.alt, table: i.closest('figure').querySelectorAll('td').length}))""")
        assert {c["name"] for c in charts} >= {"scores", "pass_rates", "seconds"}
        assert all(len(c["alt"]) > 40 for c in charts)
        assert all(c["table"] > 0 for c in charts if c["name"] in ("scores", "seconds"))
        summary = page.locator("h2:text('Every student') + details > summary").inner_text()
        assert summary == (f"{size} submission" if size == 1 else f"{size} submissions")
        # The whole page as a test artefact; at 200 students (18 000 px opened) its first screen only.
        page.screenshot(path=str(tmp_path / f"report-{size}.png"), full_page=size < 200)
    finally:
        page.close()
