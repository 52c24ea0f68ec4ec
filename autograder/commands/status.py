"""`autograder status`: whether a watcher runs for this course, and what it is doing: the submissions in its
workers' hands (and for how long), how many wait (deferred, or to be retried after a fault of ours), how long the
longest has waited, and how many were graded and refused. Run in the course root. Exit status 0 when a watcher
runs, 1 when none does (so a service check can use it)."""

import argparse
from pathlib import Path

from autograder.cli import UserError, add_command


def register(subparsers: argparse._SubParsersAction) -> None:
    add_command(subparsers, "status", run, "whether `autograder watch` runs for this course, and its queue", __doc__)


def run(args: argparse.Namespace) -> int:
    if not (Path.cwd() / "nbgrader_config.py").is_file():
        raise UserError(f"no nbgrader_config.py in {Path.cwd()}: run this in the course folder")
    from autograder.watch.watch_status import status_lines

    lines, running = status_lines(Path.cwd())
    for line in lines:
        print(line)
    return 0 if running else 1
