"""What became of every file of an LMS archive and every roster student: one row each, bounded.

Rows are listed up to `ROWS_PER_KIND` of one status for one student; past it they are counted by reason in
one row (an archive of 40,000 junk entries is a few rows, not 40,000), and names are shortened for the
table (the archive holds them whole).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

ROWS_PER_KIND = 50  # rows of one status for one student; the rest are counted
SHOWN_CHARS = 300  # of a name in a row: the archive holds it whole

IMPORTED, UPDATED, UNCHANGED = "imported", "updated", "unchanged"
OLDER, NOT_TAKEN, NOT_NOTEBOOK = "older attempt", "not taken", "not a notebook"
UNKNOWN, MISSING, REFUSED, OUTSIDE = "unknown student", "no submission", "refused", "outside the layout"
ORDER = (IMPORTED, UPDATED, UNCHANGED, OLDER, NOT_TAKEN, NOT_NOTEBOOK, UNKNOWN, MISSING, OUTSIDE, REFUSED)


@dataclass(frozen=True)
class Row:
    status: str
    student: str = ""
    lms: str = ""  # the identity the LMS gives, as the archive shows it
    file: str = ""  # the file in the archive
    note: str = ""
    entries: int = 1  # the entries of the archive it stands for (more than one: a count of the unlisted)


def _short(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + f"… ({len(text)} characters)"


@dataclass
class Outcome:
    rows: list[Row] = field(default_factory=list)
    regrade: list[str] = field(default_factory=list)  # changed, but no time to tell `grade` it is newer
    lms_files: int = 0
    _listed: Counter = field(default_factory=Counter)
    _unlisted: dict[tuple[str, str], Counter] = field(default_factory=dict)

    def add(self, row: Row) -> None:
        """One row per entry up to `ROWS_PER_KIND` of a status for a student; past it, counted by reason."""
        key = (row.status, row.student)
        if self._listed[key] < ROWS_PER_KIND:
            self._listed[key] += 1
            self.rows.append(Row(row.status, row.student, _short(row.lms), _short(row.file), _short(row.note)))
        else:
            self._unlisted.setdefault(key, Counter())[row.note.split(";")[0][:SHOWN_CHARS]] += 1

    def finish(self) -> None:
        """The counted rows, then every row in the order of `ORDER`."""
        for (status, student), reasons in self._unlisted.items():
            total = sum(reasons.values())
            why = "; ".join(f"{reason} ({n})" for reason, n in reasons.most_common(3))
            self.rows.append(Row(status, student, file=f"… and {total} more, not listed one by one",
                                 note=why, entries=total))
        self._unlisted.clear()
        self.rows.sort(key=lambda r: (ORDER.index(r.status), r.student, r.entries > 1, r.file))

    def count(self, status: str) -> int:
        return sum(row.entries for row in self.rows if row.status == status)

