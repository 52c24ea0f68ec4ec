"""What every export shares: a table of rows, the students an LMS cannot match, and a safe write.

A file is written to a temporary name beside the target and renamed over it, so an LMS never sees a
half-written export, and a failed export leaves any earlier file as it was.

Every CSV the project writes goes through `Table.to_csv`, which keeps spreadsheet formulas out of it
(OWASP "CSV Injection"): names, sections and emails come from students and LMS rosters, and an instructor
opens these files in Excel or LibreOffice before uploading them. A text cell a spreadsheet would read as a
formula gets a leading `'`, which spreadsheets take as "this is text", and so does a formula behind a
separator inside the text (`neutralised`); the `'` stays visible to a plain-text reader, the lesser harm.
Numbers we write are left alone: `-2.5` is a number to a spreadsheet, not a formula, and an LMS must read
it as one. The LMSs ignore the columns that may change this way: Canvas finds a student by `ID` (else by
the SIS ids) and does not import `Student` or `Section`; Moodle maps one identifier column and ignores
the columns left unmapped (the names); Blackboard matches on `Username`; Brightspace's ids are written
behind a `#` and never start a formula. An identifier an LMS matches on cannot take a `'` (the LMS would
then match nobody), so one that holds a formula is refused: at roster import, naming the file and line
(`roster.validate`), and, if it reached the gradebook another way, at export (`Table.keys`).

Control characters and Unicode direction controls (ESC, CR, LF, U+202E...) are written out in every cell as
the terminal shows them (`terminal.visible`: `\x1b`, `\r`, `\u202e`), so a file read with `cat` or
`less` cannot be rewritten on screen by a name, and a spreadsheet shows one line per cell; an identifier
the LMS matches on, or a column name, cannot be changed that way and is refused instead.
"""

from __future__ import annotations

import csv
import io
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from autograder.display.terminal import visible

from .errors import LmsError, MissingIdentity
from .identity import Person

# A cell starting with one of these is a formula to Excel, LibreOffice or Google Sheets: OWASP's list, and
# NUL from OWASP's ASVS (5.0, 1.2.10).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\0")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")
# A spreadsheet set to another separator (`;` in much of Europe, tab) splits a field where we did not, and
# honours our quotes only around a whole field: the text after a separator or a line end inside a field can
# start a cell of its own (OWASP's note on separators), so a formula there is neutralised too.
_AFTER_SEPARATOR = re.compile(r"""([,;\t\r\n][\s"]*)(?=[=+\-@])""")


def _no_formula(value: str) -> str:
    if _NUMBER.fullmatch(value):
        return value
    value = _AFTER_SEPARATOR.sub(r"\1'", value)
    return "'" + value if value.startswith(FORMULA_START) else value


def neutralised(value: str) -> str:
    """`value` as a CSV cell a spreadsheet shows as text and never runs, its control characters written out
    (see the module's docstring)."""
    return _no_formula(visible(value))


def looks_like_formula(value: str) -> bool:
    """True for text a spreadsheet could run part of."""
    return _no_formula(value) != value


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    students: list[str] = field(default_factory=list)  # nbgrader ids of the students written
    skipped: list[str] = field(default_factory=list)  # nbgrader ids left out (--skip-missing)
    keys: tuple[str, ...] = ()  # the columns the LMS matches students on: written unchanged or refused

    def to_csv(self) -> str:
        """Formulas neutralised in the rows; the header is ours and the instructor's (column names and the
        ids the LMS matches columns on) and is written as it is."""
        buffer = io.StringIO()
        # RFC 4180: CRLF line ends, quotes only where needed; every LMS importer here reads that.
        writer = csv.writer(buffer, lineterminator="\r\n")
        for name in self.header:
            if visible(name) != name:
                raise LmsError(f"the export's column {visible(name)!r} holds control characters: the LMS matches "
                               "columns by name, so it cannot be escaped; rename it in lms.toml or the gradebook")
        writer.writerow(self.header)
        keys = [i for i, name in enumerate(self.header) if name in self.keys]
        for number, row in enumerate(self.rows, start=2):
            if len(row) != len(self.header):  # importers reject ragged rows (Moodle rejects the file)
                raise AssertionError(f"row of {len(row)} fields under a header of {len(self.header)}")
            for i in keys:
                if visible(row[i]) != row[i]:
                    raise LmsError(
                        f"line {number} of the export: {self.header[i]} {visible(row[i])!r} holds control "
                        "characters; the LMS matches students on it, so it cannot be escaped: give that student "
                        "another one in the gradebook"
                    )
                if looks_like_formula(row[i]):
                    raise LmsError(
                        f"line {number} of the export: {self.header[i]} {row[i]!r} holds what a spreadsheet "
                        "runs as a formula; the LMS matches students on it, so it cannot be escaped: give that "
                        "student another one in the gradebook"
                    )
            writer.writerow([neutralised(value) for value in row])
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


def default_file(fmt: str) -> str:
    """Where an export in format `fmt` is written unless told, from the course folder."""
    return f"exports/{fmt}.csv"


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
