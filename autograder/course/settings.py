"""The course's settings as nbgrader itself reads them: `nbgrader_config.py` in the course folder, loaded by
traitlets, and nbgrader's own `CourseDirectory` for the folders, the course id and the gradebook's URL
(`c.CourseDirectory.db_url`: SQLite by default, or a database server). Every command reads the course here,
so none can look for the gradebook somewhere nbgrader does not write it.

Only `nbgrader.coursedir` is imported, never nbgrader's applications: the grade command pays for no more
than it did when it read the file itself.
"""

import contextlib
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from autograder.sandbox.limits import Limits

CONFIG_FILE = "nbgrader_config.py"


class SettingsError(Exception):
    """The course's configuration cannot be read; the message is one line for the user."""


@dataclass(frozen=True)
class CourseSettings:
    folder: Path  # where the command runs: the folder holding nbgrader_config.py
    config: Any  # traitlets' Config, as nbgrader's applications would get it from the file
    coursedir: Any  # nbgrader's CourseDirectory, configured from it, rooted in the course

    @property
    def root(self) -> Path:
        return Path(self.coursedir.root)

    @property
    def course_id(self) -> str:
        return self.coursedir.course_id

    @property
    def db_url(self) -> str:
        return self.coursedir.db_url

    def path(self, step: str, student: str, assignment: str) -> Path:
        """nbgrader's folder for a step (`source`, `submitted`, `autograded`, ...) of a student's assignment."""
        return Path(self.coursedir.format_path(getattr(self.coursedir, f"{step}_directory"), student, assignment))

    def gradebook_tables(self) -> set[str] | None:
        """The tables of the course's gradebook, read without creating or changing anything (nbgrader's
        `Gradebook` would create a missing one); None when an SQLite gradebook's file does not exist."""
        import sqlite3

        path = sqlite_path(self.db_url)
        if path is not None:
            if not os.path.isfile(path):
                return None
            try:
                with contextlib.closing(sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)) as db:
                    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            except sqlite3.DatabaseError as exc:
                raise SettingsError(f"{path} is not a readable SQLite gradebook ({exc})") from None
        import sqlalchemy

        try:
            engine = sqlalchemy.create_engine(self.db_url)
            try:
                return set(sqlalchemy.inspect(engine).get_table_names())
            finally:
                engine.dispose()
        except Exception as exc:  # SQLAlchemy's and the driver's errors, a driver not installed, a bad URL
            raise SettingsError(cannot_open(self.db_url, exc)) from None

    def open_gradebook(self) -> Any:
        """nbgrader's `Gradebook` on the course's database (which it creates the tables of, if missing)."""
        from nbgrader.api import Gradebook

        from autograder.course.nbgrader_cli import tools_on_path

        tools_on_path()  # nbgrader runs `alembic` to set up a new gradebook
        try:
            return Gradebook(self.db_url, course_id=self.course_id)
        except Exception as exc:  # as in gradebook_tables: the server, the driver, the URL
            raise SettingsError(cannot_open(self.db_url, exc)) from None

    def section(self, name: str) -> dict[str, Any]:
        """One class's settings (`c.Execute...` is the section "Execute"), empty when the file sets none."""
        return dict(self.config.get(name, {}))

    # What grading reads, as nbgrader's autograde reads it ---------------------------------------------
    @cached_property
    def limits(self) -> Limits:
        """The sandbox's limits; a cell's time is nbgrader's `c.Execute.timeout`."""
        timeout = self.section("Execute").get("timeout")
        return Limits(cell_seconds=float(timeout) if timeout else 30.0)

    @cached_property
    def add_missing(self) -> bool:
        return bool(self.section("OverwriteCells").get("add_missing_cells", False))

    @cached_property
    def ignore_pattern(self) -> str | None:
        """nbgrader's IgnorePattern: stderr lines that do not zero a grade cell, when it is enabled."""
        pattern = self.section("IgnorePattern")
        return pattern.get("pattern") if pattern.get("enabled", False) else None

    @cached_property
    def graders(self) -> Path | None:
        """The course's own graders folder (`c.Autograder.graders`), None for this package's."""
        return graders_folder(self.config, self.root)

    @property
    def assignments(self) -> tuple[str, ...]:
        """Every `source/<name>/<name>.ipynb` of the course (`course.assignments`)."""
        from autograder.course.assignments import discover

        return discover(self.path("source", ".", ".").resolve())

    def exclude_overwriting(self, assignment: str) -> list[str]:
        """The files of the student's that the autograded folder keeps over the instructor's."""
        return list(dict(self.section("Autograde").get("exclude_overwriting", {})).get(assignment, []))


AUTOGRADER_KEYS = ("graders",)  # c.Autograder.*


