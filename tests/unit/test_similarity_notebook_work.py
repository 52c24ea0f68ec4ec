"""What one student's notebook says, as features (`similarity.notebook_work`), against values worked out by hand
and on the real release: the digest and the plain text features are keyed by, a cell's first line, what the
release gives everyone (`ReleasedNotebook`), the lines of an answer region that are the student's, an output as
text, and which features of a hand-made notebook land where, with the caps that bound a hostile one."""

import copy
import re
import time

import pytest

from autograder.nbgrader_glue.notebook import grade_id, is_solution
from autograder.similarity import notebook_work as nw
from tests.unit.similarity_support import released

# --- digest, plain, first_line ---------------------------------------------------------------------------------


def test_digest_is_eight_bytes_of_blake2b_and_never_raises():
    # Values pinned once from blake2b(digest_size=8): a change of hash, size or encoding changes every key a
    # saved comparison or another run holds.
    assert nw.digest("hello world") == "878633aa32a3b150"
    assert nw.digest("") == "e4a6a0577479b2b4"
    assert re.fullmatch(r"[0-9a-f]{16}", nw.digest("h_t = np.tanh(z)"))
    assert nw.digest("hello world") != nw.digest("hello world ")
    # A lone surrogate (a hostile notebook's JSON can hold one) is replaced, not raised on.
    assert nw.digest("a\ud800") == nw.digest("a?") == "dd876b0b4a331099"


def test_plain_is_lower_case_with_runs_of_white_space_as_one_space():
    assert nw.plain("  The  Hidden\tSTATE\n h_t ") == "the hidden state h_t"
    assert nw.plain(" \n\t") == ""


def test_first_line_is_the_first_non_blank_line_stripped_and_cut_at_the_width():
    assert nw.first_line("\n   \n  hello world  \nsecond") == "hello world"
    assert nw.first_line("") == nw.first_line(" \n\t\n") == ""
    assert nw.first_line("x" * 60) == "x" * 60  # the default width, exactly: whole
    assert nw.first_line("x" * 61) == "x" * 59 + "…"  # one more: cut to the width, the ellipsis included
    assert nw.first_line("abcdef", width=4) == "abc…"
    assert nw.first_line("abcd", width=4) == "abcd"


# --- what the release gives everyone ---------------------------------------------------------------------------


def _cell(kind: str, source: str, cell_id: object = None, *, outputs: list | None = None, count: object = None,
          **nbgrader: object) -> dict:
    """A cell as `read_fast` gives it (plain dicts); `cell_id` None: no id at all."""
    cell: dict = {"cell_type": kind, "source": source, "metadata": {"nbgrader": nbgrader} if nbgrader else {}}
    if cell_id is not None:
        cell["id"] = cell_id
    if kind == "code":
        cell.update(outputs=outputs or [], execution_count=count)
    return cell


ADD = "def add(a, b):\n    raise NotImplementedError()\n    return total"
SUB = "def sub(a, c):\n    raise NotImplementedError()"
RELEASE_CELLS = [
    _cell("markdown", "# Exercise one\nWrite the SUM of two   numbers below, please.", "r-md"),
    _cell("code", "import numpy as np\nfrom numpy.linalg import norm as length", "r-imp"),
    _cell("code", ADD, "r-sol", solution=True, grade=False, grade_id="add"),
    _cell("code", "assert add(1, 2) == 3", "r-test", solution=False, grade=True, grade_id="test_add", points=1),
    _cell("markdown", "YOUR ANSWER HERE", "r-ans", solution=True, grade=True, grade_id="explain", points=1),
    _cell("code", "class Helper:\n    pass"),  # no id (nbformat 4.4 and older)
    _cell("code", "def shown(x):\n    return x", 7),  # an id that is no string
    _cell("code", "x = 1", "r-nogid", solution=True, grade=False),  # a solution cell without a grade_id
    _cell("code", SUB, solution=True, grade=False, grade_id="sub"),  # a solution cell without an id
]


def _sums() -> nw.ReleasedNotebook:
    """Built in each test that reads it, never at import: mutation testing runs each mutant in a process forked
    after the tests were imported."""
    return nw.ReleasedNotebook.from_cells("sums", RELEASE_CELLS)


