"""The executed solution of `hidden_state_activation` shows the contract's worked example (245)."""

import pytest

from tests.conftest import GRADED_CLASS_GROUP

# On the worker that grades this assignment's class for the other tests (tests/conftest.py).
pytestmark = pytest.mark.xdist_group(GRADED_CLASS_GROUP.format("hidden_state_activation"))


def test_executed_solution_prints_245_from_both_formulas(graded_classes):
    notebook = graded_classes["hidden_state_activation"].autograded("solution")
    printed = "".join(out.get("text", "") for cell in notebook.cells for out in cell.get("outputs", []))
    assert "W_h =\n [[1 1 9 9 9]\n [1 1 9 9 9]\n [1 1 9 9 9]]" in printed
    assert "formula 1:\n [[245]\n [245]\n [245]]" in printed
    assert "formula 2:\n [[245]\n [245]\n [245]]" in printed
    assert "W_hh @ h = [2 2 2]  W_hx @ x = [243 243 243]" in printed
    assert "the two formulas agree: True" in printed
