"""A plain CSV with every score and its parts: one row per (assignment, student), one column per exercise.

The totals follow `nbgrader export`'s CSV (raw score, late penalty, score = max(0, raw - penalty));
unlike it, a non-submitter has status `missing` and blank scores rather than zeros. Exercise columns
are named `<notebook>/<grade cell>`; a column of another assignment is blank.
"""

from __future__ import annotations

from .export_plugin import LmsExportPlugin
from .gradebook import Gradesheet, fmt
from .lms_settings import Settings
from .table import Table, score_cell

FIXED = ["student_id", "first_name", "last_name", "email", "lms_user_id", "assignment", "status",
         "timestamp", "seconds_late", "raw_score", "late_penalty", "score", "max_score"]


def table(sheet: Gradesheet, settings: Settings, skip_missing: bool) -> Table:
    columns = [(a.name, e.notebook, e.cell) for a in sheet.assignments for e in a.exercises]
    header = FIXED + [f"{notebook}/{cell}" for _, notebook, cell in columns]
    rows = []
    for a in sheet.assignments:
        for p in sheet.people:
            g = sheet.grade(a.name, p.id)
            status = g.status
            earned = {(e.notebook, e.cell): e.score for e in g.exercises}
            row = [p.id, p.first_name, p.last_name, p.email, p.lms_user_id, a.name, status,
                   g.timestamp.isoformat() if g.timestamp else "",
                   fmt(g.seconds_late) if g.submitted else "",
                   score_cell(g.raw_score), fmt(g.late_penalty) if g.submitted else "",
                   score_cell(g.score), fmt(a.max_score)]
            row += [score_cell(earned.get((nb, cell))) if name == a.name else "" for name, nb, cell in columns]
            rows.append(row)
    return Table(header, rows, [p.id for p in sheet.people], [])


class BreakdownExport(LmsExportPlugin):
    """Per-exercise CSV of every student and assignment."""

    format_name = "csv"
    make_table = staticmethod(table)