def test_the_release_by_hand():
    release = _sums()
    assert release.name == "sums"
    assert release.cell_ids == {"r-md", "r-imp", "r-sol", "r-test", "r-ans", "r-nogid"}
    assert release.solutions == {"add": ADD, "explain": "YOUR ANSWER HERE", "sub": SUB}
    assert release.by_id == {"r-sol": "add", "r-ans": "explain"}
    assert release.markdown == {"# exercise one", "write the sum of two numbers below, please.", "your answer here"}
    # What the code defines or imports (the first name after `import`, and its alias), and each solution
    # function's parameters and signature; a markdown cell's text defines nothing.
    assert release.names == frozenset({"numpy", "np", "norm", "length", "add", "Helper", "shown", "sub",
                                       "a", "b", "c", "add(a,b)", "sub(a,c)"})
    assert isinstance(release.names, frozenset)


def test_the_real_release():
    cells, release = released("hidden_state_activation")
    assert len(release.cell_ids) == len(cells) == 33
    assert release.by_id == {"b009d3df": "concat_weights", "be384e69": "concat_state_input", "ddbf625b": "formula_1",
                             "3732e18b": "formula_2", "b9d4e6f2": "explain_formulas", "017c693d": "sigmoid",
                             "5d585ff4": "hidden_state"}
    assert set(release.solutions) == set(release.by_id.values())
    assert release.solutions["sigmoid"].startswith("def sigmoid(z):\n")
    assert {"np", "numpy", "selfcheck", "formula_1", "sigmoid", "w_hh", "x_t", "b_h", "formula", "g", "z",
            "formula_2(w_hh,w_hx,h_t_prev,x_t)", "hidden_state(w_hh,w_hx,h_t_prev,x_t,b_h,formula,g)"} <= release.names
    assert {"# the hidden state of a vanilla rnn", "### exercise 3: `formula_1`"} <= release.markdown


def test_the_contract_is_every_top_level_functions_parameters_and_signature():
    source = ("import numpy as np\n\ndef f(a, /, b, *args, c, d=1, **kw):\n    return a\n\n"
              "class K:\n    def m(self):\n        pass\n\n"
              "def g(x):\n    def inner(y):\n        return y\n    return x\n")
    assert nw._contract(source) == {"a", "b", "c", "d", "f(a,b,c,d)", "x", "g(x)"}
    assert nw._contract("def f(:\n") == set()  # does not parse: the regular expression's names only
    assert nw._contract("x = 1\0") == set()


def test_a_parameter_is_a_signature_or_a_name_some_function_takes():
    contract = {"f": ["a", "b"], "g": ["x"]}
    assert nw._is_parameter("f(a,b)", contract) and nw._is_parameter("a", contract)
    assert nw._is_parameter("x", contract)
    assert not nw._is_parameter("np", contract) and not nw._is_parameter("f", contract)


# --- the answer region -----------------------------------------------------------------------------------------


def test_what_follows_the_releases_return_is_dead_code():
    released = "def f(a):\n    return a"
    student = "def f(a):\n    a = a + 1\n    return a\n    print(a)\n    print(a, a)\nprint(f(1))"
    # Kept: the line before the return; left out: the two lines after it as deep as it; kept: what is less deep.
    assert nw.answer_region(student, released) == "    a = a + 1\nprint(f(1))"
    assert nw.answer_region("def f(a):\n    return a\n    print(a)", released) == ""


def test_after_a_changed_or_own_return_nothing_is_dead_code():
    released = "def f(a):\n    b = a\n    return b"
    # The release's return with a value of the student's: what follows is theirs (a blank line between).
    assert nw.answer_region("def f(a):\n    b = a\n    return b + 1\n\n    print(b)", released) == (
        "    return b + 1\n    print(b)")
    # A return of the student's own, where the release has none.
    assert nw.answer_region("def f(a):\n    return a + 1\n    print(a)", "def f(a):\n    pass") == (
        "    return a + 1\n    print(a)")


def test_each_release_return_of_a_cell_is_read_on_its_own():
    # The first function's return shares its line with a statement of the student's; the second's is the
    # release's own, and the line after it is dead code.
    released = "def f(a):\n    return a\n\ndef g(b):\n    return b"
    student = "def f(a):\n    c = 2; return a\n\ndef g(b):\n    return b\n    print(b)"
    assert nw.answer_region(student, released) == "    c = 2; return a"


NAMES = frozenset({"sigmoid", "np", "numpy", "z", "sigmoid(z)"})
SIGMOID = "def sigmoid(z):\n    e = np.exp(-z)\n    return s"


