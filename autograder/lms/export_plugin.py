"""The base of the `nbgrader export --exporter=autograder.lms.<module>.<Class>` plugins.

Each format module subclasses `LmsExportPlugin`, names its format and gives the function that builds its
table; `lms.exports.FORMATS` lists them. The plugin builds the same table as `autograder export`, inside
nbgrader's own export command.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from nbgrader.plugins import ExportPlugin
from traitlets import Bool

from .errors import LmsError
from .gradebook import Gradesheet, course_rules, read_gradesheet
from .lms_settings import Settings, load
from .table import Table, default_file, write_atomic


class LmsExportPlugin(ExportPlugin):
    """Export the gradebook in an LMS's import format (`--to FILE`, `--assignment=[...]`)."""

    format_name = ""  # as `autograder export --to` names it
    make_table: Callable[[Gradesheet, Settings, bool], Table]  # (sheet, lms.toml's settings, skip_missing)
    skip_missing = Bool(False, help="Leave out students without the LMS identity instead of failing.").tag(
        config=True
    )

    def export(self, gradebook) -> None:
        from autograder.display.terminal import visible

        root = getattr(getattr(self.parent, "coursedir", None), "root", "") or "."
        course = Path(root)
        assignments = [str(a) for a in self.assignment] or sorted(a.name for a in gradebook.assignments)
        destination = Path(self.to or default_file(self.format_name))
        try:
            wanted = {str(s) for s in self.student} or None
            sheet = read_gradesheet(gradebook, assignments, course_rules(course)).only(wanted)
            table = self.make_table(sheet, load(course), self.skip_missing)
            write_atomic(destination, table.to_csv())
        except LmsError as exc:
            # nbgrader would print a traceback for an exception; a user's mistake gets one line.
            self.log.error("%s", visible(exc))  # it may quote roster names and ids
            raise SystemExit(1) from None
        for student in table.skipped:
            self.log.warning("skipped %s: no LMS identity", visible(student))
        self.log.info("Wrote %s (%d students)", destination, len(table.students))
