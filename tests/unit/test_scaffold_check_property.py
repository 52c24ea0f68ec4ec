"""Whatever `autograder new` accepts passes its own `autograder check` (issue 42: names it accepted made a
notebook nbgrader refuses: an exercise `imports` or `test_<another exercise>` took a grade id twice, and a long
name overflowed the gradebook's 128 characters or the file system's 255 bytes, with a traceback).

Generated names go through the name rule and, when accepted, through the real scaffold and `check_assignment`
(all but its release part), nbgrader's own notebook validator (what `nbgrader generate_assignment` runs) and the
gradebook's column lengths; one assignment of such names goes through the real `new`, release and `check`."""

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from autograder.authoring import AuthoringError
from autograder.authoring.scaffold import validate_names

CONFIG = 'c = get_config()  # noqa: F821\nc.CourseDirectory.course_id = "names"\nc.Autograder.graders = "graders"\n'
WORD = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True)
# The names the scaffold gives a meaning to, and lengths around the gradebook's limit.
OWN = st.sampled_from(["imports", "x", "np", "selfcheck", "grade", "a_np", "a_x", "a_selfcheck", "test_", "student",
                       "ref", "mistakes", "check_array", "result", "expected"])
LONG = st.integers(118, 260).map(lambda n: "e" * n)
NAME = st.one_of(WORD, OWN, LONG)
# Sometimes one exercise is test_<another>: the other's grade cell id.
EXERCISES = st.lists(NAME, min_size=1, max_size=3).flatmap(
    lambda names: st.sampled_from([names, [*names, f"test_{names[-1]}"]]))


@contextlib.contextmanager
def course_of_its_own(folder: Path) -> Iterator[Path]:
    """A course in `folder` (the working folder meanwhile), and afterwards no trace of its graders in this process:
    the graders' namespace path, the imported modules and the cached collections are put back."""
    import autograder.graders
    from autograder.grader_support.exercise import collect

    (folder / "nbgrader_config.py").write_text(CONFIG)
    path, modules, cwd = list(autograder.graders.__path__), set(sys.modules), Path.cwd()
    os.chdir(folder)
    try:
        yield folder
    finally:
        os.chdir(cwd)
        autograder.graders.__path__[:] = path
        for name in set(sys.modules) - modules:
            del sys.modules[name]
        collect.cache_clear()


def gradebook_limits() -> dict[str, int]:
    """The lengths nbgrader's gradebook gives an assignment's, a notebook's and a grade cell's name."""
    from nbgrader import api

    return {what: table.__table__.c.name.type.length
            for what, table in (("assignment", api.Assignment), ("notebook", api.Notebook), ("cell", api.BaseCell))}


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(assignment=st.one_of(WORD, LONG), exercises=EXERCISES)
@example(assignment="hsa", exercises=["a", "test_a"])
@example(assignment="hsa", exercises=["imports"])
def test_whatever_new_accepts_its_check_passes(assignment, exercises):
    from nbgrader.nbgraderformat import MetadataValidator

    from autograder.authoring.assignment_checks import check_assignment
    from autograder.authoring.scaffold import scaffold
    from autograder.course.settings import read_course
    from autograder.nbgrader_glue.notebook import grade_id

    try:
        validate_names(assignment, exercises)
    except AuthoringError as refused:
        assert "\n" not in str(refused)
        return
    with tempfile.TemporaryDirectory() as scratch, course_of_its_own(Path(scratch)) as course:
        written = scaffold(read_course(course, rooted=True, create_graders=True), assignment, exercises)
        notebook = nbformat.read(str(written[0]), as_version=4)
        MetadataValidator().validate_nb(notebook)  # what nbgrader generate_assignment refuses (a grade id twice)
        limits = gradebook_limits()
        assert len(assignment) <= min(limits["assignment"], limits["notebook"])
        assert all(len(grade_id(cell)) <= limits["cell"] for cell in notebook.cells if "nbgrader" in cell.metadata)
        findings = check_assignment(read_course(course, rooted=True), assignment)
        not_ok = [str(f) for f in findings if f.status != "ok"]
        assert len(not_ok) == 1 and "not released yet" in not_ok[0], not_ok  # the release: the test below


def test_new_then_release_then_check_passes_for_names_at_the_edges(tmp_path, capsys):
    """The real `new` and `check`, once, over an assignment of names at the rule's edges (and the issue's three). The
    release is `autograder release`'s without recording it in the gradebook, which `check` does not read."""
    from autograder.authoring.release_from_source import generate_release
    from autograder.cli import main

    exercises = ["a_np", "a_x", "a_selfcheck", "test_x", "imports_", "e" * 123]
    with course_of_its_own(tmp_path):
        assert main(["new", "edges", *exercises]) == 0
        generate_release(tmp_path / "release", ("edges",), tmp_path)
        capsys.readouterr()
        assert main(["check", "edges"]) == 0
    out = capsys.readouterr().out
    assert "FAIL" not in out and "release/edges is what nbgrader generates" in out
    assert all(f"{e}: grade cell test_{e}" in out for e in exercises)


@pytest.mark.parametrize("names", [["hsa", "e" * 124], ["a" * 129, "step"]])
def test_a_name_too_long_for_the_gradebook_is_refused(names):
    with pytest.raises(AuthoringError, match=r"characters long: .*(gradebook)"):
        validate_names(names[0], names[1:])
