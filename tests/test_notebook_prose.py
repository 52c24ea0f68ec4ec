"""The notebooks say what they show: every number the prose states about a printed result is what the
solution prints. Each claim names the markdown cell by its first words and the numbers (at the precision
the prose gives them) that the next code cell's output must contain."""

import re
from pathlib import Path

import pytest

from autograder.devtools.repo import ROOT
from autograder.nbgrader_glue.notebook import load_namespace, read_notebook

CLAIMS = {
    "hidden_state_activation": {
        "## 5. Why the two formulas agree": [245, 2, 243],  # each entry, W_hh @ h and W_hx @ x
        "## 8. Both formulas, one hidden state": [0.5, 0.73, 0.27],  # sigma(0), sigma(1), sigma(-1)
    },
    "rnn_update_equations": {
        "A batch you can check by hand": [8.5, 5.5],  # many-to-many and many-to-one means
    },
}
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


@pytest.mark.parametrize("assignment", list(CLAIMS))
def test_numbers_in_the_prose_are_what_the_solution_prints(assignment, monkeypatch):
    path = ROOT / "source" / assignment / f"{assignment}.ipynb"
    monkeypatch.syspath_prepend(str(path.parent))  # its selfcheck.py
    printed: dict[int, str] = {}
    load_namespace(Path(path), printed)
    cells = read_notebook(path).cells
    for start, numbers in CLAIMS[assignment].items():
        index = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.startswith(start))
        shown = next(i for i in range(index + 1, len(cells)) if cells[i].cell_type == "code")
        values = [float(v) for v in NUMBER.findall(printed.get(shown, ""))]
        for number in numbers:
            digits = len(str(number).partition(".")[2])
            assert any(round(value, digits) == number for value in values), (
                f"{assignment}: {start!r} says {number}, cell {shown} prints {printed.get(shown, '')[:500]!r}")
