"""A scratch copy of a course: its `nbgrader_config.py` and some assignments' sources, nothing it generated."""

import shutil
from pathlib import Path

from autograder.course.settings import CONFIG_FILE


def copy_course(root: Path, destination: Path, assignments: tuple[str, ...]) -> Path:
    """A fresh course folder with `root`'s nbgrader_config.py and the given assignments' sources (no gradebook)."""
    destination.mkdir(parents=True, exist_ok=True)
    shutil.copy(root / CONFIG_FILE, destination / CONFIG_FILE)
    for assignment in assignments:
        source = root / "source" / assignment
        if source.is_dir():
            shutil.copytree(source, destination / "source" / assignment,
                            ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    return destination
