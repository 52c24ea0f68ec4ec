"""`autograder db upgrade`: bring our tables in the course's gradebook to this release's revision.

Each command that writes our tables (the audit trail's, the LMS identities') upgrades them first on its
own; this does it on purpose (after installing a new release, before a class), and says the revision
before and after. nbgrader's tables are upgraded by nbgrader: `nbgrader db upgrade`.
"""

import argparse
from pathlib import Path

from autograder.cli import add_command, first_paragraph


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("db", description=first_paragraph(__doc__), help="the gradebook's tables of our own")
    actions = parser.add_subparsers(dest="action", required=True)
    add_command(actions, "upgrade", run_upgrade, "bring our tables in the gradebook to this release's revision",
                __doc__)


def run_upgrade(args: argparse.Namespace) -> int:
    from autograder.cli import UserError
    from autograder.course.settings import SettingsError, read_course, shown_url, sqlite_path
    from autograder.migrations import MigrationError, upgrade

    try:
        settings = read_course(Path.cwd())
        where = sqlite_path(settings.db_url) or shown_url(settings.db_url)
        tables = settings.gradebook_tables()  # without making one, as nbgrader's Gradebook would
        if tables is None:
            raise UserError(f"no gradebook at {where}: nothing to upgrade")
        if "grade" not in tables:
            raise UserError(f"{where} is not an nbgrader gradebook (no grade tables)")
        before, after = upgrade(settings.db_url)
    except (SettingsError, MigrationError) as exc:
        raise UserError(str(exc)) from None
    note = " (already the newest)" if before == after else ""
    print(f"{where}: our tables at revision {before or 'none'} -> {after}{note}")
    return 0
