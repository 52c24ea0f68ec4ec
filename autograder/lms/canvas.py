"""Canvas gradebook import CSV.

Canvas's format: header `Student,ID,SIS User ID,SIS Login ID,Section` then one `Name (id)` column per
assignment, matched to Canvas assignments by the id in parentheses; a second row whose first cell is
`    Points Possible`; one row per student, matched by the Canvas user `ID`; a blank cell means no
score (a non-submitter), never 0.
"""

from __future__ import annotations

from .export_plugin import LmsExportPlugin
from .gradebook import Gradesheet, fmt
from .lms_settings import Settings
from .table import Table, matchable, score_cell

FIXED = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
POINTS_POSSIBLE = "    Points Possible"
KEYS = ("ID", "SIS User ID", "SIS Login ID")  # Canvas finds a student by ID, else by an SIS id


def assignment_ids(sheet: Gradesheet, settings: Settings) -> list[str]:
    return [str(settings.mapping("canvas", "assignments", a.name, required=True)) for a in sheet.assignments]


def table(sheet: Gradesheet, settings: Settings, skip_missing: bool) -> Table:
    ids = assignment_ids(sheet, settings)
    people, skipped = matchable(sheet.people, lambda p: p.lms_user_id, "Canvas", "Canvas user ID (lms_user_id)",
                                skip_missing)
    header = FIXED + [f"{a.name} ({cid})" for a, cid in zip(sheet.assignments, ids, strict=True)]
    rows = [[POINTS_POSSIBLE, "", "", "", ""] + [fmt(a.max_score) for a in sheet.assignments]]
    for p in people:
        scores = [score_cell(sheet.grade(a.name, p.id).score) for a in sheet.assignments]
        rows.append([p.sortable_name, p.lms_user_id, p.sis_user_id, p.login_id, p.section] + scores)
    return Table(header, rows, [p.id for p in people], skipped, keys=KEYS)


class CanvasExport(LmsExportPlugin):
    """Canvas gradebook CSV (Grades > Import)."""

    format_name = "canvas"
    make_table = staticmethod(table)
