"""The gradebook's two homes in the tests: an SQLite file in the course folder (nbgrader's default) and a
database on the session's PostgreSQL server (`tests.postgres`). Tests that read the gradebook's rows
read them through these, so one test body checks both."""

import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

DATABASES = ("sqlite", "postgresql")
_EPOCH = datetime(1970, 1, 1)


def point_course_at(course: Path, db_url: str) -> None:
    """Make `db_url` the course's gradebook (the last setting in nbgrader_config.py wins)."""
    with open(course / "nbgrader_config.py", "a") as config:
        config.write(f"\nc.CourseDirectory.db_url = {db_url!r}\n")


def connect(db_url: str) -> Any:
    """A plain DB-API connection to the gradebook (no SQLAlchemy, no nbgrader)."""
    if db_url.startswith("sqlite:///"):
        return sqlite3.connect(db_url.removeprefix("sqlite:///"))
    import psycopg

    return psycopg.connect(db_url)


def as_sqlite_stores(value: Any) -> Any:
    """A value read from PostgreSQL as SQLAlchemy stores it in SQLite (times as text, an interval as a
    time after the epoch, booleans as integers), so that both databases' rows compare equal."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")
    if isinstance(value, timedelta):
        return as_sqlite_stores(_EPOCH + value)
    return value


def query(db_url: str, sql: str) -> list[tuple]:
    connection = connect(db_url)
    try:
        return [tuple(as_sqlite_stores(v) for v in row) for row in connection.execute(sql).fetchall()]
    finally:
        connection.close()
