"""The course's assignments, discovered: every `source/<name>/<name>.ipynb` is one. Nothing names them in code."""

import shutil
from pathlib import Path


def discover(source: Path) -> tuple[str, ...]:
    """The assignments in a course's source folder (nbgrader's `source/`), sorted by name."""
    if not source.is_dir():
        return ()
    return tuple(sorted(folder.name for folder in source.iterdir()
                        if folder.is_dir() and (folder / f"{folder.name}.ipynb").is_file()))


def copy_course(root: Path, destination: Path, assignments: tuple[str, ...]) -> Path:
    """A fresh course folder with `root`'s nbgrader_config.py and the given assignments' sources (no gradebook)."""
    from autograder.course.settings import CONFIG_FILE

    destination.mkdir(parents=True, exist_ok=True)
    shutil.copy(root / CONFIG_FILE, destination / CONFIG_FILE)
    for assignment in assignments:
        source = root / "source" / assignment
        if source.is_dir():
            shutil.copytree(source, destination / "source" / assignment,
                            ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    return destination
