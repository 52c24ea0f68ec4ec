"""What the watcher did with each submission in the exchange, kept across restarts: an append-only file of
JSON lines beside the gradebook, synced before the watcher moves on. A submission's last line is its state.

`graded` and `refused` are final: such a submission is never graded again. `deferred` (over the attempts
limit) and `failed` (a fault on our side) are waiting: graded when their time comes, and never counted as
attempts.
"""

import json
import os
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

FINAL = ("graded", "refused")


def utcnow() -> datetime:
    """The ledger's clock: naive UTC, as its records and nbgrader's timestamps hold times."""
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass
class Record:
    name: str  # the submission's folder in inbound/
    state: str  # graded, refused, deferred or failed
    at: str  # when the watcher wrote this (naive UTC, ISO)
    student: str = ""
    assignment: str = ""
    time: str = ""  # the submission's time (ISO)
    score: float | None = None
    max_score: float | None = None
    until: str = ""  # deferred or failed: not before then (ISO)
    note: str = ""
    feedback: list[str] = field(default_factory=list)  # graded: its pages' file names in the exchange
    # graded: the misconceptions the graders named, by grade cell (the class report counts every attempt's,
    # while autograded/ keeps only the one that counts)
    hints: dict[str, list[str]] = field(default_factory=dict)
    # graded after the student's last late deadline, where the course makes such work practice: it has feedback,
    # and never counts for the grade (`standing.counted` passes over it)
    practice: bool = False


def read_ledger(path: Path) -> dict[str, Record]:
    """Each submission's last record; a line cut short by a crash is skipped (the submission is looked at
    again). Nothing is created: the class report reads a course where no watcher ran."""
    last: dict[str, Record] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return last
    for line in text.splitlines():
        try:
            record = Record(**json.loads(line))
        except (ValueError, TypeError):
            continue
        last[record.name] = record
    return last


class Ledger:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.last = read_ledger(path)
        self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - open for the watcher's lifetime

    def close(self) -> None:
        self._file.close()

    def write(self, record: Record) -> None:
        self.write_many([record])

    def write_many(self, records: list[Record]) -> None:
        """Append `records` and sync the file once: a flood of refusals costs one sync, not one each."""
        self._file.write("".join(json.dumps(asdict(record), ensure_ascii=True) + "\n" for record in records))
        self._file.flush()
        os.fsync(self._file.fileno())
        for record in records:
            self.last[record.name] = record

    def final(self, name: str) -> bool:
        record = self.last.get(name)
        return record is not None and record.state in FINAL

    def graded(self, student: str, assignment: str) -> list[Record]:
        return [r for r in self.last.values()
                if r.state == "graded" and r.student == student and r.assignment == assignment]

    def graded_times(self, student: str, assignment: str) -> list[datetime]:
        return [datetime.fromisoformat(r.at) for r in self.graded(student, assignment)]
