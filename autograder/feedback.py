"""nbgrader preprocessors for the feedback students receive."""

from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.notebook import is_test_cell


class ClearGradeCellTracebacks(NbGraderPreprocessor):
    """Reduce a grade cell's error to its last line (`AssertionError: ...`).

    IPython prints the lines around the failing one, and in a grade cell those are the hidden tests that
    `ClearHiddenTests` removed from the source; the message itself is what the student needs.
    """

    def preprocess_cell(self, cell: NotebookNode, resources: ResourcesDict,
                        cell_index: int) -> tuple[NotebookNode, ResourcesDict]:
        if is_test_cell(cell):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources
