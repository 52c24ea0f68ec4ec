"""The parts of the feedback page made in Python: formulas as MathML, each exercise's real score and why,
and verdicts whose numbers never break across lines (autograder/feedback_template draws them)."""

import json
from types import SimpleNamespace

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from autograder.devtools.repo import ROOT
from autograder.feedback.exercise_outcome import outcome, set_by_instructor
from autograder.feedback.math_markup import with_mathml
from autograder.feedback.preprocessors import (
    STOPPED_KINDS,
    TRUSTED_RUN_FAILED,
    MathAsMathML,
    ScoreSummary,
    heading_level,
    unbroken_numbers,
)
from autograder.grader_support.verdict import verdict_output

NOTEBOOKS = sorted((ROOT / "source").glob("*/*.ipynb"))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_every_formula_of_the_course_notebooks_becomes_mathml(notebook):
    cells = [cell for cell in json.loads(notebook.read_text())["cells"] if cell["cell_type"] == "markdown"]
    sources = ["".join(cell["source"]) for cell in cells]
    formulas = sum(source.count("$") for source in sources)
    converted = [with_mathml(source) for source in sources]
    assert formulas > 20  # there is math to render
    assert [done.failed for done in converted if done.failed] == []
    assert not [done.text for done in converted if "$" in done.text]  # none left as raw LaTeX
    assert sum(done.text.count("<math ") for done in converted) > 10
    assert sum(done.text.count('display="block"') for done in converted) > 2


def test_math_in_code_stays_as_typed_and_a_formula_that_does_not_parse_is_left_and_named():
    done = with_mathml("cost `$x$` and\n```\nprint('$y$')\n```\nbut $a_1$ and $$\\frac{1}{$$ stay")
    assert "`$x$`" in done.text and "print('$y$')" in done.text
    assert "<msub><mi>a</mi><mn>1</mn></msub>" in done.text
    assert done.failed == ("$$\\frac{1}{$$",) and "$$\\frac{1}{$$" in done.text


def test_the_notebooks_headings_go_one_level_down_below_the_pages_title():
    notebook = new_notebook(cells=[new_markdown_cell("# Title\ntext with $x$\n```\n# a comment\n```\n### Exercise")])
    done, _ = MathAsMathML().preprocess(notebook, {})
    assert done.cells[0].source.startswith("## Title\n") and "\n#### Exercise" in done.cells[0].source
    assert "\n# a comment\n" in done.cells[0].source and "<math" in done.cells[0].source
    assert heading_level(done.cells[0].source) == 4


def grade_cell(outputs: list, score: float, points: float = 6, grade_id: str = "test_concat_weights"):
    cell = new_code_cell("selfcheck.check_concat_weights(concat_weights)", outputs=outputs)
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": grade_id, "points": points,
                                 "score": score}
    return cell


def self_check_failed(sentence: str = "the visible self-check failed") -> dict:
    return new_output("error", ename="SelfCheckFailed", evalue=sentence, traceback=[sentence])


VERDICT = "concat_weights: {} / 6 points\n  (the cell keeps these points if the self-check below passes, and " \
          "scores 0 if it fails)\n  [FAIL] value[n_h=3]  (0/1)\n         expected (4, 8), got [-0.9303, 12.5]\n"


