"""What a student reads: the HTML of a real `nbgrader generate_feedback` run on a scratch course.

Per exercise the feedback shows the points, each check that ran, for one failure the problem in shapes
and words and the misconception's hint, and whether each other failure is the same problem. It never
shows the hidden test source, a value of the hidden checks, or anything the submission's own code printed
or raised (docs, "What the feedback reveals").
"""

import html
import itertools
import json
import re
import shutil
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest
from nbgrader.api import Gradebook

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.catalogue import Answer, write_submission, wrong_answers
from autograder.devtools.repo import ROOT
from autograder.feedback.preprocessors import unbroken_numbers
from autograder.grader_support.checks import CheckFailed
from autograder.grader_support.exercise import CaseResult, ExerciseResult
from autograder.grader_support.hints import HINTS
from tests.grading_course import make_course

ASSIGNMENT = "hidden_state_activation"
WRONG = {a.label: a for a in wrong_answers(ASSIGNMENT)}
# A formula_1 that prints and raises what it was called with, and a later cell that prints all of it.
LEAKY = [Answer("formula_1", "leaky", """SEEN = []


def formula_1(w_hh, w_hx, h_t_prev, x_t):
    SEEN.append(w_hh.tolist())
    print("LEAK-PRINTED", repr(w_hh.ravel()[0]))
    raise ValueError("LEAK-RAISED " + repr(w_hh.ravel()[0]))"""),
         Answer("formula_2", "leaky", """def formula_2(w_hh, w_hx, h_t_prev, x_t):
    total = w_hh @ h_t_prev + w_hx @ x_t
    return total


print("LEAK-LATER", SEEN)""")]
SUBMISSIONS: dict[str, list[Answer] | None] = {
    "solution": [],
    # concat_weights: a wrong axis that also fails the visible self-check; sigmoid: passes the self-check,
    # loses one check to a named mistake.
    "wrong": [WRONG["concat_weights/axis-0"], WRONG["sigmoid/in-place"]],
    "blank": None,
    "leaky": LEAKY,
    "edited": [],  # the solution, its markdown cells edited and one added (HOSTILE_MARKDOWN)
}
# The hidden half of every grade cell, and how the graders are reached: none of it may reach a student.
HIDDEN_MARKERS = ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS", "from autograder", "autograder.nbgrader_glue.kernel",
                  "_autograder_score", f'grade("{ASSIGNMENT}"', "import pytest", "def test_")


DUE, SUBMITTED = datetime(2021, 1, 1), "2021-06-01 12:00:00.000000 UTC"  # every page here is after the due date
# A written answer is the student's own text, hostile: markup in it must reach the page as text.
HOSTILE_ANSWER = ('Because <img src=x onerror="document.title=1"> the blocks <script>document.title=2</script> '
                  "line up & $W_h < 1$ [link](javascript:alert(3)) HOSTILE-END")
