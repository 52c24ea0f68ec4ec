"""Regenerate a course's `release/` from `source/` with `nbgrader generate_assignment`, and record each assignment
in the course's gradebook (`autograder release` in any course folder, `make release` in this repository).

The release is generated in a scratch copy of the course, so it is exactly what nbgrader makes from the
source alone; the assignment is then added to (or brought up to date in) the course's own gradebook, so
`nbgrader autograde` and `autograder grade` work right after.
"""

import shutil
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path

from autograder.authoring.selfcheck_mistakes import refresh_selfchecks
from autograder.course.course_copy import copy_course
from autograder.course.nbgrader_cli import CourseError, nbgrader


def generate_release(destination: Path, assignments: tuple[str, ...], root: Path) -> None:
    """Write `destination/<assignment>/` for each assignment of the course in `root`, exactly as nbgrader
    generates it."""
    # The self-checks' table of known mistakes comes from the graders' tables: brought up to date first.
    refresh_selfchecks(root / "source", assignments)
    with tempfile.TemporaryDirectory(prefix="release-") as scratch:
        course = copy_course(root, Path(scratch), assignments)
        gradebook = f"--CourseDirectory.db_url={scratch_gradebook(course)}"
        for assignment in assignments:
            nbgrader(course, "generate_assignment", assignment, "--force", gradebook)
            target = destination / assignment
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(course / "release" / assignment, target)


def scratch_gradebook(course: Path) -> str:
    """The scratch copy's own gradebook, thrown away with it: never the course's, which the copied settings may
    name (a server, a file elsewhere). nbgrader stamps a database without tables by running `alembic heads`, a
    process that imports nbgrader (1-2 CPU-seconds each release); one holding an empty alembic_version table
    counts as made, and nbgrader adds its own tables to it."""
    path = course / "gradebook.db"
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")
        db.commit()
    return f"sqlite:///{path}"


def release(root: Path, assignments: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Release the course's assignments (default: every one discovered) and record them in its gradebook."""
    from autograder.course.settings import read_course
    from autograder.grading.assignment import record_assignment

    settings = read_course(root, rooted=True)
    unknown = [a for a in assignments if a not in settings.assignments]
    if unknown:
        raise CourseError(f"no source/{unknown[0]}/{unknown[0]}.ipynb in {settings.root}")
    assignments = assignments or settings.assignments
    generate_release(settings.path("release", ".", ".").resolve(), assignments, settings.root)
    for assignment in assignments:
        record_assignment(settings, assignment)
    return assignments

