"""nbgrader preprocessors for the feedback students receive."""

from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
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
