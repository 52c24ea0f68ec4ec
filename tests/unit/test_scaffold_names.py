"""`autograder new` refuses, before writing anything, a name it cannot scaffold: one line, no traceback, the
course folder as it was (a name ending in a newline passed the check and crashed, leaving folders behind;
exercise names such as `x`, `np` or `selfcheck` scaffolded code that shadowed its own names)."""

from pathlib import Path

import pytest

from autograder.authoring import AuthoringError
from autograder.authoring.scaffold import validate_names

CONFIG = "c = get_config()  # noqa: F821\nc.CourseDirectory.course_id = 'names'\n"


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() if p.is_file() else b"/" for p in sorted(root.rglob("*"))}


@pytest.fixture
def course(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "nbgrader_config.py").write_text(CONFIG)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("argv, says", [
    (["hsa\n", "tanh_step"], "'hsa\\n' is not a name for it"),
    (["hsa", "tanh_step\n"], "'tanh_step\\n' is not a name for it"),
    (["hsa ", "tanh_step"], "'hsa ' is not a name for it"),
    (["hsa", "Tanh"], "'Tanh' is not a name for it"),
    (["hsa", "class"], "'class' is not a name for it"),
    (["hsa", "x"], "exercise 'x' would shadow a name its notebook needs (the scaffolded functions and "
                   "self-checks name their argument x)"),
    (["hsa", "np"], "(the notebook, the self-check and the reference import NumPy as np)"),
    (["hsa", "selfcheck"], "(the notebook imports its self-check module as selfcheck)"),
    (["hsa", "grade"], "(the grade cells import autograder.nbgrader_glue.kernel's grade)"),
    (["hsa", "max"], "exercise 'max' would shadow a name its notebook needs (a Python built-in)"),
    (["hsa", "_"], "names starting with _"),
    # nbgrader refused the notebook: a grade id twice (the imports cell's; exercise a's grade cell test_a)
    (["hsa", "imports"], "exercise 'imports' would take the grade id of its notebook's imports cell"),
    (["hsa", "a", "test_a"], "exercise 'test_a' would take the grade id of the grade cell of exercise 'a' (test_a)"),
    # a traceback (file name too long), folders left behind
    (["hsa", "e" * 251], "exercise 'eeeeeeeeeeeeeeeeeeee'... is 251 characters long"),
])
def test_a_name_new_cannot_use_is_refused_in_one_line_and_nothing_is_written(course, capsys, argv, says):
    from autograder.cli import main

    before = snapshot(course)
    assert main(["new", *argv]) == 1
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err
    assert snapshot(course) == before, "no graders folder, no config line, no source folder"


@pytest.mark.parametrize("exercises", [["tanh_step"], ["concat_weights", "sigmoid_gate", "x_next"]])
def test_names_it_can_use_pass(exercises):
    validate_names("hidden_state", exercises)  # no error


def test_an_exercise_named_twice_is_refused():
    with pytest.raises(AuthoringError, match="named twice"):
        validate_names("hidden_state", ["step", "step"])