def test_parameters_are_one_placeholder_and_the_releases_names_are_kept():
    # A renamed parameter changes no token (its def line is kept, so that its body reads with the release's
    # names); `numpy.exp` is not the release's `np.exp`.
    assert nw.answer_region("def sigmoid(x):\n    e = np.exp(-x)\n    s = 1 / (1 + e)\n    return s",
                            SIGMOID, NAMES) == "def sigmoid(x):\n    s = 1 / (1 + e)"
    assert nw.answer_region("def sigmoid(z):\n    e = numpy.exp(-z)\n    s = 1 / (1 + e)\n    return s",
                            SIGMOID, NAMES) == "    e = numpy.exp(-z)\n    s = 1 / (1 + e)"


def test_a_def_line_with_annotations_and_defaults_is_the_releases():
    released = "def f(a: int, b=2):\n    raise NotImplementedError()\n    return c"
    names = frozenset({"f"}) | nw._contract(released)
    assert nw.answer_region("def f(a: int, b=2):\n    c = a * b\n    return c", released, names) == "    c = a * b"
    assert nw.answer_region("def f(x: int, b=2):\n    c = x * b\n    return c", released, names) == (
        "def f(x: int, b=2):\n    c = x * b")


def test_a_statement_over_several_lines_is_kept_whole_or_not_at_all():
    released = "def f(a, b):\n    pass"
    names = frozenset({"f"}) | nw._contract(released)
    # The release's def line spread over two lines is still the release's.
    assert nw.answer_region("def f(a,\n      b):\n    return a", released, names) == "    return a"
    spread = "def f(a, b):\n    c = (a +\n         b)\n    return c * 2"
    assert nw.answer_region(spread, released, names) == "    c = (a +\n         b)\n    return c * 2"


def test_lines_are_kept_as_written():
    # Trailing spaces and a last letter X kept; a final newline adds no line.
    assert nw.answer_region("def f(a):\n    b = a + X   \n    return b + X\n", "def f(a):\n    pass") == (
        "    b = a + X   \n    return b + X")


def test_an_attribute_is_compared_by_its_name():
    assert nw.answer_region("def f(a):\n    return a.X", "def f(a):\n    return a.T") == "    return a.X"
    assert nw.answer_region("def f(a):\n    return a.X", "def f(a):\n    return a.X") == ""


def test_a_long_answer_leaves_out_the_releases_return():
    # Over 200 tokens with four returns: difflib's "popular" heuristic (autojunk) would find no anchor for the
    # release's `return hs, ys` and count it as the student's.
    cells, release = released("rnn_update_equations")
    stub = release.solutions["rnn_forward"]
    body = ("    def step(x, h):\n        return phi(W_xh @ x + W_hh @ h + b_h)\n\n"
            "    def out(h):\n        return W_hy @ h + b_y\n\n"
            "    def steps_of(shape):\n        return np.zeros((xs.shape[0],) + tuple(shape))\n\n"
            '    assert xs.ndim == 3 and h0.ndim == 2, "xs is (T, n_x, m) and h0 is (n_h, m)"\n'
            "    assert W_xh.shape == (h0.shape[0], xs.shape[1]) and W_hh.shape == (h0.shape[0], h0.shape[0])\n"
            "    assert b_h.shape == (h0.shape[0], 1) and W_hy.shape[1] == h0.shape[0]\n"
            "    assert b_y.shape == (W_hy.shape[0], 1)\n"
            "    hs = steps_of(h0.shape)\n    ys = steps_of((W_hy.shape[0], h0.shape[1]))\n    h = h0\n"
            "    for t in range(xs.shape[0]):\n        h = step(xs[t], h)\n        hs[t] = h\n        ys[t] = out(h)\n")
    student = stub.replace("    # YOUR CODE HERE\n    raise NotImplementedError()\n", body)
    assert student != stub and "    return hs, ys" in student
    assert nw.answer_region(student, stub, release.names) == "\n".join(
        line for line in body.splitlines() if line.strip())


def _statements(text: str) -> list[set[int]]:
    return nw._statements(text, [0] + [m.end() for m in re.finditer("\n", text)])


def test_statements_spread_over_lines_by_hand():
    assert _statements("x = 1\ny = f(2)") == []
    assert _statements("# a note\nx = (1,\n     2)\ny = [3,  # three\n     4,\n     5]") == [{1, 2}, {3, 4, 5}]
    assert _statements("\nx = (1,\n 2)") == [{1, 2}]
    assert _statements("s = 1 / \\\n    (1 + z)\nt = 2") == [{0, 1}]


# --- outputs ---------------------------------------------------------------------------------------------------


