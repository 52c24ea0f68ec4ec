"""What the similarity unit tests share: a fresh normalisation cache for every test, and a release read as
`autograder similarity` reads it."""

import pytest

from autograder.devtools.repo import ROOT
from autograder.grading.reading import read_fast
from autograder.similarity.notebook_work import ReleasedNotebook
from autograder.similarity.program_form import program


@pytest.fixture(autouse=True)
def fresh_programs():
    """Each test normalises afresh: `program` caches its answers, and a cache filled by another run of the code
    (mutation testing forks from one) would hide a change in it. Autouse in every module that imports it."""
    program.cache_clear()


def released(assignment: str) -> tuple[list[dict], ReleasedNotebook]:
    """The release's cells as `read_fast` gives them, and what similarity reads of them. Built when called, not at
    import, so that a mutated `from_cells` is the one that runs."""
    cells = read_fast((ROOT / "release" / assignment / f"{assignment}.ipynb").read_bytes(), "release")["cells"]
    return cells, ReleasedNotebook.from_cells(assignment, cells)
