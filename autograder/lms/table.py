"""What every export shares: a table of rows, the students an LMS cannot match, and a safe write.

A file is written to a temporary name beside the target and renamed over it, so an LMS never sees a
half-written export, and a failed export leaves any earlier file as it was.
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .errors import LmsError, MissingIdentity
from .identity import Person


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    students: list[str] = field(default_factory=list)  # nbgrader ids of the students written
    skipped: list[str] = field(default_factory=list)  # nbgrader ids left out (--skip-missing)

    def to_csv(self) -> str:
        buffer = io.StringIO()
        # RFC 4180: CRLF line ends, quotes only where needed; every LMS importer here reads that.
        writer = csv.writer(buffer, lineterminator="\r\n")
        writer.writerow(self.header)
        for row in self.rows:
            if len(row) != len(self.header):  # importers reject ragged rows (Moodle rejects the file)
                raise AssertionError(f"row of {len(row)} fields under a header of {len(self.header)}")
            writer.writerow(row)
        return buffer.getvalue()


def matchable(
    people: tuple[Person, ...] | list[Person],
    identity: Callable[[Person], str],
    lms: str,
    field_name: str,
    skip_missing: bool,
) -> tuple[list[Person], list[str]]:
    """Students the LMS can match, and the ids of those it cannot (an error unless skipping)."""
    missing = [p.id for p in people if not identity(p)]
    if missing and not skip_missing:
        raise MissingIdentity(lms, field_name, missing)
    return [p for p in people if identity(p)], missing


def score_cell(score: float | None) -> str:
    """Blank for no submission: every LMS here reads blank as 'no grade', and 0 as a real zero."""
    from .gradebook import fmt

    return "" if score is None else fmt(score)


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file in the same folder and a rename."""
    path = path.resolve()
    if path.is_dir():
        raise LmsError(f"{path}: is a folder, give a file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise LmsError(f"{path}: cannot write here ({exc.strerror})") from exc
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
