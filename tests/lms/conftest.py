"""A small course with a real nbgrader gradebook, built through nbgrader's API.

Scores are set as nbgrader's autograder stores them (`Grade.auto_score`), and late penalties are
computed by nbgrader's own `AssignLatePenalties` preprocessor with a late-penalty plugin, exactly as
`nbgrader autograde` does when `c.AssignLatePenalties.plugin_class` is configured.
"""

from __future__ import annotations

import os
import shutil
import sys
import typing as t
import warnings
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook
from nbgrader.plugins import LateSubmissionPlugin
from nbgrader.preprocessors import AssignLatePenalties
from sqlalchemy.exc import SAWarning

from autograder.course.nbgrader_cli import tools_on_path
from tests.databases import point_course_at

HSA = "hidden_state_activation"
RUE = "rnn_update_equations"
HSA_CELLS = {"test_concat_weights": 6, "test_concat_state_input": 6, "test_formula_1": 6,
             "test_formula_2": 6, "test_sigmoid": 7, "test_hidden_state": 15}
RUE_CELLS = {"test_rnn_step": 10, "test_sequence_loss": 10}
DUE = datetime(2025, 3, 1, 17, 0, 0)

# nbgrader student id -> (first, last, email)
STUDENTS = {
    "ada": ("Ada", "Lovelace", "ada@uni.example"),
    "bob": ("Bob", "Babbage", "bob@uni.example"),
    "cyd": ("Cyd", "Charisse", "cyd@uni.example"),
    "dee": ("Dee", "Dirac", "dee@uni.example"),
}
# Plain roster: every student of STUDENTS, with the identities each LMS matches on.
ROSTER = (
    "id,first_name,last_name,email,lms_user_id,sis_user_id,login_id,section,lti_user_id\n"
    "ada,Ada,Lovelace,ada@uni.example,1001,S-0001,ada,Section A,lti-ada\n"
    "bob,Bob,Babbage,bob@uni.example,1002,S-0002,bob,Section A,lti-bob\n"
    "cyd,Cyd,Charisse,cyd@uni.example,1003,S-0003,cyd,Section B,lti-cyd\n"
    "dee,Dee,Dirac,dee@uni.example,1004,00042,dee,Section B,lti-dee\n"
)
SETTINGS = """\
[canvas]
url = "http://127.0.0.1:9"
course_id = 77
[canvas.assignments]
hidden_state_activation = 501
rnn_update_equations = 502

[blackboard]
[blackboard.columns]
hidden_state_activation = "123456"
rnn_update_equations = "123457"

[brightspace]
key = "both"
[brightspace.items]
hidden_state_activation = "Hidden State Activation"

[moodle]
identifier = "email"
"""


