"""What a running watcher is doing, for the instructor: written by the watcher about once a second
(`.autograder-watch/status.json`, replaced whole), read by `autograder status` and the class report.
Whether a watcher runs at all is the course lock's to say (`watch.lock`), not this file's age alone."""

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from autograder.watch.lock import held

STATE_FOLDER = ".autograder-watch"  # in the course root: the watcher's lock, ledger and status
LOCK_FILE = "lock"
LEDGER_FILE = "ledger.jsonl"
STATUS_FILE = "status.json"
WRITE_SECONDS = 1.0  # how often the watcher replaces the file


@dataclass
class InHand:
    student: str
    assignment: str
    seconds: float  # since it was collected


@dataclass
class WatchStatus:
    pid: int
    updated: str  # naive UTC, ISO format
    assignments: list[str]
    in_hand: list[InHand] = field(default_factory=list)  # in the workers' hands now
    waiting: int = 0  # read from inbound/, not yet graded or refused (deferred and failed ones included)
    deferred: int = 0  # over the attempts limit, waiting for their slot
    failed: int = 0  # a fault on the grader's side, to be tried again
    graded: int = 0  # since the ledger began
    refused: int = 0
    oldest_waiting_seconds: float = 0.0  # how long the longest-waiting submission has waited since submitted

    def write(self, folder: Path) -> None:
        """Replace the status file whole, so a reader never sees half of one."""
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=".status-")
        with os.fdopen(fd, "w") as file:
            json.dump(asdict(self), file)
        os.replace(temporary, folder / STATUS_FILE)

    @classmethod
    def read(cls, folder: Path) -> "WatchStatus | None":
        """The last status a watcher wrote in `folder`; None when there is none or it cannot be read."""
        try:
            data = json.loads((folder / STATUS_FILE).read_text())
            return cls(**{**data, "in_hand": [InHand(**item) for item in data.get("in_hand", [])]})
        except (OSError, ValueError, TypeError):
            return None


@dataclass
class WatchHealth:
    """What an instructor asks of the watcher: does one run, and how is its queue (`autograder status`, the
    class report)."""

    running: bool
    status: WatchStatus | None  # the last one written; None when no watcher has run in this course

    @property
    def age_seconds(self) -> float:
        """How old the last status is."""
        if self.status is None:
            return 0.0
        updated = datetime.fromisoformat(self.status.updated)
        return max(0.0, (datetime.now(UTC).replace(tzinfo=None) - updated).total_seconds())


def watch_health(course: Path) -> WatchHealth:
    """The watcher's health in the course folder `course`."""
    folder = course / STATE_FOLDER
    return WatchHealth(held(folder / LOCK_FILE), WatchStatus.read(folder))


def status_lines(course: Path) -> tuple[list[str], bool]:
    """`autograder status`'s lines for the course in `course`, and whether a watcher runs there (also the hub's
    page of it, autograder/hub/status_service.py)."""
    from autograder.display.terminal import visible

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
