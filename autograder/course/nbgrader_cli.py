"""nbgrader's own commands, run inside a course folder."""

import os
import subprocess
import sys
from pathlib import Path


class CourseError(Exception):
    """An operational problem with the course folder; the message is one line for the user."""


def tools_on_path() -> None:
    """Put this interpreter's bin/ on PATH: nbgrader runs the `alembic` command when it creates a gradebook,
    and an instructor may call `.venv/bin/autograder` without activating the venv."""
    bin_dir = str(Path(sys.executable).parent)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")


def nbgrader(course: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run an nbgrader command in `course`."""
    tools_on_path()
    command = [sys.executable, "-m", "nbgrader", *args]
    done = subprocess.run(command, cwd=course, capture_output=True, text=True)
    if check and done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        raise CourseError(f"`nbgrader {' '.join(args)}` failed in {course}:\n{tail}")
    return done
