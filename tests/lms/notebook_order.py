"""rnn_update_equations as its notebook has it: the source notebook copied into a test course, and the seven
grade cells the lms tests' gradebook leaves out added to it (the lms gradebook holds two of its nine)."""

import shutil
import warnings

from sqlalchemy.exc import SAWarning

from autograder.devtools.repo import ROOT
from tests.lms.conftest import RUE, Course

# The grade cells in the notebook's order (source/rnn_update_equations/rnn_update_equations.ipynb), with points.
RUE_ORDER = {"test_rnn_step": 10, "test_rnn_output": 6, "test_stack_params": 6, "test_stack_inputs": 6,
             "test_rnn_step_stacked": 11, "test_rnn_forward": 14, "test_stacked_rnn_forward": 18,
             "test_sequence_loss": 10, "test_count_parameters": 5}


def with_rue_notebook(course: Course) -> None:
    """`course` with RUE's source notebook and every grade cell of it in the gradebook."""
    source = course.root / "source" / RUE
    source.mkdir(parents=True)
    shutil.copy(ROOT / "source" / RUE / f"{RUE}.ipynb", source)
    with course.gradebook() as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)
        known = {cell.name for cell in gb.find_notebook(RUE, RUE).grade_cells}
        for cell, points in RUE_ORDER.items():
            if cell not in known:
                gb.add_grade_cell(cell, RUE, RUE, max_score=points, cell_type="code")