def test_an_output_as_text():
    assert nw._output_text(None) == nw._output_text("text") == nw._output_text(["a"]) == ""
    assert nw._output_text({"output_type": "stream", "name": "stdout", "text": ["a\n", "b"]}) == "a\nb"
    assert nw._output_text({"output_type": "stream", "name": "stdout", "text": "plain"}) == "plain"
    assert nw._output_text({"output_type": "error", "ename": "ValueError", "evalue": "bad shape",
                            "traceback": ["ValueError: bad shape"]}) == "ValueErrorbad shape"
    # Data by its type's name, types in order; a value as written, a list joined, anything else as Python
    # prints it.
    result = {"output_type": "execute_result", "execution_count": 1,
              "data": {"text/plain": ["1", "2"], "image/png": "iVBOR", "application/json": {"a": 1}}}
    assert nw._output_text(result) == "application/json:{'a': 1}image/png:iVBORtext/plain:12"
    # Hostile: no field has the type it should.
    assert nw._output_text({"text": 5, "ename": None, "evalue": ["x", "y"], "data": {"text/plain": [1, 2]}}) == (
        "xytext/plain:12")
    assert nw._output_text({"data": "x"}) == ""
    assert len(nw._output_text({"text": "x" * (nw.MAX_CELL_CHARS + 10)})) == nw.MAX_CELL_CHARS


# --- one notebook's features -----------------------------------------------------------------------------------

ERROR = {"output_type": "error", "ename": "NameError", "evalue": "name 'x' is not defined", "traceback": []}
STUDENT_CELLS = [
    _cell("markdown", "# Exercise one\nWRITE the sum of two numbers   below, please.\n"
          "I wrote this explanation MYSELF  today\nAnswer: yes\ntwenty chars exactly\nnineteen chars here", "r-md"),
    _cell("code", "import numpy as np", "r-imp", count=1),
    _cell("code", "def add(a, b):\n    total = a + b\n    return total", "r-sol", count=2,
          outputs=[{"output_type": "stream", "name": "stdout", "text": "computed\n"}],
          solution=True, grade=False, grade_id="add"),
    _cell("code", "assert add(1, 2) == 3", "r-test", count=3, outputs=[
        {"output_type": "error", "ename": "AssertionError", "evalue": "", "traceback": []}],
          solution=False, grade=True, grade_id="test_add", points=1),
    _cell("code", "\n\nprint(add(2, 2))  # my own check of the sum\n", "s-new", outputs=[
        {"output_type": "stream", "name": "stdout", "text": ["4\n"]},
        {"output_type": "stream", "name": "stdout", "text": "  \n"},
        {"output_type": "execute_result", "execution_count": 4, "metadata": {}, "data": {"text/plain": ["'four'"]}},
        ERROR]),
    _cell("raw", "", "s-raw"),
    _cell("markdown", "Because addition is commutative.", "r-ans"),  # its nbgrader metadata removed
    _cell("code", "x = 2", 7, count=True, outputs="not a list"),
    _cell("code", "def add(a, b):\n    return a - b", "s-copy", count=5, solution=True, grade=False, grade_id="add"),
]


def _features(cells: list[dict], release: nw.ReleasedNotebook | None = None, prefix: str = "") -> nw.StudentWork:
    release = release or _sums()
    work = nw.StudentWork("s01")
    nw.notebook_features(work, {"cells": cells}, release, prefix)
    return work


def test_a_notebooks_features_by_hand():
    work = _features(copy.deepcopy(STUDENT_CELLS), prefix="sums/")
    # The first cell of an exercise is its answer (the copy after it is not); a cell whose metadata was
    # removed is found by its id.
    assert work.answers == {"sums/add": "    total = a + b", "sums/explain": "Because addition is commutative."}
    assert work.created_ids == {"sums/s-new": "print(add(2, 2))  # my own check of the sum",
                                "sums/s-raw": "an empty raw cell"}
    assert work.executions == {"sums/": "1 2 3 - - 5"}  # never run, or a count that is no number: "-"
    # The grade cell's output (its AssertionError) is not kept, nor a blank output.
    assert work.outputs == {nw.digest("computed"): "computed", nw.digest("4"): "4",
                            nw.digest("text/plain:'four'"): "text/plain:'four'",
                            nw.digest("nameerrorname 'x' is not defined"): "NameErrorname 'x' is not defined"}
    # Markdown lines of 20 characters or more, plain, that the release does not have (in any case or spacing).
    assert work.markdown == {
        nw.digest("i wrote this explanation myself today"): "I wrote this explanation MYSELF  today",
        nw.digest("twenty chars exactly"): "twenty chars exactly",
        nw.digest("because addition is commutative."): "Because addition is commutative."}
    assert work.wrong == {}


