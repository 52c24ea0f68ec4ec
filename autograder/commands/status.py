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
    lines, running = report(Path.cwd())
    for line in lines:
        print(line)
    return 0 if running else 1


def report(course: Path) -> tuple[list[str], bool]:
    """The status's lines for the course in `course`, and whether a watcher runs there (also the hub's page of it,
    autograder/hub/status_service.py)."""
    from autograder.display.terminal import visible
    from autograder.watch.watch_status import watch_health

    health = watch_health(course)
    running, status, age = health.running, health.status, health.age_seconds
    if status is None:
        return ["no watcher has run in this course yet" if not running else "a watcher is starting"], running
    head = (f"watcher running (pid {status.pid}), last seen {age:.0f} s ago" if running
            else f"NO WATCHER RUNNING: the last one (pid {status.pid}) stopped or died; its last status is "
                 f"{age:.0f} s old")
    lines = [visible(f"{head}; watching {', '.join(status.assignments)}"),
             f"in the workers' hands: {len(status.in_hand)}; waiting: {status.waiting} (deferred {status.deferred}, "
             f"to retry after a fault {status.failed}); longest wait since submitted: "
             f"{status.oldest_waiting_seconds:.0f} s",
             f"graded: {status.graded}; refused: {status.refused}"]
    for item in sorted(status.in_hand, key=lambda i: -i.seconds)[:20]:
        lines.append(visible(f"  grading {item.student} {item.assignment}: {item.seconds:.0f} s so far"))
    return lines, running
