"""The formgrader's Autograde button, through the sandboxed engine.

nbgrader's formgrader (and anything else that grades through `NbGraderAPI`) runs nbgrader's `Autograde`
converter inside the Jupyter server, where the student's code would run as the instructor, unsandboxed.
The framework's defaults configure that converter's steps for the API alone (traitlets' parent-scoped config,
`c.NbGraderAPI.Autograde...` in `autograder/course/defaults.py`, every course's), so `nbgrader autograde` on the
command line stays nbgrader's own:

- `SandboxedExecute` takes the place of nbgrader's `Execute`: the sanitised notebook is graded by
  `autograder.grading.submission.grade_submission`, its cells get the outputs the engine produced (so nbgrader's
  `SaveAutoGrades` reads the same scores `autograder grade` records), and `autograder-result.json` is
  written beside the notebook, as `autograder grade` writes it.
- `QuietOverwriteCells` is nbgrader's `OverwriteCells` without the warning that a grade cell's checksum
  changed when the change is the expected one: its hidden tests, stripped from the release, put back.
"""

from pathlib import Path
from typing import Any

from nbconvert.exporters.exporter import ResourcesDict
from nbformat import from_dict
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor, OverwriteCells

from autograder.nbgrader_glue.notebook import HIDDEN_BEGIN


class SandboxedExecute(NbGraderPreprocessor):
    """nbgrader's Execute step, run by the sandboxed engine (see the module's docstring)."""

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        from autograder.course.settings import read_course
        from autograder.grading.instructor import instructor_files
        from autograder.grading.model import Job
        from autograder.grading.prepare import notebook_job
        from autograder.grading.startup import hidden_paths
        from autograder.grading.submission import grade_submission
        from autograder.sandbox.zygote_handle import Zygote

        info = resources["nbgrader"]
        student, assignment, name = info["student"], info["assignment"], info["notebook"]
        settings = read_course(Path.cwd(), rooted=True)
        sources = _sources(info["db_url"], assignment)
        source = next(s for s in sources if s.name == name)
        modules, preload = instructor_files(settings, sources, assignment)
        job = Job(student, assignment, [notebook_job(name, nb, source)], modules, settings.limits,
                  settings.ignore_pattern, preload)
        hide = hidden_paths(settings.root, settings.graders)
        with Zygote(settings.sandbox_level, hide) as zygote:
            outcome = grade_submission(job, zygote)
        count = 0
        for cell, outputs in zip(nb.cells, outcome.outputs.get(name, []), strict=False):
            if cell.cell_type == "code":
                count += 1
                cell.outputs, cell.execution_count = [from_dict(output) for output in outputs], count
        folder = settings.path("autograded", student, assignment)
        folder.mkdir(parents=True, exist_ok=True)
        outcome.result.save(folder)
        return nb, resources


class QuietOverwriteCells(OverwriteCells):
    """nbgrader's OverwriteCells; a grade cell whose stored source holds hidden tests differs from the released
    one by design, and nbgrader puts the hidden tests back without a warning for each student."""

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        self._hidden = None  # read again for each notebook
        return super().preprocess(nb, resources)

    def report_change(self, name: str, attr: str, old: Any, new: Any) -> None:
        if attr == "checksum" and name in self._hidden_test_cells():
            return
        super().report_change(name, attr, old, new)

    def _hidden_test_cells(self) -> set[str]:
        cells = getattr(self, "_hidden", None)
        if cells is None:
            notebook = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
            cells = self._hidden = {cell.name for cell in notebook.source_cells if HIDDEN_BEGIN in cell.source}
        return cells


def _sources(db_url: str, assignment: str) -> list[Any]:
    """The assignment's source notebooks, read from the gradebook as `autograder grade` reads them."""
    from nbgrader.api import Gradebook

    from autograder.grading.sources import read_sources

    with Gradebook(db_url) as gradebook:
        connection = gradebook.db.connection().connection
        return read_sources(connection, assignment) or []
