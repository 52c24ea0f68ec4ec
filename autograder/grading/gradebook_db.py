"""The gradebook as the writer and the audit trail reach it: a DB-API connection with the SQL dialect details
they need (a grade's arithmetic is `grades.arithmetic`'s)."""

import os
import re
import sqlite3
from datetime import datetime, timedelta
from typing import Any

from autograder.course.settings import cannot_open, database_error, sqlite_path
from autograder.migrations import MigrationError, upgrade


class GradebookError(Exception):
    """The gradebook cannot be used (locked, unreadable); a one-line message."""


# Where SQLite's Interval values are counted from (see `read_interval`).
_EPOCH = datetime(1970, 1, 1)


class GradebookDatabase:
    """A DB-API connection to the gradebook, the SQL dialect details the writer needs, and nothing else.
    The writer's SQL names its parameters (`:name`), as sqlite3 takes them; for other drivers they are
    rewritten to `%(name)s`."""

    def __init__(self, connection: Any, sqlite: bool, errors: tuple[type[BaseException], ...],
                 closing: Any = None) -> None:
        """`closing`: what else to close after the connection (SQLAlchemy's engine, when it opened it)."""
        self.connection, self.sqlite, self.errors = connection, sqlite, errors
        self._closing = closing
        self._sql: dict[str, str] = {}

    @classmethod
    def open(cls, db_url: str, course_id: str, lock_seconds: float) -> "GradebookDatabase":
        """The gradebook, with our tables (the audit trail's) brought to this release's revision first, before
        the writer's connection holds any lock."""
        path = sqlite_path(db_url)
        if path is not None and os.path.isfile(path):
            try:
                upgrade(db_url)
                return cls(sqlite3.connect(path, timeout=lock_seconds), True, (sqlite3.DatabaseError,))
            except MigrationError as exc:
                raise GradebookError(str(exc)) from None
            except sqlite3.Error as exc:
                raise GradebookError(f"cannot open the gradebook {db_url}: {database_error(exc)}") from None
        return cls._open_with_nbgrader(db_url, course_id, lock_seconds)

    @classmethod
    def _open_with_nbgrader(cls, db_url: str, course_id: str, lock_seconds: float) -> "GradebookDatabase":
        from nbgrader.api import Gradebook  # nbgrader's ORM and SQLAlchemy: not for an SQLite gradebook

        try:
            gb = Gradebook(db_url, course_id)  # creates the tables of a new gradebook, and the course's row
            gb.db.remove()  # its session's connection (and, in SQLite, its read lock) goes back to the pool
            upgrade(gb.engine)  # on that pooled connection: a server's new connection costs tens of milliseconds
            connection = gb.engine.raw_connection()
            dialect = gb.engine.dialect
            if dialect.name == "sqlite":
                connection.cursor().execute(f"PRAGMA busy_timeout = {int(lock_seconds * 1000)}")
            elif dialect.name == "postgresql":
                # A statement waiting for another session's lock (a row it is writing, a table it locked)
                # gives up after this long, as SQLite's busy timeout does. Committed: a rolled-back SET is undone.
                connection.cursor().execute(f"SET lock_timeout = {max(int(lock_seconds * 1000), 1)}")
                connection.commit()
        except MigrationError as exc:
            raise GradebookError(str(exc)) from None
        except Exception as exc:  # SQLAlchemy's errors, the driver's own (raw connection), a driver not installed
            raise GradebookError(cannot_open(db_url, exc)) from None
        return cls(connection, dialect.name == "sqlite", (dialect.dbapi.DatabaseError,), gb.engine.dispose)

    def close(self) -> None:
        self.connection.close()
        if self._closing:
            self._closing()

    def is_lock_error(self, exc: BaseException) -> bool:
        """Whether `exc` says another program held a lock too long: SQLite's "database is locked", or on a
        server the SQLSTATE of a lock timeout (55P03) or of a deadlock it broke by cancelling us (40P01)."""
        if self.sqlite:
            return "locked" in str(exc)
        return getattr(exc, "sqlstate", None) in ("55P03", "40P01")

    def _statement(self, sql: str) -> str:
        if self.sqlite:
            return sql
        if sql not in self._sql:
            self._sql[sql] = re.sub(r":(\w+)", r"%(\1)s", sql.replace("%", "%%"))
        return self._sql[sql]

    def rows(self, sql: str, params: dict[str, Any] | None = None) -> list[tuple]:
        cursor = self.connection.cursor()
        cursor.execute(self._statement(sql), params or {})
        return cursor.fetchall()

    def write(self, sql: str, rows: list[dict[str, Any]]) -> None:
        self.connection.cursor().executemany(self._statement(sql), rows)

    # Times as SQLAlchemy's types keep them: SQLite has none, so DateTime is text and Interval a DateTime
    # counted from the epoch; other databases take and give Python's datetime and timedelta.
    def time_value(self, value: datetime | None) -> Any:
        if value is None or not self.sqlite:
            return value
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")

    def read_time(self, value: Any) -> datetime | None:
        return datetime.fromisoformat(value) if isinstance(value, str) else value

    def read_interval(self, value: Any) -> timedelta | None:
        return datetime.fromisoformat(value) - _EPOCH if isinstance(value, str) else value
