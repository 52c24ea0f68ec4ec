"""Our tables in the course's gradebook (the audit trail's, the LMS identities'), made and upgraded by
alembic migrations, as nbgrader's own are: `upgrade` brings them to this release's revision in place, in
SQLite or on a server.

Our revisions are recorded in a version table of our own, `autograder_alembic_version`: nbgrader's
`alembic_version` belongs to its migrations, and `nbgrader db upgrade` must find it as it left it.

The first revision creates each table only where missing, rather than stamping a gradebook that already
has some: the releases before migrations made each table on its first use, so a gradebook they wrote
holds any subset of them (graded but never imported a roster, or the reverse), and create-if-missing
brings every such subset to the same revision without guessing which one it is.

`upgrade` runs whenever a command opens the gradebook to write our tables, so at the newest revision it
costs a fraction of a millisecond in SQLite: the revision is read with the standard library and compared
with the newest file's number in versions/ (a revision's id is the number its file's name begins with),
and SQLAlchemy and alembic load only when there is something to do. On a server the check is a new
connection's price (tens of milliseconds) unless the caller hands over an engine that has one in its pool
(the writer hands nbgrader's); a server database found at the newest revision is not asked again by the
same process.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from autograder.course.settings import database_error, shown_url, sqlite_path

VERSION_TABLE = "autograder_alembic_version"
FOLDER = Path(__file__).resolve().parent
_REVISION_FILE = re.compile(r"^(\d{4})_\w+\.py$")
_at_newest: set[str] = set()  # server databases this process found at the newest revision


class MigrationError(Exception):
    """Our tables cannot be brought to this release's revision; one line, naming the gradebook."""


def revisions() -> list[str]:
    """Our revisions, oldest first: the numbers the files in versions/ begin with."""
    return sorted(m.group(1) for name in os.listdir(FOLDER / "versions") if (m := _REVISION_FILE.match(name)))


def upgrade(gradebook: Any) -> tuple[str | None, str]:
    """Bring our tables in `gradebook` (its database URL, or an SQLAlchemy engine on it) to the newest
    revision; the revision they were at before (None: not made by a migration yet) and the one they are at now.
    An SQLite gradebook's file must exist: this never makes one."""
    newest = revisions()[-1]
    url = gradebook if isinstance(gradebook, str) else gradebook.url.render_as_string(hide_password=False)
    if url in _at_newest:
        return newest, newest
    path = sqlite_path(url)
    if path is not None and _sqlite_revision(path) == newest:
        return newest, newest
    with _engine(gradebook) as engine:
        try:
            with engine.begin() as connection:
                before = _revision(connection)
                if before not in (None, *revisions()):
                    raise MigrationError(f"the gradebook {_where(url)} has our tables at revision {before}, which "
                                         f"this release does not know (its newest is {newest}): upgrade autograder")
                if before != newest:
                    _alembic_upgrade(connection)
        except MigrationError:
            raise
        except Exception as exc:  # the driver's and SQLAlchemy's errors, alembic's
            # Another process may have upgraded it at the same moment, and made the tables first.
            with contextlib.suppress(Exception), engine.connect() as connection:
                if _revision(connection) == newest:
                    return newest, newest
            raise MigrationError(f"cannot upgrade the gradebook {_where(url)}: {database_error(exc)}") from None
    if path is None:
        _at_newest.add(url)
    return before, newest


def alembic_config(connection: Any) -> Any:
    """alembic's configuration of our migrations, run on `connection` (SQLAlchemy's)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(FOLDER))
    config.attributes["connection"] = connection
    return config


def _alembic_upgrade(connection: Any) -> None:
    from alembic import command

    command.upgrade(alembic_config(connection), "head")


def _sqlite_revision(path: str) -> str | None:
    """Read-only: a missing file is an error here, not a new empty database."""
    if not os.path.isfile(path):
        raise MigrationError(f"no gradebook at {path}")
    try:
        with contextlib.closing(sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)) as db:
            if not db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                              (VERSION_TABLE,)).fetchone():
                return None
            found = db.execute(f"SELECT version_num FROM {VERSION_TABLE}").fetchone()
    except sqlite3.Error as exc:
        raise MigrationError(f"{path} is not a readable SQLite gradebook ({database_error(exc)})") from None
    return found[0] if found else None


def _revision(connection: Any) -> str | None:
    # Asked before it is read: on a server, a failed statement would end the transaction.
    from sqlalchemy import inspect, text

    if not inspect(connection).has_table(VERSION_TABLE):
        return None
    return connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar()


@contextlib.contextmanager
def _engine(gradebook: Any) -> Iterator[Any]:
    """The engine given, or one made for the URL given and disposed of after."""
    if not isinstance(gradebook, str):
        yield gradebook
        return
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    try:
        engine = create_engine(gradebook, poolclass=NullPool)
    except Exception as exc:  # a bad URL, a driver not installed
        raise MigrationError(f"cannot open the gradebook {shown_url(gradebook)}: {database_error(exc)}") from None
    try:
        yield engine
    finally:
        engine.dispose()


def _where(url: str) -> str:
    return sqlite_path(url) or shown_url(url)