class TenPercentPerDay(LateSubmissionPlugin):
    """A late-penalty plugin as a course would write one: 10% of the score per started day late."""

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float:
        days = -(-total_seconds_late // 86400)
        return round(score * 0.10 * days, 4)


@dataclass
class Course:
    root: Path
    db_url: str

    def gradebook(self) -> Gradebook:
        return Gradebook(self.db_url, course_id="rnn-test")


def write_config(root: Path, extra: str = "") -> None:
    (root / "nbgrader_config.py").write_text(
        "c = get_config()  # noqa: F821\n"
        "c.CourseDirectory.course_id = 'rnn-test'\n"
        f"c.AssignLatePenalties.plugin_class = 'tests.lms.conftest.TenPercentPerDay'\n{extra}"
    )


def assign_late_penalty(db_url: str, assignment: str, notebook: str, student: str) -> None:
    """Run nbgrader's AssignLatePenalties preprocessor for one submitted notebook, as autograde does."""
    preprocessor = AssignLatePenalties(plugin_class=TenPercentPerDay)
    resources = {"nbgrader": {"notebook": notebook, "assignment": assignment, "student": student,
                              "db_url": db_url}}
    preprocessor.preprocess(nbformat.v4.new_notebook(), resources)


def build_gradebook(db_url: str) -> None:
    """ada on time, bob two days late (-20%), cyd submitted nothing, dee 1 hour late on RUE only."""
    tools_on_path()
    with Gradebook(db_url, course_id="rnn-test") as gb, warnings.catch_warnings():
        # nbgrader's own add_submission trips SQLAlchemy autoflush warnings; they are not ours to fix.
        warnings.simplefilter("ignore", SAWarning)
        for name, cells, due in ((HSA, HSA_CELLS, DUE), (RUE, RUE_CELLS, DUE + timedelta(days=7))):
            gb.add_assignment(name, duedate=due)
            gb.add_notebook(name, name)
            for cell, points in cells.items():
                gb.add_grade_cell(cell, name, name, max_score=points, cell_type="code")
        for sid, (first, last, email) in STUDENTS.items():
            gb.add_student(sid, first_name=first, last_name=last, email=email)

        def submit(assignment: str, student: str, when: datetime, scores: dict[str, float]) -> None:
            gb.add_submission(assignment, student, timestamp=when)
            for cell, score in scores.items():
                grade = gb.find_grade(cell, assignment, assignment, student)
                grade.auto_score = score
            gb.db.commit()

        submit(HSA, "ada", DUE - timedelta(hours=2), {"test_concat_weights": 6, "test_concat_state_input": 6,
               "test_formula_1": 6, "test_formula_2": 3, "test_sigmoid": 7, "test_hidden_state": 12.5})
        submit(HSA, "bob", DUE + timedelta(days=1, hours=3), {"test_concat_weights": 6,
               "test_concat_state_input": 0, "test_formula_1": 6, "test_formula_2": 6, "test_sigmoid": 3.5,
               "test_hidden_state": 15})
        submit(HSA, "dee", DUE - timedelta(minutes=1), {c: 0 for c in HSA_CELLS})
        submit(RUE, "ada", DUE + timedelta(days=6), {"test_rnn_step": 10, "test_sequence_loss": 10})
        submit(RUE, "dee", DUE + timedelta(days=7, hours=1), {"test_rnn_step": 10, "test_sequence_loss": 5})
    for assignment, student in ((HSA, "ada"), (HSA, "bob"), (HSA, "dee"), (RUE, "ada"), (RUE, "dee")):
        assign_late_penalty(db_url, assignment, assignment, student)


@pytest.fixture(scope="session")
def template_gradebook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The gradebook built once (nbgrader's set-up runs `alembic`, seconds per database), copied per test."""
    from autograder.lms.roster_import import import_roster

    folder = tmp_path_factory.mktemp("template")
    db_url = f"sqlite:///{folder / 'gradebook.db'}"
    build_gradebook(db_url)
    (folder / "roster.csv").write_text(ROSTER)
    with Gradebook(db_url, course_id="rnn-test") as gb:
        import_roster(gb, folder / "roster.csv", "plain")
    return folder / "gradebook.db"


@pytest.fixture
def course(tmp_path: Path, template_gradebook: Path) -> Course:
    """A course folder with config, gradebook (4 students, 2 assignments), roster imported, lms.toml."""
    root = tmp_path / "course"
    root.mkdir()
    write_config(root)
    shutil.copy(template_gradebook, root / "gradebook.db")
    (root / "roster.csv").write_text(ROSTER)
    (root / "lms.toml").write_text(SETTINGS)
    return Course(root, f"sqlite:///{root / 'gradebook.db'}")


@pytest.fixture
def in_course(course: Course, monkeypatch: pytest.MonkeyPatch) -> Course:
    monkeypatch.chdir(course.root)
    return course


def run_cli(*argv: str) -> int:
    from autograder.cli import main

    return main(list(argv))


def dry_run(to: str, service: t.Any, capsys: pytest.CaptureFixture) -> str:
    """`autograder push HSA --to <to> --dry-run`, which succeeds and sends `service` (a stand-in LMS) nothing;
    what it printed."""
    assert run_cli("push", HSA, "--to", to, "--dry-run") == 0
    assert service.requests == []
    return capsys.readouterr().out


def subprocess_env() -> dict[str, str]:
    """Environment for a real `nbgrader` process: this venv's bin on PATH, the repo importable."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    repo = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = repo + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


@pytest.fixture(scope="session")
def postgres_template_gradebook(postgres, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The same gradebook as `template_gradebook`, built once in a database of the session's PostgreSQL
    server; its name, for `CREATE DATABASE ... TEMPLATE`."""
    from autograder.lms.roster_import import import_roster

    name = postgres.create_database()
    build_gradebook(postgres.url(name))
    roster = tmp_path_factory.mktemp("pg-template") / "roster.csv"
    roster.write_text(ROSTER)
    with Gradebook(postgres.url(name), course_id="rnn-test") as gb:
        import_roster(gb, roster, "plain")
    return name


def on_database(request: pytest.FixtureRequest, course: Course, database: str) -> Course:
    """`course` with its gradebook on `database` (one of tests.databases.DATABASES): for "postgresql", a
    copy of the template gradebook in a new database of the session's server, and no gradebook.db."""
    if database == "sqlite":
        return course
    server = request.getfixturevalue("postgres")
    url = server.url(server.create_database(template=request.getfixturevalue("postgres_template_gradebook")))
    (course.root / "gradebook.db").unlink()
    point_course_at(course.root, url)
    return Course(course.root, url)


# The LTI Advantage tests' platform fixture (outbox, NRPS, deep linking), at the end: it imports this module's names.
from tests.lms.advantage_fixtures import advantage, keys  # noqa: E402, F401
