"""The rule that keeps hidden tests and solutions from students (`autograder.course.secrecy`), on settings read as
the commands read them: the framework's defaults keep it, and each way a course's file can break it is one line
naming the file, the setting and the fix. (The commands' refusal: tests/test_course_defaults.py.)"""

import re

import pytest

from autograder.course import secrecy
from autograder.course.secrecy import LeakingSettings, refuse_leaks
from autograder.course.settings import read_course
from tests.unit.test_settings import config

QUIETLY = "'autograder.feedback.preprocessors.ClearHiddenTestsQuietly'"
TRACEBACKS = "'autograder.feedback.preprocessors.ClearGradeCellTracebacks'"


def refusal(folder, text: str) -> str:
    with pytest.raises(LeakingSettings) as caught:
        refuse_leaks(read_course(config(folder, text)))
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_the_framework_s_defaults_keep_the_rule(tmp_path):
    refuse_leaks(read_course(config(tmp_path, "c.CourseDirectory.course_id = 'any'\n")))


@pytest.mark.parametrize("line, expected", [
    ("c.GenerateFeedback.preprocessors = ['nbgrader.preprocessors.GetGrades', " + TRACEBACKS + "]",
     "c.GenerateFeedback.preprocessors has no step that removes hidden tests, so students' feedback would show "
     f"them: add {QUIETLY} to it, or delete the setting"),
    ("c.GenerateFeedback.preprocessors = ['nbgrader.preprocessors.ClearHiddenTests']",
     "c.GenerateFeedback.preprocessors has no step that shortens a grade cell's traceback, so students' feedback "
     f"would quote hidden tests in it: add {TRACEBACKS} to it, or delete the setting"),
    ("c.ClearHiddenTests.enabled = False",
     "c.ClearHiddenTests.enabled = False turns off the step that removes hidden tests, so students' feedback "
     "would show them: delete that line"),
    ("c.ClearHiddenTests.begin_test_delimeter = 'BEGIN SECRET'",
     "c.ClearHiddenTests.begin_test_delimeter = 'BEGIN SECRET' does not match the hidden tests' line "
     "'### BEGIN HIDDEN TESTS', so students' feedback would show them: delete that line"),
    ("c.GenerateAssignment.preprocessors = ['nbgrader.preprocessors.ClearHiddenTests']",
     "c.GenerateAssignment.preprocessors has no step that removes solutions, so the release, and so students' "
     "feedback, would show them: add 'nbgrader.preprocessors.ClearSolutions' to it, or delete the setting"),
])
def test_each_way_to_break_the_rule_is_one_line_naming_the_file_and_the_fix(tmp_path, line, expected):
    assert refusal(tmp_path, line + "\n") == f"{tmp_path / 'nbgrader_config.py'}: {expected}"


def test_a_step_s_own_section_wins_over_its_base_class_s(tmp_path):
    # Turned on again for the feedback's step (a subclass), nbgrader's own stays off for the release.
    message = refusal(tmp_path, "c.ClearHiddenTests.enabled = False\nc.ClearHiddenTestsQuietly.enabled = True\n")
    assert message.endswith("c.ClearHiddenTests.enabled = False turns off the step that removes hidden tests, so the "
                            "release would show them: delete that line")


def test_a_course_s_own_step_counts_by_what_it_derives_from(tmp_path):
    # nbgrader imports it with the course folder on sys.path; so does the rule.
    (tmp_path / "course_steps.py").write_text(
        "from nbgrader.preprocessors import ClearHiddenTests\n\nclass KeepSecrets(ClearHiddenTests):\n    pass\n")
    refuse_leaks(read_course(config(tmp_path, "c.GenerateFeedback.preprocessors = ['course_steps.KeepSecrets', "
                                              f"{TRACEBACKS}]\n")))
    assert "has no step that removes hidden tests" in refusal(
        tmp_path, f"c.GenerateFeedback.preprocessors = ['course_steps.NoSuchStep', {TRACEBACKS}]\n")


def test_appending_to_the_defaults_keeps_them(tmp_path):
    refuse_leaks(read_course(config(tmp_path, "c.GenerateFeedback.preprocessors.append('my.Step')\n")))


def test_without_the_framework_s_defaults_nbgrader_s_own_list_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_NO_CONFIG", "1")  # no config folder is read: nbgrader's own defaults
    message = refusal(tmp_path, "c.CourseDirectory.course_id = 'any'\n")
    assert re.fullmatch(r"no config file sets c\.GenerateFeedback\.preprocessors, and nbgrader's own has no step "
                        r"that removes hidden tests, so students' feedback would show them: the framework's defaults "
                        r"\(.*/etc/jupyter/nbgrader_config\.py\) are not read: install the framework again "
                        r"\(pip install -e CLONE\)", message), message
    # A course that lists the steps itself needs no defaults.
    refuse_leaks(read_course(config(tmp_path, f"c.GenerateFeedback.preprocessors = [{QUIETLY}, {TRACEBACKS}]\n")))


def test_the_names_the_rule_knows_are_the_real_classes_and_nbgrader_s_lists():
    from nbgrader.converters import GenerateAssignment, GenerateFeedback
    from traitlets.utils.importstring import import_item

    for name, classes in secrecy.KNOWN.items():
        assert secrecy._mro(import_item(name))[:len(classes)] == classes, name
        assert secrecy._mro(import_item(name))[len(classes)].startswith("traitlets.traitlets."), name

    lists = ((GenerateFeedback, secrecy.NBGRADER_FEEDBACK), (GenerateAssignment, secrecy.NBGRADER_RELEASE))
    for converter, ours in lists:
        steps = converter.class_traits()["preprocessors"].default()
        assert [step.__name__ for step in steps] == [name.rsplit(".", 1)[1] for name in ours], converter.__name__
        assert all(import_item(name) is step for name, step in zip(ours, steps, strict=True)), converter.__name__