# Markdown cells are the student's too: HTML in any of them, edited or added, must not run nor take the page over.
HOSTILE_MARKDOWN = """<script>document.title = "pwned-script"</script>
<img src=x onerror="document.title = 'pwned-img'"> <iframe src="https://evil.example/"></iframe>
<form action="https://evil.example/"><input name=q><button>Go</button></form>
<style>body { display: none }</style>
<div style="position: fixed; inset: 0; background: white">COVER</div>
<svg onload="document.title = 'pwned-svg'"><circle r=5 /></svg>
<a href="javascript:document.title = 'pwned-a'">click</a> [md link](javascript:alert(1))
<object data="x"></object><embed src="x"><base href="https://evil.example/">
<meta http-equiv="refresh" content="0; url=https://evil.example/"><link rel=stylesheet href="https://evil.example/x.css">
EDITED-MARKER

<math><mtext><table><mglyph><style><img src=x onerror="document.title = 'pwned-mxss'">"""
WRITTEN = {"leaky": HOSTILE_ANSWER, "solution": "The first n_h columns of W_h meet h, the last n_x meet x."}


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """The scratch course, every submission graded by nbgrader autograde long after the due date: what the
    pages show is what they show once the due date has passed (the same as before it: see the docs)."""
    course = make_course(tmp_path_factory.mktemp("feedback-course"))
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        gb.update_or_create_assignment(ASSIGNMENT, duedate=DUE)
    release = course / "release" / ASSIGNMENT
    for student, answers in SUBMISSIONS.items():
        folder = course / "submitted" / student / ASSIGNMENT
        path = write_submission(ASSIGNMENT, folder, answers or [], blank=answers is None, release=release)
        if student in WRITTEN:
            notebook = json.loads(path.read_text())
            written = next(c for c in notebook["cells"]
                           if c["metadata"].get("nbgrader", {}).get("grade_id") == "explain_formulas")
            written["source"] = WRITTEN[student]
            path.write_text(json.dumps(notebook))
        if student == "edited":  # two narrative cells edited, one cell added
            notebook = json.loads(path.read_text())
            narrative = [c for c in notebook["cells"] if c["cell_type"] == "markdown" and "nbgrader" not in
                         c["metadata"]]
            narrative[1]["source"] = "".join(narrative[1]["source"]) + "\n\n" + HOSTILE_MARKDOWN
            narrative[-1]["source"] = "".join(narrative[-1]["source"]) + "\n<style>main { visibility: hidden }</style>"
            notebook["cells"].insert(0, {"cell_type": "markdown", "id": "added", "metadata": {},
                                         "source": HOSTILE_MARKDOWN})
            path.write_text(json.dumps(notebook))
        shutil.copy(release / "selfcheck.py", folder)
        (folder / "timestamp.txt").write_text(SUBMITTED)
    nbgrader(course, "autograde", ASSIGNMENT)
    give_rubric_items(course)
    nbgrader(course, "generate_feedback", ASSIGNMENT)
    return course


RUBRIC_COMMENT = 'Names both blocks <b>and</b> the order & why: see "W_hh".'  # an instructor's words, escaped too


def give_rubric_items(course: Path) -> None:
    """The solution student's written answer graded by question: two rubric items, one with a comment."""
    from autograder.by_question.rubric import Question, QuestionGrading
    from autograder.deadlines.rules import LateRules
    from autograder.grades.outbox import SessionSql
    from autograder.grades.settle import GradeRules
    from autograder.migrations import upgrade

    url = f"sqlite:///{course / 'gradebook.db'}"
    upgrade(url)
    with Gradebook(url) as gb:
        grading = QuestionGrading(SessionSql(gb.db), Question(ASSIGNMENT, ASSIGNMENT, "explain_formulas"),
                                  GradeRules(LateRules()), "ta1")
        for points, comment in ((2, RUBRIC_COMMENT), (-0.5, "A little long.")):
            grading.apply(grading.add_item(points, comment).id, {"solution": grading.answers()["solution"].version})
        gb.db.commit()


