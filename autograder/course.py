"""The course on disk: its assignments, folders, and nbgrader commands run inside it."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

ASSIGNMENTS = ("hidden_state_activation", "rnn_update_equations")
ROOT = Path(__file__).resolve().parent.parent


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


def new_course(destination: Path, assignments: tuple[str, ...] = ASSIGNMENTS) -> Path:
    """A fresh course folder with the config and the given assignments' sources (no gradebook yet)."""
    destination.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "nbgrader_config.py", destination / "nbgrader_config.py")
    for assignment in assignments:
        source = ROOT / "source" / assignment
        if source.is_dir():
            shutil.copytree(source, destination / "source" / assignment,
                            ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    return destination


def available_assignments() -> tuple[str, ...]:
    return tuple(a for a in ASSIGNMENTS if (ROOT / "source" / a / f"{a}.ipynb").is_file())
