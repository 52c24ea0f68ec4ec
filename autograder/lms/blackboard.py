"""Blackboard Learn Grade Center upload CSV (Work Offline > Upload).

Blackboard matches students by the required `Username` column and grade columns by the `|<column id>`
at the end of headers such as `PS1 [Total Pts: 10 Score] |123456`; a header without an id would
create a new column on every upload, so the id is required. Blank cells leave a grade unchanged.
"""

from __future__ import annotations

from .export_plugin import LmsExportPlugin
from .gradebook import Gradesheet, fmt
from .lms_settings import IDENTITY_CHOICES, Settings
from .table import Table, matchable, score_cell

FIXED = ["Last Name", "First Name", "Username", "Student ID"]


def table(sheet: Gradesheet, settings: Settings, skip_missing: bool) -> Table:
    username = settings.choice("blackboard", "username", "login_id", IDENTITY_CHOICES)
    people, skipped = matchable(sheet.people, lambda p: p.get(username), "Blackboard",
                                f"Username ({username})", skip_missing)
    header = list(FIXED)
    for a in sheet.assignments:
        column = str(settings.mapping("blackboard", "columns", a.name, required=True)).lstrip("|")
        name = settings.mapping("blackboard", "names", a.name, required=False) or a.name
        header.append(f"{name} [Total Pts: {fmt(a.max_score)} Score] |{column}")
    rows = [
        [p.last_name, p.first_name, p.get(username), p.sis_user_id]
        + [score_cell(sheet.grade(a.name, p.id).score) for a in sheet.assignments]
        for p in people
    ]
    return Table(header, rows, [p.id for p in people], skipped, keys=("Username",))


class BlackboardExport(LmsExportPlugin):
    """Blackboard Learn Grade Center CSV."""

    format_name = "blackboard"
    make_table = staticmethod(table)
