"""The course's settings as nbgrader itself reads them: the config files of the Jupyter config folders (among them
this environment's `etc/jupyter/nbgrader_config.py`, which holds the framework's defaults:
`autograder.course.defaults`), then `nbgrader_config.py` in the course folder, loaded by traitlets in nbgrader's
order, and nbgrader's own `CourseDirectory` for the folders, the course id and the gradebook's URL
(`c.CourseDirectory.db_url`: SQLite by default, or a database server). Every command reads the course here,
so none can look for the gradebook somewhere nbgrader does not write it, or feed nbgrader other settings than
its own commands get.

Only `nbgrader.coursedir` is imported, never nbgrader's applications: the grade command pays for no more
than it did when it read the file itself.
"""

import contextlib
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from autograder.course.assignments import discover
from autograder.sandbox.limits import Limits

CONFIG_FILE = "nbgrader_config.py"


class SettingsError(Exception):
    """The course's configuration cannot be read; the message is one line for the user."""


@dataclass(frozen=True)
class CourseSettings:
    folder: Path  # where the command runs: the folder holding nbgrader_config.py
    config: Any  # traitlets' Config, as nbgrader's applications would get it from the files
    coursedir: Any  # nbgrader's CourseDirectory, configured from it, rooted in the course
    # Each file read, lowest priority first (the course's own last), with what it set alone.
    files: tuple[tuple[Path, Any], ...] = ()

    def set_in(self, section: str, key: str) -> Path | None:
        """The file whose `c.<section>.<key>` is in force, None when no file sets it (nbgrader's default)."""
        for path, config in reversed(self.files):
            if key in config.get(section, {}):
                return path
        return None

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
        """One class's settings (`c.Execute...` is the section "Execute"), empty when no file sets any."""
        return dict(self.config.get(name, {}))

    # What grading reads, as nbgrader's autograde reads it ---------------------------------------------
    @cached_property
    def limits(self) -> Limits:
        """The sandbox's limits; a cell's time is nbgrader's `c.Execute.timeout`, `Limits`' own where none is set.
        None, 0 or a negative number is nbclient's "no limit" for a cell: here the submission's wall time, which
        bounds every cell anyway, so one student's endless loop still cannot stall the others."""
        execute = self.section("Execute")
        if "timeout" not in execute:
            return Limits()
        timeout = execute["timeout"]
        if isinstance(timeout, bool) or not isinstance(timeout, int | float | None) or timeout != timeout:
            where = self.set_in("Execute", "timeout") or CONFIG_FILE
            raise SettingsError(f"{where}: c.Execute.timeout is {timeout!r}; it must be a number of seconds "
                                "(None or -1: no limit for a cell, as nbclient reads it)")
        whole = Limits().total_seconds
        if timeout is None or timeout <= 0:
            return Limits(cell_seconds=whole)
        return Limits(cell_seconds=min(float(timeout), whole))

    @cached_property
    def add_missing(self) -> bool:
        return bool(self.section("OverwriteCells").get("add_missing_cells", False))

    @cached_property
    def ignore_pattern(self) -> str | None:
        """nbgrader's IgnorePattern: stderr lines that do not zero a grade cell, when it is enabled."""
        pattern = self.section("IgnorePattern")
        return pattern.get("pattern") if pattern.get("enabled", False) else None

    @cached_property
    def sandbox_level(self) -> str:
        """The level the sandbox is asked for (`sandbox.launch`): isolated or nothing, unless the course accepts
        the bare level (`c.Autograder.accept_bare_sandbox = True`)."""
        return sandbox_level(self.config)

    @cached_property
    def graders(self) -> Path | None:
        """The course's own graders folder (`c.Autograder.graders`), None for this package's. Read from the course's
        file alone, as `early_graders_folder` reads it before the sandbox (which hides that folder) starts."""
        own = dict(self.files).get(self.folder / CONFIG_FILE)
        return graders_folder(own if own is not None else {}, self.root)

    @cached_property
    def late_rules(self) -> Any:
        """The late-credit schedules, grace and labels (`c.LateCredit.*`: `autograder.deadlines.rules`)."""
        from autograder.deadlines.rules import SECTION, rules_from
        from autograder.deadlines.schedule import DeadlineError

        try:
            nbgrader_rule = self.section("LateSubmissionPlugin").get("penalty_method")
            return rules_from({**self.section(SECTION), **({"penalty_method": nbgrader_rule} if nbgrader_rule else {})})
        except DeadlineError as exc:
            where = self.set_in(SECTION, str(exc).split(".", 2)[-1].split(":")[0].split("[")[0]) or CONFIG_FILE
            raise SettingsError(f"{where}: {exc}") from None

    @property
    def assignments(self) -> tuple[str, ...]:
        """Every `source/<name>/<name>.ipynb` of the course (`course.assignments`)."""
        return discover(self.path("source", ".", ".").resolve())

    def exclude_overwriting(self, assignment: str) -> list[str]:
        """The files of the student's that the autograded folder keeps over the instructor's."""
        return list(dict(self.section("Autograde").get("exclude_overwriting", {})).get(assignment, []))


AUTOGRADER_KEYS = ("graders", "accept_bare_sandbox")  # c.Autograder.*


