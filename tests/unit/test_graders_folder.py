"""A course's own graders folder (`c.Autograder.graders`): read from nbgrader_config.py, imported as
`autograder.graders.<assignment>`, hidden from the sandbox, with the assignment's own hints."""

from pathlib import Path

import pytest

from autograder.course.settings import SettingsError, early_settings, read_course
from autograder.grader_support.exercise import GradersError, exercises, reference_function, run_exercise
from autograder.grader_support.hints import HINTS, hint_text
from autograder.grader_support.student import InProcessStudent
from autograder.grading.startup import hidden_paths

ASSIGNMENT = "unit_own_graders"  # a name no other test's graders use: the mount lasts for the process

GRADER = '''import pytest

from autograder.grader_support.checks import check_array
from autograder.graders.unit_own_graders import reference as ref


@pytest.mark.points(2)
def test_value(student):
    x = [[1.0], [2.0]]
    check_array(student.double(x), ref.double(x), what="double(x)", mistakes={"halved": lambda: ref.half(x)})
'''


def course(tmp_path: Path, config: str) -> Path:
    package = tmp_path / "my_graders" / ASSIGNMENT
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "reference.py").write_text(
        "import numpy as np\n\ndef double(x):\n    return 2 * np.asarray(x)\n\n"
        "def half(x):\n    return np.asarray(x) / 2\n")
    (package / "hints.py").write_text('HINTS = {"halved": "divided by two where it should multiply."}\n')
    (package / "test_double.py").write_text(GRADER)
    (tmp_path / "nbgrader_config.py").write_text(f"c = get_config()\n{config}\n")
    return tmp_path


def test_a_course_graders_folder_is_read_imported_and_hidden(tmp_path):
    root = course(tmp_path, 'c.Autograder.graders = "my_graders"')
    settings = read_course(root)
    assert settings.graders == (root / "my_graders").resolve()
    assert early_settings(root).graders == settings.graders
    assert str(settings.graders) in hidden_paths(root, settings.graders)
    assert exercises(ASSIGNMENT) == ("double",)

    import numpy as np

    wrong = run_exercise(ASSIGNMENT, "double", InProcessStudent({"double": lambda x: np.asarray(x) / 2}))
    assert (wrong.score, wrong.max_score) == (0, 2)
    assert "hint [halved]: divided by two where it should multiply." in wrong.feedback()
    assert hint_text("halved", ASSIGNMENT) == "divided by two where it should multiply."
    assert hint_text("wrong_axis", ASSIGNMENT) == HINTS["wrong_axis"]  # the shared ones stay
    right = run_exercise(ASSIGNMENT, "double", InProcessStudent({"double": lambda x: 2 * np.asarray(x)}))
    assert right.score == 2

    with pytest.raises(GradersError, match=r"my_graders/unit_own_graders/reference.py: no function triple\(\)"):
        reference_function(ASSIGNMENT, "triple")


def test_without_the_setting_the_graders_are_the_packages(tmp_path):
    root = course(tmp_path, 'c.CourseDirectory.course_id = "x"')
    assert read_course(root).graders is None
    assert early_settings(root).graders is None


@pytest.mark.parametrize("config, message", [
    ('c.Autograder.graders = "nowhere"', "c.Autograder.graders = 'nowhere': no such folder"),
    ('c.Autograder.grader = "my_graders"', "c.Autograder.grader: unknown setting (known: graders, "),
    ("c.Autograder.graders = 3", "c.Autograder.graders must be a folder's path, not 3"),
    ('c.Autograder.accept_bare_sandbox = "yes"', "c.Autograder.accept_bare_sandbox must be True or False, not 'yes'"),
])
def test_a_wrong_setting_is_one_line_naming_the_file(tmp_path, config, message):
    root = course(tmp_path, config)
    with pytest.raises(SettingsError) as caught:
        read_course(root)
    assert str(caught.value).startswith("nbgrader_config.py: ") and message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_the_sandbox_level_is_isolated_unless_the_course_accepts_bare(tmp_path, monkeypatch):
    monkeypatch.delenv("AUTOGRADER_SANDBOX", raising=False)
    assert read_course(course(tmp_path / "a", 'c.CourseDirectory.course_id = "x"')).sandbox_level == "auto"
    accepting = course(tmp_path / "b", "c.Autograder.accept_bare_sandbox = True")
    assert read_course(accepting).sandbox_level == "auto-or-bare"
    assert early_settings(accepting).sandbox_level == "auto-or-bare"
