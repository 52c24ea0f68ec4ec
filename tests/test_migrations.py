"""Our tables' migrations (`autograder.migrations`), on a real SQLite file and a real PostgreSQL database: a
gradebook written by the release before migrations upgrades in place with its rows, a new one gets every
table, nbgrader's own version table and `nbgrader db upgrade` are left alone, and downgrading to base takes
away our tables and nothing else."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import Column, MetaData, String, Table, create_engine, inspect
from sqlalchemy.pool import NullPool

from autograder.course.nbgrader_cli import tools_on_path
from autograder.migrations import VERSION_TABLE, MigrationError, alembic_config, revisions, upgrade
from tests.databases import DATABASES, connect, point_course_at, query
from tests.unit.test_settings import config

NEWEST = revisions()[-1]
AUDIT_TABLES = ("autograder_grading_run", "autograder_grading_score")
IDENTITY = "autograder_lms_identity"
PREVIOUS_TABLES = (*AUDIT_TABLES, IDENTITY)  # what the release before migrations made
DEADLINE_TABLES = ("autograder_student_label", "autograder_score_override", "autograder_exception_event")  # 0002
OUTBOX_TABLES = ("autograder_lms_outbox",)  # 0004 (and the identity table's lms_status)
SETTLED_TABLES = ("autograder_settled_grade",)  # 0005
RUBRIC_TABLES = ("autograder_rubric_item", "autograder_rubric_applied", "autograder_question_grade")  # 0006
REGRADE_TABLES = ("autograder_regrade_request",)  # 0007
OUR_TABLES = (*PREVIOUS_TABLES, *DEADLINE_TABLES, *OUTBOX_TABLES, *SETTLED_TABLES, *RUBRIC_TABLES,
              *REGRADE_TABLES)

# The previous release (before migrations), frozen: the statements regrade/audit.py ran on a batch's first
# write, and the `Table` lms/identity.py made with `MetaData.create_all`.
PREVIOUS_AUDIT_DDL = (
    """CREATE TABLE IF NOT EXISTS autograder_grading_run (
        id VARCHAR(32) PRIMARY KEY,
        assignment VARCHAR(128) NOT NULL,
        kind VARCHAR(16) NOT NULL,
        started_at VARCHAR(32) NOT NULL,
        os_user VARCHAR(128) NOT NULL,
        grader_version VARCHAR(64) NOT NULL,
        options VARCHAR(1024) NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS autograder_grading_score (
        run_id VARCHAR(32) NOT NULL REFERENCES autograder_grading_run (id),
        student_id VARCHAR(128) NOT NULL,
        score_before FLOAT,
        score_after FLOAT)""",
    "CREATE INDEX IF NOT EXISTS autograder_grading_score_run ON autograder_grading_score (run_id)",
)
_previous_metadata = MetaData()
PREVIOUS_IDENTITY_TABLE = Table(
    IDENTITY, _previous_metadata,
    Column("student_id", String(128), primary_key=True),
    Column("sis_user_id", String(128)),
    Column("login_id", String(128)),
    Column("section", String(255)),
    Column("lti_user_id", String(255)),
)
RUN = ("0123456789abcdef0123456789abcdef", "hw1", "grade", "2025-01-31 09:00:00.000001", "ada", "f" * 64, "--force")
SCORES = [(RUN[0], "ada", None, 7.5), (RUN[0], "bob", 3.0, 4.0)]
IDENTITY_ROW = ("ada", "SIS-1", "ada.l", "Section 2", "lti-ada")


def new_nbgrader_gradebook(url: str) -> None:
    from nbgrader.api import Gradebook

    tools_on_path()  # nbgrader stamps a new gradebook with `alembic`
    Gradebook(url, course_id="course").close()


# nbgrader makes a gradebook in seconds (it runs `alembic`): once per database, then copied for each test.
@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("template") / "gradebook.db"
    new_nbgrader_gradebook(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def postgres_template(postgres) -> str:
    name = postgres.create_database()
    new_nbgrader_gradebook(postgres.url(name))
    return name


@pytest.fixture
def sqlite_gradebook(sqlite_template, tmp_path) -> str:
    """A new nbgrader gradebook in SQLite (nbgrader's tables and its `alembic_version`, none of ours); its URL."""
    return f"sqlite:///{shutil.copy(sqlite_template, tmp_path / 'gradebook.db')}"


@pytest.fixture(params=DATABASES)
def gradebook(request, tmp_path) -> str:
    """The same in SQLite, then in a database of the session's PostgreSQL server."""
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_gradebook")
    server = request.getfixturevalue("postgres")
    return server.url(server.create_database(template=request.getfixturevalue("postgres_template")))


def write_previous_release(url: str, tables: tuple[str, ...] = PREVIOUS_TABLES) -> None:
    """Our `tables` as the release before migrations made them (each on its first use), with rows in them."""
    if AUDIT_TABLES[0] in tables:
        connection = connect(url)
        try:
            cursor = connection.cursor()
            for statement in PREVIOUS_AUDIT_DDL:
                cursor.execute(statement)
            marks = "?" if url.startswith("sqlite") else "%s"
            cursor.execute(f"INSERT INTO autograder_grading_run VALUES ({', '.join([marks] * 7)})", RUN)
            cursor.executemany(f"INSERT INTO autograder_grading_score VALUES ({', '.join([marks] * 4)})", SCORES)
            connection.commit()
        finally:
            connection.close()
    if IDENTITY in tables:
        engine = create_engine(url, poolclass=NullPool)
        try:
            _previous_metadata.create_all(bind=engine, checkfirst=True)
            with engine.begin() as connection:
                connection.execute(PREVIOUS_IDENTITY_TABLE.insert().values(dict(zip(
                    ("student_id", "sis_user_id", "login_id", "section", "lti_user_id"), IDENTITY_ROW, strict=True))))
        finally:
            engine.dispose()


def schema(url: str) -> dict[str, tuple]:
    """Each of our tables there: its columns (name, type, nullable), primary key, foreign keys and indexes."""
    engine = create_engine(url, poolclass=NullPool)
    try:
        seen = inspect(engine)
        return {table: (
            [(c["name"], str(c["type"]), c["nullable"]) for c in seen.get_columns(table)],
            seen.get_pk_constraint(table)["constrained_columns"],
            sorted((fk["constrained_columns"], fk["referred_table"], fk["referred_columns"])
                   for fk in seen.get_foreign_keys(table)),
            sorted((index["name"], index["column_names"]) for index in seen.get_indexes(table)),
        ) for table in OUR_TABLES if seen.has_table(table)}
    finally:
        engine.dispose()


def tables(url: str) -> set[str]:
    engine = create_engine(url, poolclass=NullPool)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def rows(url: str) -> dict[str, list[tuple]]:
    return {"run": query(url, "SELECT * FROM autograder_grading_run"),
            "score": sorted(query(url, "SELECT * FROM autograder_grading_score"), key=lambda row: row[1]),
            # the columns the previous release made (0003 adds the launch's issuer and deployment, 0004 lms_status)
            "identity": query(url, f"SELECT student_id, sis_user_id, login_id, section, lti_user_id FROM {IDENTITY}")}


def versions(url: str) -> tuple[list[tuple], list[tuple]]:
    """nbgrader's revision, and ours."""
    ours = query(url, f"SELECT version_num FROM {VERSION_TABLE}") if VERSION_TABLE in tables(url) else []
    return query(url, "SELECT version_num FROM alembic_version"), ours


def autograder(course: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(Path(sys.executable).parent / "autograder"), *args], cwd=course,
                          capture_output=True, text=True, timeout=300)


def course_on(tmp_path: Path, url: str) -> Path:
    course = config(tmp_path / "course", "")
    point_course_at(course, url)
    return course


@pytest.mark.parametrize("previous", [PREVIOUS_TABLES, AUDIT_TABLES, (IDENTITY,)], ids=["all", "audit", "identity"])
def test_a_gradebook_of_the_previous_release_upgrades_in_place_with_its_rows(gradebook, previous):
    write_previous_release(gradebook, previous)
    before = rows(gradebook) if previous == PREVIOUS_TABLES else None
    nbgrader_version = versions(gradebook)[0]
    assert upgrade(gradebook) == (None, NEWEST)
    assert versions(gradebook) == (nbgrader_version, [(NEWEST,)])
    assert set(schema(gradebook)) == set(OUR_TABLES)  # the tables that release had not made yet, too
    if before is not None:
        assert rows(gradebook) == before == {"run": [RUN], "score": SCORES, "identity": [IDENTITY_ROW]}
        assert query(gradebook, f"SELECT lti_issuer, lti_deployment_id FROM {IDENTITY}") == [(None, None)]


def test_a_new_gradebook_gets_our_tables_as_the_previous_release_made_them(gradebook, request, tmp_path):
    assert upgrade(gradebook) == (None, NEWEST)
    assert versions(gradebook)[1] == [(NEWEST,)]
    if gradebook.startswith("sqlite"):
        previous = f"sqlite:///{tmp_path / 'previous.db'}"
    else:
        server = request.getfixturevalue("postgres")
        previous = server.url(server.create_database())
    write_previous_release(previous)
    assert set(schema(gradebook)) == set(OUR_TABLES)
    made, before = schema(gradebook), schema(previous)
    assert {table: made[table] for table in AUDIT_TABLES} == {table: before[table] for table in AUDIT_TABLES}
    # The identity table as that release made it, plus the launch's key (revision 0003), unique, and whether the
    # student is still in the LMS course (0004).
    columns, key, foreign, indexes = made[IDENTITY]
    assert (columns[:5], key, foreign) == before[IDENTITY][:3]
    assert [c[0] for c in columns[5:]] == ["lti_issuer", "lti_deployment_id", "lms_status"]
    assert all(c[2] for c in columns[5:])  # nullable: the rows that release wrote have none
    assert indexes == [("autograder_lms_identity_launch", ["lti_issuer", "lti_deployment_id", "lti_user_id"])]
    # The deadline tables (revision 0002): their keys and the audit trail's index by student.
    assert made["autograder_score_override"][1] == ["assignment", "student_id", "notebook", "cell"]
    assert made["autograder_exception_event"][3] == [("autograder_exception_event_student", ["student_id"])]


def test_upgrading_again_changes_nothing_and_the_command_says_so(gradebook, tmp_path):
    write_previous_release(gradebook)
    course = course_on(tmp_path, gradebook)
    first = autograder(course, "db", "upgrade")
    assert first.returncode == 0 and first.stderr == "", first.stderr
    assert first.stdout.strip().splitlines() == [f"{_shown(gradebook)}: our tables at revision none -> {NEWEST}"]
    state = (rows(gradebook), schema(gradebook), versions(gradebook))
    again = autograder(course, "db", "upgrade")
    assert again.returncode == 0 and again.stdout.strip().splitlines() == [
        f"{_shown(gradebook)}: our tables at revision {NEWEST} -> {NEWEST} (already the newest)"]
    assert upgrade(gradebook) == (NEWEST, NEWEST)
    assert (rows(gradebook), schema(gradebook), versions(gradebook)) == state


def _shown(url: str) -> str:
    return url.removeprefix("sqlite:///")


def test_nbgrader_db_upgrade_works_beside_our_tables_and_neither_touches_the_other_s_version(gradebook, tmp_path):
    nbgrader_version = versions(gradebook)[0]
    upgrade(gradebook)
    course = course_on(tmp_path, gradebook)
    done = subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "db", "upgrade"], cwd=course,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert versions(gradebook) == (nbgrader_version, [(NEWEST,)])
    assert set(schema(gradebook)) == set(OUR_TABLES)