def autograder_section(config: Any) -> dict[str, Any]:
    """`c.Autograder.*`, every key known."""
    section = config.get("Autograder", {})
    for key in section:
        if key not in AUTOGRADER_KEYS:
            raise SettingsError(f"{CONFIG_FILE}: c.Autograder.{key}: unknown setting "
                                f"(known: {', '.join(AUTOGRADER_KEYS)})")
    return dict(section)


def sandbox_level(config: Any) -> str:
    """`c.Autograder.accept_bare_sandbox`: True lets grading fall back to the bare sandbox (no namespaces:
    student code can read the course) where the host refuses namespaces; unset or False, grading refuses."""
    from autograder.sandbox.launch import AUTO, AUTO_OR_BARE, requested_level

    value = autograder_section(config).get("accept_bare_sandbox", False)
    if not isinstance(value, bool):
        raise SettingsError(f"{CONFIG_FILE}: c.Autograder.accept_bare_sandbox must be True or False, not {value!r}")
    return requested_level(AUTO_OR_BARE if value else AUTO)


def graders_folder(config: Any, root: Path, create: bool = False) -> Path | None:
    """`c.Autograder.graders`: the folder of the course's hidden graders (one package per assignment),
    relative to the course root; None when unset (this package's own `autograder/graders/`). `create`: a
    folder that does not exist yet is made (`autograder new`), where any other command refuses it."""
    value = autograder_section(config).get("graders")
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


@dataclass(frozen=True)
class EarlySettings:
    """What a grading command needs before its workers start: where the graders are (they load them while the
    rest of the course is read) and the sandbox level its zygotes are launched at."""

    graders: Path | None
    sandbox_level: str


def early_settings(folder: Path) -> EarlySettings:
    """`c.Autograder.*` of the course in `folder`. A file that does not mention the section cannot set it, and
    is not loaded twice; a file that cannot be read is `read_course`'s to report."""
    from traitlets.config import Config

    config = Config()
    path = folder / CONFIG_FILE
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    if "Autograder" in text or "load_subconfig" in text:
        from traitlets.config.loader import PyFileConfigLoader

        try:
            config = PyFileConfigLoader(CONFIG_FILE, path=str(folder)).load_config()
        except Exception:  # read_course says what is wrong with it, in one line
            config = Config()
    return EarlySettings(graders_folder(config, folder.resolve()), sandbox_level(config))



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
    from traitlets.config.loader import ConfigFileNotFound

    folder = folder.resolve()
    files = jupyter_config_files(folder)
    try:
        files.append((folder / CONFIG_FILE, _load(folder / CONFIG_FILE)))
    except ConfigFileNotFound:
        if required:
            raise SettingsError(f"no {CONFIG_FILE} in {folder}: run this in the course folder") from None
    config = Config()
    for _, layer in files:  # as traitlets merges them for nbgrader: a later file's value replaces an earlier one's
        config.merge(layer)
    # nbgrader's root defaults to the working folder, and a relative one is taken from there: here both
    # are the course folder, wherever the caller runs.
    configured = config.CourseDirectory.get("root") if "CourseDirectory" in config else None
    coursedir = CourseDirectory(config=config)
    coursedir.root = str((folder / configured).resolve() if configured else folder)
    settings = CourseSettings(folder, config, coursedir, tuple(files))
    if rooted and settings.root != folder:
        raise SettingsError(f"{CONFIG_FILE} sets c.CourseDirectory.root to {settings.root}: run this there")
    if create_graders:
        graders_folder(config, settings.root, create=True)
    from autograder.graders import use_folder

    use_folder(settings.graders)  # whatever this process grades or reports on, it does with the course's graders
    from autograder.grades.exercise_order import use_course

    use_course(settings.course_id, lambda assignment: settings.path("source", ".", assignment))  # listings' order
    settings.sandbox_level  # noqa: B018 - a wrong c.Autograder.accept_bare_sandbox is one line, here
    settings.limits  # noqa: B018 - so is a c.Execute.timeout that is not a number, before any student is graded
    return settings


def jupyter_config_files(course: Path) -> list[tuple[Path, Any]]:
    """The config files nbgrader reads before the course's own, lowest priority first, each with its settings:
    `jupyter_config` then `nbgrader_config` (`.py`, then `.json`) from every folder of `jupyter --paths`, the
    last listed first. The course folder is left out (its file is read last, as nbgrader reads it)."""
    from jupyter_core.paths import jupyter_config_dir, jupyter_config_path

    folders = jupyter_config_path()
    if jupyter_config_dir() not in folders:  # as nbgrader's `config_file_paths` has it
        folders.insert(0, jupyter_config_dir())
    found = []
    for name in ("jupyter_config", "nbgrader_config"):
        for where in reversed(folders):
            if Path(where).resolve() == course:
                continue
            for path in (Path(where) / f"{name}.py", Path(where) / f"{name}.json"):
                if path.is_file():
                    found.append((path, _load(path)))
    return found


def _load(path: Path) -> Any:
    """One config file's settings; a file that cannot be read is one line naming it."""
    from traitlets.config.loader import ConfigFileNotFound, JSONFileConfigLoader, PyFileConfigLoader

    loader = JSONFileConfigLoader if path.suffix == ".json" else PyFileConfigLoader
    try:
        return loader(path.name, path=str(path.parent)).load_config()
    except ConfigFileNotFound:
        raise
    except Exception as exc:  # the config is Python: anything can go wrong in it
        raise SettingsError(f"cannot read {path}: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}") from None
