"""Moodle grade import CSV (Grades > Import > CSV file).

Moodle maps one identifier column (email, username, ID number or user id) to its users at import and
each remaining column to a grade item or to an item's feedback; rows of unequal length make Moodle
reject the whole file. Blank grade cells are skipped by the import, so non-submitters stay ungraded.
"""

from __future__ import annotations

from .export_plugin import LmsExportPlugin
from .gradebook import Gradesheet
from .lms_settings import Settings
from .table import Table, matchable, score_cell

# settings value -> (roster field, the header Moodle's own export uses for it)
IDENTIFIERS = {
    "email": ("email", "Email address"),
    "username": ("login_id", "Username"),
    "idnumber": ("sis_user_id", "ID number"),
    "userid": ("lms_user_id", "User ID"),
}


def table(sheet: Gradesheet, settings: Settings, skip_missing: bool) -> Table:
    key = settings.choice("moodle", "identifier", "email", tuple(IDENTIFIERS))
    field, column = IDENTIFIERS[key]
    people, skipped = matchable(sheet.people, lambda p: p.get(field), "Moodle", f"{field} (moodle identifier "
                                f"{key})", skip_missing)
    items = [settings.mapping("moodle", "items", a.name, required=False) or a.name for a in sheet.assignments]
    header = [column, "First name", "Last name"]
    for item in items:
        header += [item, f"{item} (Feedback)"]
    rows = []
    for p in people:
        row = [p.get(field), p.first_name, p.last_name]
        for a in sheet.assignments:
            grade = sheet.grade(a.name, p.id)
            row += [score_cell(grade.score), grade.summary() if grade.submitted else ""]
        rows.append(row)
    return Table(header, rows, [p.id for p in people], skipped, keys=(column,))


class MoodleExport(LmsExportPlugin):
    """Moodle grade import CSV with one feedback column per assignment."""

    format_name = "moodle"
    make_table = staticmethod(table)
