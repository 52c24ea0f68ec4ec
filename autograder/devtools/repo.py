"""This repository: its assignments' sources, and scratch courses made from them (demo, release, bench, tests)."""

import shutil
from pathlib import Path

ASSIGNMENTS = ("hidden_state_activation", "rnn_update_equations")
ROOT = Path(__file__).resolve().parents[2]


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