@pytest.mark.parametrize(("outputs", "score", "status", "why"), [
    ([verdict_output(VERDICT.format(1)), self_check_failed()], 0, "self-check failed",
     "the graders gave 1, the self-check failed, so the cell scores 0, as nbgrader rules"),
    ([verdict_output(VERDICT.format(0)), self_check_failed()], 0, "self-check failed",
     "the graders gave 0, and the self-check failed too"),
    ([self_check_failed()], 0, "self-check failed", "the self-check failed, so the cell scores 0, as nbgrader rules"),
    ([verdict_output("concat_weights is not implemented yet (it raised NotImplementedError)\n"
                     "concat_weights: 0 / 6 points"), self_check_failed()], 0, "not answered",
     "not answered yet: the function still raises NotImplementedError"),
    ([verdict_output(VERDICT.format(5)), new_output("execute_result", data={"text/plain": "5.0"})], 5,
     "lost points", "the graders gave 5 of 6; the self-check passed"),
    ([verdict_output(VERDICT.format(6)), new_output("execute_result", data={"text/plain": "6.0"})], 6,
     "full marks", "every check passed, and so did the self-check"),
    ([verdict_output(VERDICT.format(2)), self_check_failed(TRUSTED_RUN_FAILED)], 0, "self-check failed",
     "the graders gave 2, but the self-check failed when the grader ran it again outside your notebook's "
     "process, so the cell scores 0"),
    ([new_output("error", ename="NotRun", evalue=STOPPED_KINDS["NotRun"], traceback=[])], 0, "stopped",
     STOPPED_KINDS["NotRun"]),
    ([verdict_output("formula_1 was judged on its own: concat_weights lost points above, so ...\n"
                     "formula_1: 0 / 6 points"), new_output("execute_result", data={"text/plain": "6.0"})], 6,
     "full marks", "judged on its own, with the reference's concat_weights (which lost points above), as the note "
                   "below says; the self-check passed"),
])
def test_each_exercise_is_headed_by_the_cells_real_score_and_why(outputs, score, status, why):
    found = outcome(grade_cell(outputs, score), STOPPED_KINDS, TRUSTED_RUN_FAILED)
    assert (found.score, found.status, found.why) == (score, status, why)
    assert found.heading == f"concat_weights: {score:g} / 6 points"


def test_a_score_the_instructor_set_says_so_with_their_reason_beside_the_graders_result():
    graded = outcome(grade_cell([verdict_output(VERDICT.format(1)), self_check_failed()], 0), STOPPED_KINDS,
                     TRUSTED_RUN_FAILED)
    given = SimpleNamespace(score=4.0, graders=0.0, reason="  dispute settled  ")
    found = set_by_instructor(graded, given)
    assert (found.score, found.status, found.heading) == (4.0, "set by your instructor", "concat_weights: 4 / 6 points")
    assert found.why == ("your instructor set this score (their reason: \u201cdispute settled\u201d); without it the "
                         "cell would score 0 of 6: the graders gave 1, the self-check failed, so the cell scores 0, "
                         "as nbgrader rules")
    unexplained = set_by_instructor(graded, SimpleNamespace(score=6.0, graders=0.0, reason=""))
    assert unexplained.why.startswith("your instructor set this score; without it") and unexplained.full


def test_the_summary_drops_the_verdicts_own_count_and_keeps_its_numbers_whole():
    cell = grade_cell([verdict_output(VERDICT.format(1)), self_check_failed()], 0)
    cell.outputs[0]["data"]["text/html"] = "<script>forged</script>"  # a kernel's submission could publish it
    notebook = new_notebook(cells=[cell])
    done, resources = ScoreSummary().preprocess(notebook, {"nbgrader": {"late_penalty": 0}})
    (summary,) = resources["autograder"].outcomes
    assert summary.status == "self-check failed" and resources["autograder"].of("test_concat_weights") == summary
    shown = done.cells[0].outputs[0]["data"]
    assert set(shown) == {"text/plain", "text/html"} and "forged" not in shown["text/html"]
    assert "points" not in shown["text/plain"].splitlines()[0] and "keeps these points" not in shown["text/plain"]
    assert '<span class="unbroken">[-0.9303,</span>' in shown["text/html"]


def test_numbers_are_kept_whole_and_the_text_escaped():
    assert unbroken_numbers("got [-0.9303, <b>]") == 'got <span class="unbroken">[-0.9303,</span> &lt;b&gt;]'
    assert unbroken_numbers("[[-1e-05 -inf]] value[n_h=3 hint [axis_0]") == \
        '<span class="unbroken">[[-1e-05</span> <span class="unbroken">-inf]]</span> value[n_h=3 hint [axis_0]'


def test_a_written_answer_scored_by_hand_is_in_the_table_without_a_heading():
    written = new_markdown_cell("My answer: the state carries the past.")
    written.metadata["nbgrader"] = {"grade": True, "solution": True, "grade_id": "explain_state", "points": 2,
                                    "score": 1.5}
    _, resources = ScoreSummary().preprocess(new_notebook(cells=[written]), {})
    (found,) = resources["autograder"].outcomes
    assert (found.exercise, found.score, found.points, found.linked) == ("explain_state", 1.5, 2, False)
    assert found.status == "scored by your instructor"
