"""Reading a notebook's text for whether a function can change after its test cell (`autograder.grading.unchanged`):
"unchanged" must be sure, since an exercise is then judged on its own in the process that ran every cell."""

import pytest

from autograder.grading.unchanged import unchanged_after

NOTEBOOK = [
    "import numpy as np",
    "def concat(a, b):\n    return np.hstack([a, b])",
    None,  # markdown
    "def formula(a, b, h):\n    W = concat(a, b)\n    return W @ h",
    "x = formula(1, 2, 3)\nh = 5\nW = np.zeros(3)",
    "def hidden(a, g=np.tanh):\n    return g(formula(a, a, a))",
]
FORMULA = 3


@pytest.mark.parametrize("later", [
    "np.array([1.0])",  # calls a module's function
    "W = 7",  # W is formula's local, not this global
    "h = hidden(1)\nprint(h)",
    "def other(x):\n    concat = 3\n    return concat",  # a local of another function
])
def test_later_cells_that_leave_formula_alone(later):
    assert unchanged_after(NOTEBOOK + [later], FORMULA, "formula") is True


@pytest.mark.parametrize("later", [
    "def concat(a, b):\n    return a",  # rebinds a function formula calls
    "formula = None",  # rebinds formula itself
    "del concat",
    "for concat in [1]: pass",
    "import math as concat",
    "with open('f') as concat: pass",
    "try:\n    pass\nexcept Exception as concat:\n    pass",
    "np.hstack = lambda parts: parts[0]",  # changes a module formula reaches
    "np.__dict__['hstack'] = None",
    "globals()['concat'] = None",
    "exec('concat = 1')",
    "from os import *",
    "%timeit formula(1, 2, 3)",  # IPython syntax cannot be read as Python
    "if (concat := 3): pass",
])
def test_later_cells_that_may_change_formula(later):
    assert unchanged_after(NOTEBOOK + [later], FORMULA, "formula") is False


def test_what_counts_is_what_the_function_reaches_at_the_notebook_level():
    cells = ["cache = {}", "def f(x):\n    return cache.get(x, x)"]
    assert unchanged_after(cells + ["other = {}\nother.clear()"], 1, "f")
    assert not unchanged_after(cells + ["cache.clear()"], 1, "f")  # a method may change the object
    assert not unchanged_after(cells + ["cache['a'] = 1"], 1, "f")
    # Reached through a default argument, a decorator, a class's body and its methods:
    assert not unchanged_after(["def f(x, g=lambda v: v + z):\n    return g(x)", "z = 1"], 0, "f")
    assert not unchanged_after(["def f(x):\n    return C().m()", "class C:\n    def m(self):\n        return q",
                                "q = 1"], 0, "f")
    assert not unchanged_after(["def f(x):\n    return [y + z for y in x]", "z = 1"], 0, "f")
    assert unchanged_after(["def f(x):\n    return [y + z for y in x]", "y = 1"], 0, "f")


def test_what_cannot_be_read_is_changed():
    assert not unchanged_after(["def f(x):\n    global k\n    return x", "k = 2"], 0, "f")
    assert not unchanged_after(["def f(x):\n    return globals()['g'](x)", "print(1)"], 0, "f")
    assert not unchanged_after(["f = eval('lambda x: x')", "print(1)"], 0, "f")
    assert not unchanged_after(["print(1)"], 0, "f")  # f defined nowhere that can be read
    assert not unchanged_after(["def f(x):\n    return x", "f(" * 5000 + ")" * 5000], 0, "f")


def test_earlier_cells_do_not_matter_and_the_same_text_is_read_once():
    assert unchanged_after(["def f(x):\n    return g(x)", "def g(x):\n    return x"], 1, "f")
    assert unchanged_after(["def g(x):\n    return 2", "def f(x):\n    return g(x)", "print(f(1))"], 1, "f")
    assert not unchanged_after(["def f(x):\n    return g(x)", "def g(x):\n    return 1", "def g(x):\n    return 2"],
                               1, "f")
