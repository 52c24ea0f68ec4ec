"""The course's assignments, discovered: every `source/<name>/<name>.ipynb` is one. Nothing names them in code."""

from pathlib import Path


def discover(source: Path) -> tuple[str, ...]:
    """The assignments in a course's source folder (nbgrader's `source/`), sorted by name."""
    if not source.is_dir():
        return ()
    return tuple(sorted(folder.name for folder in source.iterdir()
                        if folder.is_dir() and (folder / f"{folder.name}.ipynb").is_file()))
