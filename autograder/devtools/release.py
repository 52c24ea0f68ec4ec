"""Regenerate `release/` from `source/` with `nbgrader generate_assignment` (run by `make release`).

nbgrader runs in a scratch copy of the course so the repository never gains a gradebook; the release it
writes replaces the committed one.
"""

import shutil
import sys
import tempfile
from pathlib import Path

from autograder.course.nbgrader_cli import CourseError, nbgrader
from autograder.devtools.repo import ROOT, available_assignments, new_course


def generate_release(destination: Path, assignments: tuple[str, ...] | None = None) -> None:
    """Write `destination/<assignment>/` for each assignment, exactly as nbgrader generates it."""
    assignments = assignments or available_assignments()
    with tempfile.TemporaryDirectory(prefix="release-") as scratch:
        course = new_course(Path(scratch), assignments)
        for assignment in assignments:
            nbgrader(course, "generate_assignment", assignment, "--force")
            target = destination / assignment
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(course / "release" / assignment, target)


def main() -> int:
    try:
        generate_release(ROOT / "release")
    except CourseError as exc:
        print(f"release: {exc}", file=sys.stderr)
        return 1
    for assignment in available_assignments():
        print(f"release/{assignment}/ regenerated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
