"""nbgrader preprocessors for the feedback students receive."""

import html

from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from nbformat.v4 import new_markdown_cell
from nbgrader.preprocessors import ClearHiddenTests, NbGraderPreprocessor
from traitlets import List

from autograder.notebook import is_test_cell


class _FeedbackPreprocessor(NbGraderPreprocessor):
    # nbconvert's HTML exporter configures `display_data_priority` on every preprocessor it runs (through
    # NbConvertBase); nbgrader's base class declares it without `config=True`, so each feedback step
    # warned that it does not recognise the option. Declared configurable here, it is taken silently.
    display_data_priority = List(config=True, help="nbconvert's output priority (not used by this step)")


class ClearHiddenTestsQuietly(_FeedbackPreprocessor, ClearHiddenTests):
    """nbgrader's `ClearHiddenTests`, taking nbconvert's configuration without a warning."""


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
        if rows:
            table = ('<table class="autograder-scores"><thead><tr><th>exercise</th><th>points</th></tr></thead>'
                     f'<tbody>{"".join(rows)}</tbody></table>')
            nb.cells.insert(0, new_markdown_cell(f"{_STYLE}\n\n**Your points, exercise by exercise**\n\n{table}"))
        return nb, resources


_STYLE = """<style>
div.output_area pre, div.output_subarea pre, div.output_text pre { white-space: pre-wrap; overflow-wrap: anywhere; }
table.autograder-scores td, table.autograder-scores th { padding: 0.15em 1.5em 0.15em 0; border: none; }
table.autograder-scores td.points { text-align: right; font-variant-numeric: tabular-nums; }
table.autograder-scores tr.lost td { color: #b52a1d; }
</style>"""
