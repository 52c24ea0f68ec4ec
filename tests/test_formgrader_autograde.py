"""The formgrader's Autograde button (nbgrader's `NbGraderAPI.autograde`, as its handlers call it) grades
through the sandboxed engine: same scores as `autograder grade`, the result file kept, the student's code
unable to write into the course, and no checksum warnings for the hidden tests put back."""

import pytest

from autograder.devtools.catalogue import Answer, wrong_answers
from tests.grading_course import ASSIGNMENT, grade, make_course, result, scores, submit


@pytest.fixture()
def course(tmp_path, monkeypatch):
    course = make_course(tmp_path / "course")
    monkeypatch.chdir(course)  # the formgrader's server runs in the course folder
    return course


def formgrader_api(course):
    """NbGraderAPI configured as the formgrader's server configures it (`FormgradeExtension.load_config`): from the
    Jupyter config folders, the framework's defaults among them (they send Autograde through the sandbox), and the
    course folder it runs in."""
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.apps.baseapp import NbGrader
    from nbgrader.coursedir import CourseDirectory

    app = NbGrader()
    app.load_config_file()
    config = app.config
    coursedir = CourseDirectory(config=config)
    coursedir.root = str(course)
    return NbGraderAPI(coursedir, config=config)


def test_autograde_button_uses_the_sandboxed_engine(course):
    wrong = wrong_answers(ASSIGNMENT)[0]
    writer = Answer(wrong.exercise, "writes", f"open({str(course / 'PWNED')!r}, 'w').write('x')\n{wrong.code}")
    submit(course, "ada")
    submit(course, "eve", [writer])
    assert grade(course).returncode == 0
    ours = scores(course)
    api = formgrader_api(course)
    for student in ("ada", "eve"):
        done = api.autograde(ASSIGNMENT, student)
        assert done["success"], done.get("error")
        assert "has changed" not in done.get("log", ""), done.get("log")
    assert scores(course) == ours
    assert not (course / "PWNED").exists()  # in nbgrader's own kernel the student's code could write there
    assert result(course, "eve")["cells"] and result(course, "ada")["status"] == "graded"
