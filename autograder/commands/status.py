"""`autograder status`: whether a watcher runs for this course, and what it is doing: the submissions in its
workers' hands (and for how long), how many wait (deferred, or to be retried after a fault of ours), how long the
longest has waited, and how many were graded and refused. Run in the course root. Exit status 0 when a watcher
runs, 1 when none does (so a service check can use it)."""

import argparse
import fcntl
import os
from datetime import UTC, datetime
from pathlib import Path

from autograder.cli import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("status", help="whether `autograder watch` runs for this course, and its queue",
                                   description=__doc__.splitlines()[0])
    parser.set_defaults(run=run)


def watcher_running(lock: Path) -> bool:
    """The watcher holds the course lock for its lifetime; if it can be taken here, none runs."""
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def run(args: argparse.Namespace) -> int:
    from autograder.commands.watch import STATE_FOLDER
    from autograder.terminal import visible
    from autograder.watch.status import WatchStatus

    folder = Path.cwd() / STATE_FOLDER
    if not (Path.cwd() / "nbgrader_config.py").is_file():
        raise UserError(f"no nbgrader_config.py in {Path.cwd()}: run this in the course folder")
    running = watcher_running(folder / "lock")
    status = WatchStatus.read(folder)
    if status is None:
        print("no watcher has run in this course yet" if not running else "a watcher is starting")
        return 0 if running else 1
    age = (datetime.now(UTC).replace(tzinfo=None) - datetime.fromisoformat(status.updated)).total_seconds()
    head = (f"watcher running (pid {status.pid}), last seen {age:.0f} s ago" if running
            else f"NO WATCHER RUNNING: the last one (pid {status.pid}) stopped or died; its last status is "
                 f"{age:.0f} s old")
    print(visible(f"{head}; watching {', '.join(status.assignments)}"))
    print(f"in the workers' hands: {len(status.in_hand)}; waiting: {status.waiting} (deferred {status.deferred}, "
          f"to retry after a fault {status.failed}); longest wait since submitted: "
          f"{status.oldest_waiting_seconds:.0f} s")
    print(f"graded: {status.graded}; refused: {status.refused}")
    for item in sorted(status.in_hand, key=lambda i: -i.seconds)[:20]:
        print(visible(f"  grading {item.student} {item.assignment}: {item.seconds:.0f} s so far"))
    return 0 if running else 1
