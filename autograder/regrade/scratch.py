"""`regrade --dry-run`: the whole regrade, run on a scratch copy of the course's grades.

The gradebook is copied into an SQLite file in a temporary folder (an SQLite gradebook by SQLite's online
backup, which only reads the original; one on a server by reading nbgrader's tables in one repeatable-read
transaction), and `autograded/` is redirected there too. The regrade then runs as it would for real, and
what it shows is exactly what it would have done; the course's gradebook and `autograded/` are only read.
"""

import contextlib
import dataclasses
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from autograder.course.settings import CourseSettings, database_error, sqlite_path


class ScratchError(Exception):
    """The gradebook could not be copied; one line."""


@contextlib.contextmanager
def scratch_course(settings: CourseSettings) -> Iterator[tuple[CourseSettings, Path]]:
    """Settings that grade into a scratch copy (its gradebook and `autograded/` in a temporary folder, removed
    on exit), and that folder (for the sandbox to hide)."""
    folder = Path(tempfile.mkdtemp(prefix="autograder-dry-run-"))
    try:
        database = folder / "gradebook.db"
        try:
            _copy_gradebook(settings.db_url, database)
        except Exception as exc:  # the driver's, SQLAlchemy's and sqlite3's errors alike
            raise ScratchError(f"cannot copy the gradebook for a dry run: {database_error(exc)}") from None
        from nbgrader.coursedir import CourseDirectory

        coursedir = CourseDirectory(config=settings.config)
        coursedir.root = settings.coursedir.root
        coursedir.db_url = f"sqlite:///{database}"
        coursedir.autograded_directory = str(folder / "autograded")
        yield dataclasses.replace(settings, coursedir=coursedir), folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _copy_gradebook(db_url: str, target: Path) -> None:
    path = sqlite_path(db_url)
    if path is not None:
        source = sqlite3.connect(f"file:{quote(str(Path(path).resolve()))}?mode=ro", uri=True)
        copy = sqlite3.connect(target)
        try:
            source.backup(copy)
        finally:
            copy.close()
            source.close()
        return
    from nbgrader.api import Base
    from sqlalchemy import create_engine

    server, scratch = create_engine(db_url), create_engine(f"sqlite:///{target}")
    try:
        Base.metadata.create_all(scratch)
        with server.connect().execution_options(isolation_level="REPEATABLE READ") as read, scratch.begin() as write:
            for table in Base.metadata.sorted_tables:
                rows = [dict(row._mapping) for row in read.execute(table.select())]
                if rows:
                    write.execute(table.insert(), rows)
    finally:
        server.dispose()
        scratch.dispose()
