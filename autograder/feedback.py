"""nbgrader preprocessors for the feedback students receive."""

import copy
import html
from typing import Any

from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from nbformat.v4 import new_markdown_cell, new_output
from nbgrader.preprocessors import ClearHiddenTests, NbGraderPreprocessor
from traitlets import List

from autograder.notebook import is_test_cell
from autograder.verdict import TRUSTED_RUN_NOTE, is_verdict


class _FeedbackPreprocessor(NbGraderPreprocessor):
    # nbconvert's HTML exporter configures `display_data_priority` on every preprocessor it runs (through
    # NbConvertBase); nbgrader's base class declares it without `config=True`, so each feedback step
    # warned that it does not recognise the option. Declared configurable here, it is taken silently.
    display_data_priority = List(config=True, help="nbconvert's output priority (not used by this step)")


class ClearHiddenTestsQuietly(_FeedbackPreprocessor, ClearHiddenTests):
    """nbgrader's `ClearHiddenTests`, taking nbconvert's configuration without a warning."""


class GradersOnly(_FeedbackPreprocessor):
    """Show what the graders found, and nothing the submission's own code output.

    Whatever a submission's process prints, displays or raises may carry what it computed from the hidden
    inputs it was called with (in the sandbox it holds them all before its first cell runs; in a kernel, from
    the first hidden check on): a later cell printing them, or the self-check's error quoting them, would make
    the feedback an answer oracle (README, "What the feedback reveals"). So every code cell's outputs are left
    out, except in grade cells the graders' verdict (`autograder.verdict`), the cell's score, and, for an
    error, a fixed sentence saying which kind it was. The student sees their code's own output by running
    their notebook, where the visible self-checks print the same messages on the same public examples.
    """

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        for cell in nb.cells:
            if cell.get("cell_type") == "code":
                cell["outputs"] = _graders_outputs(cell.get("outputs", [])) if is_test_cell(cell) else []
        nb.cells.insert(0, new_markdown_cell(OWN_OUTPUT_NOTE))
        return nb, resources


OWN_OUTPUT_NOTE = ("This page shows what the graders found. What your own code printed, displayed or raised "
                   "is not shown here: run your notebook to see it.")
# A grade cell's error, by kind: the sentence stands in for the error's own text, which the code wrote.
STOPPED_KINDS = {
    "TimeoutError": "this cell ran past its time limit and was stopped; it scores 0",
    "CellTimeoutError": "this cell ran past its time limit and was stopped; it scores 0",
    "KeyboardInterrupt": "this cell ran past its time limit and was stopped; it scores 0",
    "SandboxStopped": "your notebook's process was stopped in this cell (a limit, or it exited); it scores 0",
    "NotRun": "not run: your notebook's time ran out, or its process ended, before this cell; it scores 0",
}
SELF_CHECK_FAILED = ("the visible self-check below the graders failed, so this cell scores 0: run this cell in "
                     "your notebook to read its message")
TRUSTED_RUN_FAILED = ("the visible self-check passed in your notebook's process, but failed when the grader ran "
                      "it again on your functions outside it (do they keep state between calls?): this cell "
                      "scores 0")


def _graders_outputs(outputs: list) -> list:
    kept = []
    for output in outputs:
        kind = output.get("output_type")
        if is_verdict(output):
            kept.append(output)
        elif kind == "execute_result" and _is_number(output.get("data", {}).get("text/plain")):
            kept.append(output)
        elif kind == "error":
            name = output.get("ename")
            if name in STOPPED_KINDS:
                sentence = STOPPED_KINDS[name]
            elif output.get("traceback", [None])[:1] == [TRUSTED_RUN_NOTE]:
                sentence = TRUSTED_RUN_FAILED
            else:
                sentence = SELF_CHECK_FAILED
            kept.append(new_output("error", ename=name if name in STOPPED_KINDS else "SelfCheckFailed",
                                   evalue=sentence, traceback=[sentence]))
    return kept


def _is_number(text: object) -> bool:
    try:
        float(str(text))
    except ValueError:
        return False
    return True


