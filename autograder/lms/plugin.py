"""The base of the `nbgrader export --exporter=autograder.lms.<module>.<Class>` plugins.

Each format module subclasses `LmsExportPlugin` and names its format; the plugin then runs the same
code as `autograder export`, inside nbgrader's own export command.
"""

from __future__ import annotations

from pathlib import Path

from nbgrader.plugins import ExportPlugin
from traitlets import Bool

from .errors import LmsError


class LmsExportPlugin(ExportPlugin):
    """Export the gradebook in an LMS's import format (`--to FILE`, `--assignment=[...]`)."""

    format_name = ""
    skip_missing = Bool(False, help="Leave out students without the LMS identity instead of failing.").tag(
        config=True
    )

    def export(self, gradebook) -> None:
        from autograder.terminal import visible

        from .exports import DEFAULT_NAMES, build_table
        from .settings import load
        from .table import write_atomic

        root = getattr(getattr(self.parent, "coursedir", None), "root", "") or "."
        course = Path(root)
        assignments = [str(a) for a in self.assignment] or sorted(a.name for a in gradebook.assignments)
        destination = Path(self.to or DEFAULT_NAMES[self.format_name])
        try:
            wanted = {str(s) for s in self.student} or None
            table = build_table(self.format_name, gradebook, load(course), assignments, self.skip_missing, wanted)
            write_atomic(destination, table.to_csv())
        except LmsError as exc:
            # nbgrader would print a traceback for an exception; a user's mistake gets one line.
            self.log.error("%s", visible(exc))  # it may quote roster names and ids
            raise SystemExit(1) from None
        for student in table.skipped:
            self.log.warning("skipped %s: no LMS identity", visible(student))
        self.log.info("Wrote %s (%d students)", destination, len(table.students))
