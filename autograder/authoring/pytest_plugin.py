"""Run an assignment's hidden graders with plain pytest against one notebook, in any course:

    pytest graders/<assignment> --notebook path/to/<assignment>.ipynb

The framework registers this module as a pytest plugin (the `pytest11` entry point in pyproject.toml), so
a course needs no conftest.py of its own. It adds `--notebook`, the `points` mark and the `student` fixture,
and writes a named mistake's hint in words: the assignment's own (`hints.py` beside its graders) over the
shared ones of `autograder.grader_support.hints`, as the feedback does.

The notebook's code cells run in this process, without a sandbox: use it on notebooks you trust, and
`autograder grade` for a class. Every pytest run where the framework is installed loads this module, so it
imports nothing beyond pytest until a grader needs it.
"""

import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("autograder").addoption(
        "--notebook", action="store", metavar="PATH", help="the notebook whose functions the hidden graders judge")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "points(n): points this grader test is worth")


@pytest.fixture(scope="session")
def student(request: pytest.FixtureRequest) -> Any:
    """The notebook's functions, as the graders call them."""
    from autograder.grader_support.student import InProcessStudent
    from autograder.nbgrader_glue.notebook import NotebookError, load_namespace

    notebook = request.config.getoption("--notebook")
    if not notebook:
        pytest.exit("give the notebook to grade: --notebook PATH", returncode=4)
    try:
        return InProcessStudent(load_namespace(Path(notebook)))
    except NotebookError as exc:
        pytest.exit(str(exc), returncode=4)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, Any]:
    try:
        return (yield)
    except AssertionError as failure:
        _explain(item, failure)
        raise


def _explain(item: pytest.Item, failure: AssertionError) -> None:
    """A grader's CheckFailed carries the hint's text from the shared hints only (checks know no
    assignment): give it the text the assignment's feedback shows."""
    checks = sys.modules.get("autograder.grader_support.checks")  # not imported: no grader raised its CheckFailed
    if checks is None or not isinstance(failure, checks.CheckFailed) or not failure.hint:
        return
    module = getattr(item, "module", None)
    if "student" not in getattr(item, "fixturenames", ()) or not getattr(module, "__file__", None):
        return
    package = Path(module.__file__).resolve().parent  # <graders folder>/<assignment>/test_<exercise>.py
    try:
        from autograder.grader_support.hints import hint_text
        from autograder.graders import use_folder

        use_folder(package.parent)
        text = hint_text(failure.hint, package.name)
    except Exception:  # a broken hints.py: the failure keeps the text it has, and the grader's verdict stands
        return
    failure.args = (failure.explained(text),)
