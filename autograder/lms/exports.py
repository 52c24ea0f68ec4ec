"""The export formats by name, and the export `autograder export` writes (nbgrader's export command runs the
same plugins: `lms.export_plugin`)."""

from __future__ import annotations

from pathlib import Path

from .blackboard import BlackboardExport
from .breakdown import BreakdownExport
from .brightspace import BrightspaceExport
from .canvas import CanvasExport
from .export_plugin import LmsExportPlugin
from .format_names import FORMAT_NAMES
from .gradebook import course_rules, open_gradebook, read_gradesheet
from .lms_settings import load
from .moodle import MoodleExport
from .table import Table, default_file, write_atomic

# Every format, by the name `autograder export --to` takes: its plugin, whose `make_table` builds it.
FORMATS: dict[str, type[LmsExportPlugin]] = {
    plugin.format_name: plugin
    for plugin in (CanvasExport, MoodleExport, BlackboardExport, BrightspaceExport, BreakdownExport)
}
# The command line offers FORMAT_NAMES without loading the plugins: a format added to one and not the other
# must fail here, not as a choice the parser refuses or a name with no plugin.
assert tuple(FORMATS) == FORMAT_NAMES, (tuple(FORMATS), FORMAT_NAMES)


def export(course: Path, fmt: str, assignments: list[str], output: Path | None = None,
           skip_missing: bool = False) -> tuple[Path, Table]:
    """Write the `fmt` export of `assignments` for the course; returns the file and what it holds."""
    settings = load(course)
    destination = output if output is not None else course / default_file(fmt)
    with open_gradebook(course) as gradebook:
        sheet = read_gradesheet(gradebook, assignments, course_rules(course))
        table = FORMATS[fmt].make_table(sheet, settings, skip_missing)
    write_atomic(destination, table.to_csv())
    return destination, table