def test_executions_are_keyed_by_the_notebook_and_a_notebook_never_run_has_none():
    assert _features(copy.deepcopy(STUDENT_CELLS)).executions == {"sums": "1 2 3 - - 5"}
    never_run = [_cell("code", "x = 1", "a"), _cell("code", "y = 2", "b", count=None)]
    assert _features(never_run).executions == {}
    assert _features([_cell("code", "x = 1", "a", count=1), _cell("code", "y = 2", "b", count=2)]
                     ).executions == {"sums": "1 2"}


def test_a_copy_of_the_real_release_with_two_answers():
    cells, release = released("hidden_state_activation")
    by_gid = {grade_id(c): c for c in cells if is_solution(c)}
    stub = "    # YOUR CODE HERE\n    raise NotImplementedError()\n"
    mine = "    product = np.hstack((w_hh, w_hx)) @ np.vstack((h_t_prev, x_t))\n"
    by_gid["formula_1"]["source"] = by_gid["formula_1"]["source"].replace(stub, mine)
    # The release's def line has defaults (`formula=1, g=sigmoid`): kept as released, it is not the student's.
    step = "    h_t = g((formula_1 if formula == 1 else formula_2)(w_hh, w_hx, h_t_prev, x_t) + b_h)\n"
    by_gid["hidden_state"]["source"] = by_gid["hidden_state"]["source"].replace(stub, step)
    # A renamed parameter: the def line is the student's (read with the release's names, `_contract`).
    by_gid["sigmoid"]["source"] = by_gid["sigmoid"]["source"].replace("def sigmoid(z):", "def sigmoid(x):").replace(
        stub, "    s = 1 / (1 + np.exp(-x))\n")
    cells.append(_cell("markdown", "# The hidden state of a vanilla RNN", "mine"))
    work = _features(cells, release)
    assert work.answers == {"concat_weights": "", "concat_state_input": "", "formula_1": mine.rstrip("\n"),
                            "formula_2": "", "explain_formulas": "", "hidden_state": step.rstrip("\n"),
                            "sigmoid": "def sigmoid(x):\n    s = 1 / (1 + np.exp(-x))"}
    assert work.created_ids == {"mine": "# The hidden state of a vanilla RNN"}
    assert work.executions == work.outputs == work.markdown == {}


def test_the_caps_on_one_notebooks_features():
    n = nw.MAX_FEATURES + 2
    lines = "\n".join(f"my own line number {i:04d} of this notebook" for i in range(n))
    cells = [_cell("raw", f"cell {i}", f"c{i}") for i in range(n)] + [_cell("markdown", lines)]
    cells += [_cell("code", "", outputs=[{"text": f"output {i} of {j}"} for i in range(300)]) for j in range(2)]
    work = _features(cells, nw.ReleasedNotebook.from_cells("big", []))
    assert list(work.created_ids) == [f"c{i}" for i in range(nw.MAX_FEATURES)]
    assert len(work.markdown) == len(work.outputs) == nw.MAX_FEATURES
    assert nw.digest(f"my own line number {nw.MAX_FEATURES - 1:04d} of this notebook") in work.markdown


def test_a_notebook_with_more_cells_than_a_person_makes_is_refused():
    release = nw.ReleasedNotebook.from_cells("big", [])
    assert _features([_cell("raw", "")] * nw.MAX_CELLS, release).created_ids == {}
    with pytest.raises(nw.NotebookRefused) as refused:
        _features([_cell("raw", "")] * (nw.MAX_CELLS + 1), release)
    assert str(refused.value) == "big.ipynb: 5001 cells (at most 5000 are compared)"


def test_one_statement_over_every_line_of_a_hostile_cell_costs_little():
    # A cell as long as is read, one bracket open over all of its 33,000 lines: each line is added to the
    # statement once (adding the whole statement again for each line took 25 CPU-s).
    released_cell = "def f(x):\n    raise NotImplementedError()\n    return y"
    hostile = "def f(x):\n    y = (\n" + "1,\n" * (nw.MAX_CELL_CHARS // 3) + ")"
    started = time.process_time()
    region = nw.answer_region(hostile, released_cell, frozenset({"f", "x", "y", "f(x)"}))
    assert time.process_time() - started < 1.0
    assert region.startswith("    y = (\n1,\n") and region.count("\n") > 30_000
