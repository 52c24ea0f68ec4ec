"""The student behind a launch (`lms.launch_identity`) and a hub's courses (`hub.course_registration`, the
authenticator's one name per person across courses), on real nbgrader gradebooks, without a hub: the cases the
hub tests (tests/test_lti_launch.py) do not reach cheaply."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.course.nbgrader_cli import tools_on_path
from autograder.hub.course_registration import read_registration
from autograder.hub.lti_login import CourseLtiAuthenticator
from autograder.lms.errors import LmsError
from autograder.lms.identity import IDENTITY_TABLE, Person, save_people
from autograder.lms.launch_identity import LaunchedPerson, LaunchKey, LaunchRefused, name_for_launch

KEY = LaunchKey("https://lms.invalid", "dep-1", "user-42")
PLATFORM = """[lti]
issuer = "https://lms.invalid"
client_id = "hub"
auth_login_url = "https://lms.invalid/authorize"
jwks_url = "https://lms.invalid/jwks"
deployment_ids = ["dep-1"]
"""


def course(folder: Path, course_id: str, lti: str, template: Path | None = None) -> Path:
    folder.mkdir(parents=True)
    if template is not None:
        shutil.copy(template, folder / "gradebook.db")
    (folder / "nbgrader_config.py").write_text(f"c = get_config()  # noqa: F821\nc.CourseDirectory.course_id = "
                                               f"{course_id!r}\n")
    (folder / "lms.toml").write_text(lti)
    return folder


tools_on_path()  # nbgrader makes a new gradebook with `alembic`


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """An empty gradebook, made once (nbgrader runs `alembic` for each new one), copied for each test."""
    path = tmp_path_factory.mktemp("template") / "gradebook.db"
    Gradebook(f"sqlite:///{path}").close()
    return path


@pytest.fixture
def gradebook(tmp_path, template):
    with Gradebook(f"sqlite:///{shutil.copy(template, tmp_path / 'gradebook.db')}") as gb:
        yield gb


def test_an_unsafe_roster_id_with_work_recorded_under_it_refuses_the_launch_and_changes_nothing(gradebook):
    save_people(gradebook, [Person(id="Ada.L@uni", first_name="Ada", lti_user_id=KEY.user_id)])
    gradebook.add_assignment("hw1")
    gradebook.add_submission("hw1", "Ada.L@uni")
    with pytest.raises(LaunchRefused, match="'Ada.L@uni', which cannot be a user name .* work is already recorded"):
        name_for_launch(gradebook, LaunchedPerson(KEY, "Ada", "L", "ada@uni"), True)
    assert [s.id for s in gradebook.students] == ["Ada.L@uni"]
    row = gradebook.db.execute(IDENTITY_TABLE.select()).one()
    assert (row.student_id, row.lti_issuer) == ("Ada.L@uni", None)


def test_one_lti_user_id_on_two_roster_rows_is_refused_rather_than_guessed(gradebook):
    save_people(gradebook, [Person(id="ada", lti_user_id=KEY.user_id), Person(id="bob", lti_user_id=KEY.user_id)])
    with pytest.raises(LaunchRefused, match="gives your LMS account to 2 students"):
        name_for_launch(gradebook, LaunchedPerson(KEY, email="ada@uni"), True)


def test_a_new_person_never_gets_a_student_s_name_and_keeps_theirs_after(gradebook):
    gradebook.add_student("ada")  # another Ada, already in the course
    name = name_for_launch(gradebook, LaunchedPerson(KEY, "Ada", "King", "ada@uni"), True)
    assert name.startswith("ada-") and name != "ada"
    other_email = LaunchedPerson(KEY, "Ada", "Lovelace", "countess@uni")  # the LMS's profile changed since
    assert name_for_launch(gradebook, other_email, True) == name


def test_one_person_has_one_name_across_the_courses_of_a_hub(tmp_path, template):
    a = course(tmp_path / "a", "course_a", PLATFORM + 'context_id = "ctx-a"\n', template)
    b = course(tmp_path / "b", "course_b", PLATFORM + 'context_id = "ctx-b"\n', template)
    authenticator = CourseLtiAuthenticator(courses=[str(a), str(b)])
    person = LaunchedPerson(KEY, "Ada", "King", "ada@uni")
    first = authenticator.person_name(authenticator.registrations[(KEY.issuer, "ctx-a")], person, True)
    with Gradebook(f"sqlite:///{b / 'gradebook.db'}") as gb:
        gb.add_student("ada")  # in course B, "ada" is someone else ...
    with Gradebook(f"sqlite:///{a / 'gradebook.db'}") as gb:
        gb.add_student("bea")  # ... and course A's "bea" is never given to a newcomer of course B
    assert first == "ada"
    with pytest.raises(LaunchRefused, match="belongs to another person of this course"):
        authenticator.person_name(authenticator.registrations[(KEY.issuer, "ctx-b")], person, True)
    newcomer = LaunchedPerson(LaunchKey(KEY.issuer, KEY.deployment_id, "user-43"), email="bea@uni")
    course_b = authenticator.registrations[(KEY.issuer, "ctx-b")]
    assert authenticator.person_name(course_b, newcomer, True).startswith("bea-")


@pytest.mark.parametrize("lti, problem", [
    (PLATFORM, r"\[lti\] context_id is not set"),
    (PLATFORM.replace('deployment_ids = ["dep-1"]', "deployment_ids = []") + 'context_id = "c"\n', "deployment_ids"),
    (PLATFORM.replace('deployment_ids = ["dep-1"]', "deployment_ids = [1]") + 'context_id = "c"\n', "deployment_ids"),
    (PLATFORM.replace('jwks_url = "https://lms.invalid/jwks"\n', "") + 'context_id = "c"\n', "jwks_url is not set"),
    (PLATFORM + 'context_id = "c"\n[lti.resource_links]\n"rl-1" = "../../etc"\n', "must name an assignment"),
], ids=["no-context", "no-deployment", "deployment-not-text", "no-jwks", "link-to-a-path"])
def test_a_wrong_registration_is_one_line_naming_lms_toml(tmp_path, lti, problem):
    folder = course(tmp_path / "c", "c", lti)
    with pytest.raises(LmsError, match=problem) as raised:
        read_registration(folder)
    assert str(folder / "lms.toml") in str(raised.value) and "\n" not in str(raised.value)


def test_a_roster_cannot_change_the_lti_user_id_a_student_launched_with(gradebook, tmp_path):
    from autograder.lms.roster_import import import_roster

    name = name_for_launch(gradebook, LaunchedPerson(KEY, "Ada", "King", "ada@uni"), True)
    roster = tmp_path / "roster.csv"
    roster.write_text(f"id,first_name,last_name,email,lms_user_id,lti_user_id\n{name},Ada,King,,1,someone-else\n")
    with pytest.raises(LmsError, match=f"entered by an LTI launch as LTI user '{KEY.user_id}'"):
        import_roster(gradebook, roster, "plain")
    roster.write_text(f"id,first_name,last_name,email,lms_user_id,lti_user_id\nada,Ada,King,,1,{KEY.user_id}\n")
    assert [p.id for p in import_roster(gradebook, roster, "plain").people] == [name]
    assert [s.id for s in gradebook.students] == [name] and gradebook.find_student(name).lms_user_id == "1"


def test_an_instructor_has_a_name_but_no_student_row_until_a_launch_as_a_learner(gradebook):
    name = name_for_launch(gradebook, LaunchedPerson(KEY, "Grace", "Hopper", "grace@uni"), as_student=False)
    assert name == "grace" and gradebook.students == []
    other = LaunchedPerson(LaunchKey(KEY.issuer, KEY.deployment_id, "user-7"), email="grace@uni")
    assert name_for_launch(gradebook, other, as_student=True).startswith("grace-"), "an instructor's name is taken"
    assert name_for_launch(gradebook, LaunchedPerson(KEY, "Grace", "Hopper"), as_student=True) == "grace"
    grace = gradebook.find_student("grace")
    assert (grace.first_name, grace.last_name) == ("Grace", "Hopper")
