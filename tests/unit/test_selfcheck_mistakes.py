"""The self-checks' known mistakes come from the graders' tables (`authoring.selfcheck_mistakes`): the block in
each `selfcheck.py` is what the tables give now, the release holds the same module, and a self-check names the
mistake the worked example shows, with the line and function it came from."""

import linecache
import types

import numpy as np
import pytest

from autograder.authoring.selfcheck_mistakes import BEGIN, generated_block, refreshed
from autograder.devtools.repo import ROOT

ASSIGNMENTS = ("hidden_state_activation", "rnn_update_equations")


def selfcheck_module(assignment: str) -> types.ModuleType:
    module = types.ModuleType("selfcheck")
    module.__file__ = "selfcheck.py"
    exec(compile((ROOT / "source" / assignment / "selfcheck.py").read_text(), "selfcheck.py", "exec"),
         module.__dict__)
    return module


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_generated_block_is_what_the_graders_tables_give_and_the_release_has_it(assignment):
    source = (ROOT / "source" / assignment / "selfcheck.py").read_text()
    assert BEGIN in source and refreshed(assignment, source) == source, "stale: run `make release`"
    assert (ROOT / "release" / assignment / "selfcheck.py").read_text() == source


def test_a_mistake_added_to_a_table_reaches_the_block(monkeypatch):
    from autograder.graders.hidden_state_activation import reference

    source = (ROOT / "source" / "hidden_state_activation" / "selfcheck.py").read_text()
    before = generated_block("hidden_state_activation", source)
    assert "'transposed'" not in before
    monkeypatch.setitem(reference.CONCAT_WEIGHTS_MISTAKES, "transposed", lambda w_hh, w_hx: np.hstack((w_hh, w_hx)).T)
    after = generated_block("hidden_state_activation", source)
    assert "'concat_weights(w_hh 3x2, w_hx 3x3)': [('block_order'" in after
    assert "('transposed', [[1.0, 1.0, 1.0]" in after


def student_cell(source: str, number: int = 12) -> dict:
    filename = f"<cell {number}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


def failure(check, function) -> str:
    with pytest.raises(AssertionError) as caught:
        check(function)
    return str(caught.value)


def test_a_self_check_names_the_mistake_the_worked_example_shows_and_where_the_line_is():
    selfcheck = selfcheck_module("hidden_state_activation")
    student = student_cell(
        "import numpy as np\n\ndef concat_state_input(h_t_prev, x_t):\n"
        "    stacked = np.concatenate((h_t_prev, x_t), axis=1)\n    return stacked\n\n"
        "def concat_weights(w_hh, w_hx):\n    return np.hstack((w_hx, w_hh))\n\n"
        "def formula_1(w_hh, w_hx, h_t_prev, x_t):\n"
        "    return concat_weights(w_hh, w_hx) @ concat_state_input(h_t_prev, x_t)\n")
    said = failure(selfcheck.check_concat_state_input, student["concat_state_input"])
    assert said.splitlines()[1:] == [
        "  in your code, line 4, in `concat_state_input`: stacked = np.concatenate((h_t_prev, x_t), axis=1)",
        "  known mistake [wrong_axis]: joined along the wrong axis: weight blocks go side by side (axis=1, along "
        "columns, hstack), state and input go one on top of the other (axis=0, along rows, vstack)."]
    assert failure(selfcheck.check_concat_weights, student["concat_weights"]).endswith(
        "known mistake [block_order]: the blocks are in the wrong order: this function's contract fixes which "
        "block comes first (assignment 1: [W_hh | W_hx] and [h; x]; assignment 2: [W_xh  W_hh] and [x; h]).")
    # formula_1's failure is on a line of another function: the self-check says which, and its known mistake.
    said = failure(selfcheck.check_formula_1, student["formula_1"])
    assert "line 4, in `concat_state_input`: stacked =" in said and "known mistake [wrong_axis]" in said


def test_an_error_of_another_kind_is_not_given_a_known_mistakes_name():
    selfcheck = selfcheck_module("rnn_update_equations")
    student = student_cell("import numpy as np\n\ndef stack_inputs(x_t, h_prev):\n    return np.vstack(x_t, h_prev)\n")
    said = failure(selfcheck.check_stack_inputs, student["stack_inputs"])
    assert "stack_inputs raised TypeError" in said and "known mistake" not in said