def graders_folder(config: Any, root: Path, create: bool = False) -> Path | None:
    """`c.Autograder.graders`: the folder of the course's hidden graders (one package per assignment),
    relative to the course root; None when unset (this package's own `autograder/graders/`). `create`: a
    folder that does not exist yet is made (`autograder new`), where any other command refuses it."""
    section = config.get("Autograder", {})
    for key in section:
        if key not in AUTOGRADER_KEYS:
            raise SettingsError(f"{CONFIG_FILE}: c.Autograder.{key}: unknown setting "
                                f"(known: {', '.join(AUTOGRADER_KEYS)})")
    value = section.get("graders")
    if value is None:
        return None
    if not isinstance(value, str | os.PathLike) or not str(value):
        raise SettingsError(f"{CONFIG_FILE}: c.Autograder.graders must be a folder's path, not {value!r}")
    folder = (root / value).resolve()
    if create and not os.path.lexists(folder):
        try:
            folder.mkdir(parents=True)
        except OSError as exc:
            raise SettingsError(f"{CONFIG_FILE}: c.Autograder.graders = {str(value)!r}: cannot create {folder} "
                                f"({exc.strerror})") from None
    if not folder.is_dir():
        raise SettingsError(f"{CONFIG_FILE}: c.Autograder.graders = {str(value)!r}: no such folder {folder}")
    return folder


def early_graders_folder(folder: Path) -> Path | None:
    """`c.Autograder.graders` of the course in `folder`, read before a grading command's workers start (they
    load the graders while the rest of the course is read). A file that does not mention the section
    cannot set it, and is not loaded twice; a file that cannot be read is `read_course`'s to report."""
    path = folder / CONFIG_FILE
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if "Autograder" not in text and "load_subconfig" not in text:
        return None
    from traitlets.config.loader import PyFileConfigLoader

    try:
        config = PyFileConfigLoader(CONFIG_FILE, path=str(folder)).load_config()
    except Exception:  # read_course says what is wrong with it, in one line
        return None
    return graders_folder(config, folder.resolve())


def sqlite_path(db_url: str) -> str | None:
    """The file of a `sqlite:///path` URL (relative to the current folder, as SQLAlchemy takes it)."""
    if not db_url.startswith("sqlite:///"):
        return None
    path = db_url.removeprefix("sqlite:///").split("?", 1)[0]
    return path if path and path != ":memory:" else None


def shown_url(db_url: str) -> str:
    """A database URL for messages: without its password."""
    scheme, sep, rest = db_url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not (sep and at and ":" in credentials):
        return db_url
    return f"{scheme}://{credentials.split(':', 1)[0]}:***@{host}"


def database_error(exc: BaseException) -> str:
    """A database error in one line: the driver's own message (SQLAlchemy wraps it and appends a link)."""
    exc = getattr(exc, "orig", None) or exc
    return " ".join(str(exc).split())[:300]


def cannot_open(db_url: str, exc: BaseException) -> str:
    return f"cannot open the gradebook {shown_url(db_url)}: {database_error(exc)}"


def read_course(folder: Path, required: bool = True, rooted: bool = False,
                create_graders: bool = False) -> CourseSettings:
    """The settings of the course in `folder`. Without a config file: an error when `required`, else
    nbgrader's defaults (what its own commands run with there). `rooted`: the course's root must be `folder`
    (grading runs where the sandbox hides the course from students). `create_graders`: the graders folder
    the config names is made when missing (`autograder new`)."""
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config
    from traitlets.config.loader import ConfigFileNotFound, PyFileConfigLoader

    folder = folder.resolve()
    try:
        config = PyFileConfigLoader(CONFIG_FILE, path=str(folder)).load_config()
    except ConfigFileNotFound:
        if required:
            raise SettingsError(f"no {CONFIG_FILE} in {folder}: run this in the course folder") from None
        config = Config()
    except Exception as exc:  # the config is Python: anything can go wrong in it
        raise SettingsError(f"cannot read {folder / CONFIG_FILE}: {type(exc).__name__}: "
                            f"{' '.join(str(exc).split())[:200]}") from None
    # nbgrader's root defaults to the working folder, and a relative one is taken from there: here both
    # are the course folder, wherever the caller runs.
    configured = config.CourseDirectory.get("root") if "CourseDirectory" in config else None
    coursedir = CourseDirectory(config=config)
    coursedir.root = str((folder / configured).resolve() if configured else folder)
    settings = CourseSettings(folder, config, coursedir)
    if rooted and settings.root != folder:
        raise SettingsError(f"{CONFIG_FILE} sets c.CourseDirectory.root to {settings.root}: run this there")
    if create_graders:
        graders_folder(config, settings.root, create=True)
    from autograder.graders import use_folder

    use_folder(settings.graders)  # whatever this process grades or reports on, it does with the course's graders
    return settings