class ClearGradeCellTracebacks(_FeedbackPreprocessor):
    """Reduce a grade cell's error to its last line (`AssertionError: ...`).

    IPython prints the lines around the failing one, and in a grade cell those are the hidden tests that
    `ClearHiddenTests` removed from the source; the message itself is what the student needs.
    """

    def preprocess_cell(self, cell: NotebookNode, resources: ResourcesDict,
                        cell_index: int) -> tuple[NotebookNode, ResourcesDict]:
        if is_test_cell(cell):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename', 'Error')}: {explain(output)}"]
        return cell, resources


def explain(error: NotebookNode) -> str:
    """The error's message; a cell stopped at nbgrader's time limit carries none, so say so plainly."""
    if error.get("evalue"):
        return error["evalue"]
    if error.get("ename") in ("KeyboardInterrupt", "CellTimeoutError", "TimeoutError"):
        return "this cell ran past its time limit and was stopped (look for an endless loop); it scores 0"
    return "(no message)"


class ScoreSummary(_FeedbackPreprocessor):
    """Put the score of each exercise, named, at the top of the page (nbgrader's list calls every one
    "Test cell"), and wrap long output lines (the graders' explanations and hints are one line each)."""

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        rows = []
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if meta.get("grade") and "score" in meta:
                score, points = float(meta["score"] or 0), float(meta.get("points") or 0)
                name = html.escape(str(meta.get("grade_id", "")).removeprefix("test_"))
                lost = ' class="lost"' if score < points else ""
                rows.append(f'<tr{lost}><td><a href="#{html.escape(str(meta.get("grade_id", "")))}">{name}</a></td>'
                            f'<td class="points">{score:g} / {points:g}</td></tr>')
        penalty = float(resources.get("nbgrader", {}).get("late_penalty") or 0)
        if penalty > 0:
            rows.append(f'<tr class="lost"><td>late submission penalty</td><td class="points">-{penalty:g}</td></tr>')
        # Issue 28: the student's deadline and the credit applied (one place; `deadlines.student_line`).
        from autograder.deadlines.student_line import feedback_deadline_line

        deadline = feedback_deadline_line(resources.get("nbgrader", {}), self.config)
        if rows:
            table = ('<table class="autograder-scores"><thead><tr><th>exercise</th><th>points</th></tr></thead>'
                     f'<tbody>{"".join(rows)}</tbody></table>')
            line = f"\n\n{html.escape(deadline)}" if deadline else ""
            nb.cells.insert(0, new_markdown_cell(f"{_STYLE}\n\n**Your points, exercise by exercise**{line}\n\n"
                                                 f"{table}"))
        return nb, resources


_STYLE = """<style>
div.output_area pre, div.output_subarea pre, div.output_text pre { white-space: pre-wrap; overflow-wrap: anywhere; }
table.autograder-scores td, table.autograder-scores th { padding: 0.15em 1.5em 0.15em 0; border: none; }
table.autograder-scores td.points { text-align: right; font-variant-numeric: tabular-nums; }
table.autograder-scores tr.lost td { color: #b52a1d; }
</style>"""


GRADERS_ONLY = "autograder.feedback.GradersOnly"
NBGRADER_DEFAULT = ["nbgrader.preprocessors.GetGrades", "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor"]


def with_graders_only(config: Any) -> Any:
    """The course's configuration with `GradersOnly` among its feedback preprocessors (a copy; the course's
    own list if it has it): the watcher releases feedback after every attempt, and a course that forgot the
    line in nbgrader_config.py must not turn it into an answer oracle."""
    from traitlets.config import Config

    config = copy.deepcopy(Config(config)) if config is not None else Config()
    listed = list(config.GenerateFeedback.get("preprocessors", NBGRADER_DEFAULT))
    names = [item if isinstance(item, str) else f"{item.__module__}.{item.__name__}" for item in listed]
    if GRADERS_ONLY in names or GradersOnly in listed:
        return config
    later = [i for i, name in enumerate(names)
             if name.rsplit(".", 1)[-1] in ("ClearGradeCellTracebacks", "ScoreSummary")]
    listed.insert(later[0] if later else len(listed), GRADERS_ONLY)
    config.GenerateFeedback.preprocessors = listed
    return config
