"""Brightspace (D2L) grades import CSV (Grades > Enter Grades > Import).

Key columns first: `OrgDefinedId` and/or `Username`, their values written with a leading `#` as
Brightspace's own export does (the `#` is not part of the data; it stops spreadsheets from eating
leading zeros). One `<Item> Points Grade <Numeric MaxPoints:N>` column per item, and a final
`End-of-Line Indicator` column of `#`, which lets a blank last grade (a non-submitter) import as blank.
"""

from __future__ import annotations

from .export_plugin import LmsExportPlugin
from .gradebook import Gradesheet, fmt
from .lms_settings import Settings
from .table import Table, matchable, score_cell

KEYS = {"OrgDefinedId": ("sis_user_id",), "Username": ("login_id",), "both": ("sis_user_id", "login_id")}
KEY_HEADERS = {"sis_user_id": "OrgDefinedId", "login_id": "Username"}
END_OF_LINE = "End-of-Line Indicator"


def table(sheet: Gradesheet, settings: Settings, skip_missing: bool) -> Table:
    key = settings.choice("brightspace", "key", "OrgDefinedId", tuple(KEYS))
    fields = KEYS[key]
    people, skipped = matchable(sheet.people, lambda p: all(p.get(f) for f in fields), "Brightspace",
                                " and ".join(f"{KEY_HEADERS[f]} ({f})" for f in fields), skip_missing)
    header = [KEY_HEADERS[f] for f in fields]
    for a in sheet.assignments:
        item = settings.mapping("brightspace", "items", a.name, required=False) or a.name
        header.append(f"{item} Points Grade <Numeric MaxPoints:{fmt(a.max_score)}>")
    header.append(END_OF_LINE)
    rows = [
        [f"#{p.get(f)}" for f in fields]
        + [score_cell(sheet.grade(a.name, p.id).score) for a in sheet.assignments]
        + ["#"]
        for p in people
    ]
    return Table(header, rows, [p.id for p in people], skipped)


class BrightspaceExport(LmsExportPlugin):
    """Brightspace grades import CSV."""

    format_name = "brightspace"
    make_table = staticmethod(table)