def test_downgrading_to_base_removes_our_tables_and_nothing_else(gradebook):
    from alembic import command

    write_previous_release(gradebook)
    upgrade(gradebook)
    everything = tables(gradebook)
    nbgrader_version = versions(gradebook)[0]
    engine = create_engine(gradebook, poolclass=NullPool)
    try:
        with engine.begin() as connection:
            command.downgrade(alembic_config(connection), "base")
    finally:
        engine.dispose()
    assert tables(gradebook) == everything - set(OUR_TABLES)
    assert versions(gradebook) == (nbgrader_version, [])  # our version table stays, empty: alembic's own way


def test_the_gradebook_writer_brings_our_tables_to_the_newest_revision(gradebook):
    from autograder.grading.writer import GradebookWriter

    write_previous_release(gradebook, AUDIT_TABLES)
    GradebookWriter(gradebook, "course").close()
    assert versions(gradebook)[1] == [(NEWEST,)] and set(schema(gradebook)) == set(OUR_TABLES)


# SQLite only: what needs no server to show ---------------------------------------------------------------


def test_at_the_newest_revision_an_sqlite_gradebook_is_checked_without_sqlalchemy(sqlite_gradebook):
    """Grading opens an SQLite gradebook with the standard library alone (grading/writer.py); the check on
    each command keeps it so."""
    url = sqlite_gradebook
    upgrade(url)
    done = subprocess.run([sys.executable, "-c", "import sys; from autograder.migrations import upgrade; "
                           f"print(upgrade({url!r}), 'sqlalchemy' in sys.modules, 'alembic' in sys.modules)"],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.split("\n")[0] == f"('{NEWEST}', '{NEWEST}') False False", done.stderr


def test_a_gradebook_upgraded_by_a_newer_release_is_one_line(sqlite_gradebook, tmp_path):
    url = sqlite_gradebook
    upgrade(url)
    connection = connect(url)
    with connection:
        connection.execute(f"UPDATE {VERSION_TABLE} SET version_num = '9999'")
    connection.close()
    with pytest.raises(MigrationError, match=f"revision 9999, which this release does not know .*{NEWEST}"):
        upgrade(url)
    done = autograder(course_on(tmp_path, url), "db", "upgrade")
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert str(tmp_path / "gradebook.db") in done.stderr


@pytest.mark.parametrize("content", [None, b"not a database", "empty"], ids=["missing", "garbage", "not-nbgrader"])
def test_a_missing_or_foreign_gradebook_is_one_line_naming_its_file(tmp_path, content):
    import sqlite3

    course = config(tmp_path / "course", "")
    path = course / "gradebook.db"
    if content == "empty":
        sqlite3.connect(path).execute("CREATE TABLE other (a)").connection.close()
    elif content is not None:
        path.write_bytes(content)
    done = autograder(course, "db", "upgrade")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and str(path) in done.stderr, done.stderr
    assert path.exists() == (content is not None)  # a missing gradebook is not made


def test_each_revision_is_named_by_its_file_in_one_line_of_history():
    """`revisions()` reads the newest revision from the file names (without loading alembic); alembic's own
    reading of the scripts must agree: one chain, each revision's id the number its file begins with."""
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(alembic_config(None))
    chain = list(reversed(list(scripts.walk_revisions())))
    assert [script.revision for script in chain] == revisions()
    assert [script.down_revision for script in chain] == [None, *revisions()[:-1]]
    assert all(Path(script.path).name.startswith(script.revision + "_") for script in chain)
    assert scripts.get_heads() == [NEWEST]
