"""The reconciliation of an import: every file of the archive and every roster student, one row each,
printed as a table and saved as CSV (through `Table.to_csv`, which keeps spreadsheet formulas out: the
names and files come from students)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich import box
from rich.table import Table as RichTable

from autograder.display.terminal import cell
from autograder.lms.table import Table, write_atomic

from .outcome import ORDER, Outcome, Row

HEADER = ["status", "student", "LMS identity", "file in the archive", "note"]


def rich_table(rows: Sequence[Row], title: str) -> RichTable:
    table = RichTable(title=cell(title), box=box.SIMPLE_HEAD, title_justify="left", show_edge=False,
                      pad_edge=False)
    for name in HEADER:
        table.add_column(name, overflow="fold")
    for row in rows:
        table.add_row(cell(row.status), cell(row.student or "—"), cell(row.lms or "—"), cell(row.file or "—"),
                      cell(row.note))
    return table


def counts(outcome: Outcome) -> str:
    return ", ".join(f"{outcome.count(status)} {status}" for status in ORDER if outcome.count(status))


def write_csv(path: Path, outcome: Outcome) -> None:
    rows = [[row.status, row.student, row.lms, row.file, row.note] for row in outcome.rows]
    write_atomic(path, Table(HEADER, rows).to_csv())