@pytest.fixture(scope="module")
def feedback(course) -> dict[str, str]:
    """student -> the feedback HTML nbgrader generated for them."""
    return {student: (course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
            for student in SUBMISSIONS}


def test_the_pages_are_those_of_submissions_past_their_due_date(course):
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        late = {s: gb.find_submission(ASSIGNMENT, s).total_seconds_late for s in SUBMISSIONS}
    assert all(seconds > 0 for seconds in late.values()), late


# In the browser, what a student sees: the one table of points, the headings, the math, the lines' wrapping.
SEEN = """(() => {
  const tables = [...document.querySelectorAll("table")];
  const table = document.querySelector("table.autograder-scores");
  const rows = table ? [...table.querySelectorAll("tbody tr")].map(r => [...r.cells].map(c => c.innerText.trim())) : [];
  const outputs = [...document.querySelectorAll("div.output_area pre")];
  const headings = [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")];
  return {
    tables: tables.length,
    headers: table ? [...table.querySelectorAll("thead th")].map(th => th.getAttribute("scope")) : [],
    rows: rows,
    tableTop: table ? table.getBoundingClientRect().top : null,
    firstCodeTop: document.querySelector("div.input_area").getBoundingClientRect().top,
    levels: headings.map(h => Number(h.tagName[1])),
    outcomes: Object.fromEntries([...document.querySelectorAll("section.grade_cell")].map(
      s => [s.getAttribute("aria-labelledby"), s.querySelector(".outcome").innerText])),
    text: document.body.innerText,
    math: document.querySelectorAll("math").length,
    drawnMath: [...document.querySelectorAll("math")].filter(m => m.getBoundingClientRect().width > 0).length,
    scripts: document.querySelectorAll("script").length,
    overflowing: outputs.filter(p => p.scrollWidth > p.clientWidth + 1).map(p => p.innerText.slice(0, 80)),
    longest: Math.max(...outputs.map(p => Math.max(...p.innerText.split("\\n").map(l => l.length)))),
    numbers: document.querySelectorAll("pre span.unbroken").length,
    brokenNumbers: [...document.querySelectorAll("pre span.unbroken")].filter(n => n.getClientRects().length > 1)
      .map(n => n.innerText),
  };
})()"""
SHOTS = Path("/tmp")  # the screenshots are kept there, to be looked at (docs, "Tests")


def test_the_page_reads_offline_one_table_real_scores_math_and_wrapped_lines(feedback, tmp_path):
    """The page of a wrong answer opened in Chromium with every request but the page's own refused, at a
    narrow width: one table of points, named, above the notebook; each exercise headed by the score the cell
    got and why; the formulas drawn as MathML (no `$` left, no script); headings in order; no output line
    off the page and no number broken across lines; and no serious or critical accessibility violation
    (axe-core). A full-page screenshot is kept as /tmp/page-feedback-wrong.png."""
    from playwright.sync_api import sync_playwright

    from tests.axe import serious_violations
    from tests.browser import CHROMIUM, CHROMIUM_FLAGS, offline

    page_file = tmp_path / "wrong.html"
    page_file.write_text(feedback["wrong"])
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        try:
            context = browser.new_context(viewport={"width": 900, "height": 1200})
            refused = offline(context)
            page = context.new_page()
            page.goto(page_file.as_uri())
            page.screenshot(path=str(SHOTS / "page-feedback-wrong.png"), full_page=True)  # the page as made
            # A long line of values, as a counterexample shows them, marked as the page marks a verdict's.
            values = "expected " + repr(np.linspace(-1, 1, 40).round(4).tolist()) * 2
            page.evaluate("html => document.querySelector('pre.verdict').insertAdjacentHTML('beforeend', html)",
                          "\n" + unbroken_numbers(values))
            seen = page.evaluate(SEEN)
            violations = serious_violations(page)
        finally:
            browser.close()
    assert refused == [] and seen["scripts"] == 0  # nothing to fetch, nothing to run
    assert seen["tables"] == 1 and seen["headers"] == ["col", "col", "col"]
    assert [row[:2] for row in seen["rows"]] == [
        ["concat_weights", "0 / 6"], ["concat_state_input", "6 / 6"], ["formula_1", "6 / 6"], ["formula_2", "6 / 6"],
        ["explain_formulas", "0 / 2"], ["sigmoid", "6 / 7"], ["hidden_state", "15 / 15"]]
    assert seen["rows"][0][2] == "self-check failed" and seen["rows"][5][2] == "lost points"  # not colour alone
    assert seen["rows"][4][2] == "not answered"  # the written answer left as released: nbgrader's 0, said why
    assert seen["tableTop"] < seen["firstCodeTop"]
    assert "Test cell" not in seen["text"] and "Comments:" not in seen["text"]  # nbgrader's lists are gone
    # Each exercise headed by the cell's own score, and why.
    assert seen["outcomes"]["test_concat_weights"] == ("concat_weights: 0 / 6 points: the graders gave 1, the "
                                                       "self-check failed, so the cell scores 0, as nbgrader rules")
    assert seen["outcomes"]["test_sigmoid"] == "sigmoid: 6 / 7 points: the graders gave 6 of 7; the self-check passed"
    assert seen["outcomes"]["test_formula_1"].startswith("formula_1: 6 / 6 points: judged on its own, with the "
                                                         "reference's concat_weights")
    assert "keeps these points" not in seen["text"] and seen["text"].count("The self-check passed.") == 5
    # The math, drawn by the browser.
    assert "$" not in seen["text"] and "\\big" not in seen["text"] and "W_{hh}" not in seen["text"]
    assert seen["math"] > 20 and seen["drawnMath"] == seen["math"]
    levels = seen["levels"]
    assert levels[0] == 1 and levels.count(1) == 1
    assert all(b <= a + 1 for a, b in itertools.pairwise(levels)), levels
    assert seen["longest"] > 100 and seen["overflowing"] == []  # long lines there are, and they wrap ...
    assert seen["numbers"] > 80 and seen["brokenNumbers"] == []  # ... between numbers, never inside one
    assert violations == [], violations


def as_text(fragment: str) -> str:
    fragment = re.sub(r"<(style|script)\b.*?</\1>", "", fragment, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def grade_cell(page: str, grade_id: str) -> str:
    """The text of one grade cell as shown: its heading (score and why), the visible source, the outputs."""
    start = page.rindex("<section", 0, page.index(f'id="{grade_id}"'))
    end = page.index("</section>", start)
    return as_text(page[start:end])


def test_a_wrong_answer_shows_points_checks_shapes_and_the_hint(feedback):
    cell = grade_cell(feedback["wrong"], "test_concat_weights")
    assert "concat_weights: 0 / 6 points: the graders gave 1, the self-check failed" in cell
    assert "[FAIL] value[" in cell and "[pass] inputs_unmodified" in cell  # what was checked, by name
    # The check that names a known mistake is the one explained, in shapes; the others say how they failed.
    assert "concat_weights(w_hh (4, 4), w_hx (4, 4)): wrong shape: expected (4, 8), got (8, 4)" in cell
    assert f"hint [wrong_axis]: {HINTS['wrong_axis']}" in cell  # the hint in words, not just its id
    assert "(the same problem as the one explained)" in cell and "(another problem:" in cell
    assert "float64" not in cell and "expected shape" not in cell  # no picture of values
    # Beside it, the smallest public input that shows the mistake: expected and received side by side.
    assert ("smallest input found where yours differs (a public one, not a graded input):\n"
            "           concat_weights(w_hh=[[1]], w_hx=[[2]])\n"
            "           expected [[1, 2]]   yours [[1], [2]] (what [wrong_axis] gives)") in cell


def test_a_partly_right_answer_shows_its_partial_score_and_the_one_failed_check(feedback):
    cell = grade_cell(feedback["wrong"], "test_sigmoid")
    assert "sigmoid: 6 / 7 points: the graders gave 6 of 7; the self-check passed" in cell
    assert cell.count("[FAIL]") == 1 and "[FAIL] input_unmodified" in cell
    assert "changed its argument(s)" in cell
    assert f"hint [modifies_input]: {HINTS['modifies_input']}" in cell
    assert "smallest input found" not in cell  # its values are right: nothing to show


def test_a_right_answer_passes_every_check(feedback):
    cell = grade_cell(feedback["solution"], "test_hidden_state")
    assert "hidden_state: 15 / 15 points: every check passed, and so did the self-check" in cell
    assert "[FAIL]" not in cell and "[pass]" in cell


def test_a_blank_notebook_says_what_to_do(feedback):
    cell = grade_cell(feedback["blank"], "test_concat_weights")
    assert "concat_weights: 0 / 6 points: not answered yet" in cell
    assert "not implemented yet" in cell and "No response" not in feedback["blank"]


def test_feedback_never_shows_hidden_tests_or_grader_source(feedback):
    # Lines the notebook itself holds (signatures, the reference answer a student may also write) are
    # not secrets; every other substantial line of the graders is.
    notebook = (ROOT / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text()
    grader_lines = {
        line.strip()
        for path in (ROOT / "autograder" / "graders" / ASSIGNMENT).glob("*.py")
        for line in path.read_text().splitlines()
        if len(line.strip()) > 30 and not line.strip().startswith(("#", '"""')) and line.strip() not in notebook
    }
    assert len(grader_lines) > 50  # the check has something to look for
    for student, page in feedback.items():
        text = as_text(page)
        for marker in HIDDEN_MARKERS:
            assert marker not in page and marker not in text, f"{student}'s feedback shows {marker!r}"
        leaked = [line for line in grader_lines if line in text]
        assert not leaked, f"{student}'s feedback quotes the graders: {leaked[:3]}"


def test_one_failure_an_exercise_is_explained_and_the_others_said_alike_or_not():
    def failed(name: str, message: str, hint: str | None) -> CaseResult:
        return CaseResult(name, 1.0, 0.0, str(CheckFailed(message, hint)), hint)

    result = ExerciseResult("sigmoid", [
        failed("a", "sigmoid raised ValueError", None),
        failed("b", "sigmoid(z (4, 3)): wrong values (the shape (4, 3) is right)", "sigmoid_sign"),
        failed("c", "sigmoid(z (5, 1)): wrong values (the shape (5, 1) is right)", "sigmoid_sign"),
        failed("d", "sigmoid(z (2, 2)): the result contains nan", "sigmoid_overflow"),
        CaseResult("e", 1.0, 1.0),
    ])
    text = result.feedback()
    lines = text.splitlines()
    assert lines[0] == "sigmoid: 1 / 5 points" and "[pass] e  (1/1)" in text
    # The first failure that names a known mistake is the one explained (a crash says less than a hint) ...
    assert text.count(HINTS["sigmoid_sign"]) == 1 and HINTS["sigmoid_overflow"] not in text
    assert "sigmoid(z (4, 3)): wrong values" in text.split("[FAIL] b")[1].split("[FAIL] c")[0]
    # ... on other shapes the same mistake is the same problem; any other failure is only said to be another.
    assert "(the same problem as the one explained)" in text.split("[FAIL] c")[1].split("[FAIL] d")[0]
    assert "(another problem" in text.split("[FAIL] a")[1].split("[FAIL] b")[0]
    assert "(another problem" in text.split("[FAIL] d")[1] and "nan" not in text and "ValueError" not in text


def test_the_page_shows_nothing_the_code_printed_or_raised_nor_a_hidden_value(feedback):
    """A formula_1 that prints and raises what it is called with, and a later cell that prints all it saw:
    the page quotes the student's static line and type, never the printed or raised text, nor any value of
    the hidden checks' inputs."""
    from autograder.devtools.oracle_bound import graded_calls

    page = as_text(feedback["leaky"])
    for marker in ("LEAK-PRINTED ", "LEAK-RAISED -", "LEAK-RAISED 0", "LEAK-RAISED 1", "LEAK-LATER ["):
        assert marker not in page
    hidden = {repr(float(v)) for _, args, _ in graded_calls(ASSIGNMENT, "formula_1") for a in args
              for v in a.ravel() if float(v) != int(v)}
    assert len(hidden) > 100 and not [v for v in hidden if v in page]
    cell = grade_cell(feedback["leaky"], "test_formula_1")
    assert re.search(r'formula_1 raised ValueError, at line 7 of `formula_1` \(cell \d+\): '
                     r'raise ValueError\("LEAK-RAISED " \+ repr\(w_hh\.ravel\(\)\[0\]\)\)', cell), cell
    assert "What your own code printed, displayed or raised is not shown here" in page


def test_a_written_answer_reaches_the_page_as_text_never_markup(feedback):
    """The leaky student's written answer holds an image with a handler, a script and a javascript: link: the
    page shows the words, escaped, and none of it as an element; the formula in it is still drawn."""
    page = feedback["leaky"]
    answer = page[page.index("Because"):page.index("HOSTILE-END")]
    assert "<img" not in answer and "<script" not in answer and 'href="javascript' not in answer
    assert "&lt;img src=x onerror=" in answer and "&lt;script&gt;document.title=2" in answer
    assert "<math" in answer and "&amp;" in answer
    assert "onerror" not in page.replace("&lt;img src=x onerror=", "")
    assert "[link](javascript:alert(3))" in as_text(answer)


LIVE_TAGS = {"script", "iframe", "frame", "form", "input", "button", "object", "embed", "base", "meta", "link",
             "style", "svg"}


def test_markdown_a_student_edited_or_added_is_never_live_html(feedback):
    """The edited student's page, parsed: in its body no element that runs, loads, submits or restyles (script,
    frame, form, object, style, ...), no handler attribute, no `javascript:` URL, no style attribute; the words
    are still there. Their released narrative (the cells they did not touch) reads as the solution's page does:
    the same headings, the formulas drawn as MathML."""
    from bs4 import BeautifulSoup

    page = BeautifulSoup(feedback["edited"], "html.parser")
    body = page.body
    assert body is not None
    assert sorted({tag.name for tag in body.find_all(True)} & LIVE_TAGS) == []
    attributes = [(tag.name, name, str(value)) for tag in page.find_all(True) for name, value in tag.attrs.items()]
    assert [a for a in attributes if a[1].lower().startswith("on")] == []
    assert [a for a in attributes if "javascript:" in a[2].replace(" ", "").lower()] == []
    assert [a for a in attributes if a[1] == "style" and a[0] != "html"] == [], "no style on the page's elements"
    assert [a for a in attributes if a[1] in ("src", "href", "action", "data") and "evil.example" in a[2]] == []
    text = body.get_text()
    assert text.count("EDITED-MARKER") == 2 and "COVER" in text and "[md link](javascript:alert(1))" in text
    # The narrative they did not touch: as on the solution's page.
    solution = BeautifulSoup(feedback["solution"], "html.parser")

    def headings(soup) -> list[str]:
        return [h.get_text(" ", strip=True) for h in soup.find_all(["h1", "h2", "h3", "h4", "h5", "h6"])]

    assert headings(page)[1:] == headings(solution)[1:] and len(headings(page)) > 5  # (the title has the score)
    drawn = len(solution.find_all("math"))
    assert drawn > 20 and len(page.find_all("math")) >= drawn
    assert "$" not in body.get_text().replace("[md link]", "")


def test_a_written_answer_no_one_has_graded_is_to_be_graded_not_a_zero(feedback):
    """The leaky student's written answer waits for a person (nbgrader's needs_manual_grade, no score): its row
    says so with no number, the total counts its points as still to come; an unanswered one is nbgrader's 0."""
    table = as_text(feedback["leaky"][:feedback["leaky"].index("</table>")])
    assert "explain_formulas\u2013 / 2to be graded by your instructor" in table
    assert "so far: 2 points still to be graded by your instructor" in table
    assert re.search(r"Total[\d.]+ / 48", table) and "/ 46" not in table
    graded = feedback["solution"][:feedback["solution"].index("</table>")]
    assert "explain_formulas1.5 / 2scored by your instructor+2 " + RUBRIC_COMMENT + "-0.5 A little long." in \
        as_text(graded)
    assert "&lt;b&gt;and&lt;/b&gt;" in graded  # the comment is text, whoever wrote it
    blank = as_text(feedback["blank"][:feedback["blank"].index("</table>")])
    assert "explain_formulas0 / 2not answered" in blank and "to be graded" not in blank

def test_grade_cell_errors_keep_only_their_message_and_timeouts_say_so():
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    from autograder.feedback.preprocessors import ClearGradeCellTracebacks

    def grade_cell(ename: str, evalue: str):
        cell = new_code_cell("### BEGIN HIDDEN TESTS\nsecret()\n### END HIDDEN TESTS")
        cell.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": "t", "points": 1}
        cell.outputs = [new_output("error", ename=ename, evalue=evalue,
                                   traceback=["Cell In[4], line 2", "----> 2 secret()", f"{ename}: {evalue}"])]
        return cell

    notebook = new_notebook(cells=[grade_cell("AssertionError", "wrong shape"), grade_cell("CellTimeoutError", "")])
    cleaned, _ = ClearGradeCellTracebacks().preprocess(notebook, {})
    first, second = (cell.outputs[0]["traceback"] for cell in cleaned.cells)
    assert first == ["AssertionError: wrong shape"]
    assert len(second) == 1 and "time limit" in second[0] and "secret" not in second[0]
