"""Run the hidden graders with pytest against one notebook:

    pytest autograder/graders/hidden_state_activation --notebook path/to/hidden_state_activation.ipynb

The notebook's code cells run in this process, without a sandbox: use it on notebooks you trust, and
`autograder grade` for a class.
"""

from pathlib import Path

import pytest

from autograder.notebook import load_namespace
from autograder.student import NamespaceStudent


def pytest_addoption(parser):
    parser.addoption("--notebook", action="store", help="the notebook whose functions the graders judge")


def pytest_configure(config):
    config.addinivalue_line("markers", "points(n): points this grader test is worth")


@pytest.fixture(scope="session")
def student(request):
    notebook = request.config.getoption("--notebook")
    if not notebook:
        pytest.exit("give the notebook to grade: --notebook PATH", returncode=4)
    return NamespaceStudent(load_namespace(Path(notebook)))
