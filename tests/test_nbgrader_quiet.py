"""A clean course runs every nbgrader command without configuration warnings: an option nbgrader does
not know is either a typo or a leftover, and a warning in every command hides the ones that matter."""

from autograder.course.nbgrader_cli import nbgrader
from tests.grading_course import ASSIGNMENT, grade, make_course, submit


def test_nbgrader_commands_do_not_warn_about_the_course_config(tmp_path):
    course = make_course(tmp_path)  # runs generate_assignment, checked below again
    submit(course, "ada")
    submit(course, "bob")
    assert grade(course, "--student", "ada").returncode == 0
    runs = {
        "generate_assignment": nbgrader(course, "generate_assignment", ASSIGNMENT, "--force"),
        "autograde": nbgrader(course, "autograde", ASSIGNMENT, "--student", "bob"),
        "generate_feedback": nbgrader(course, "generate_feedback", ASSIGNMENT),
        "export": nbgrader(course, "export"),
        "db student list": nbgrader(course, "db", "student", "list"),
    }
    for command, run in runs.items():
        log = run.stdout + run.stderr
        assert "not recognized" not in log, f"nbgrader {command}:\n{log[-2000:]}"
        assert "Traceback" not in log, f"nbgrader {command}:\n{log[-2000:]}"
    feedback = (course / "feedback" / "ada" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    assert "BEGIN HIDDEN TESTS" not in feedback and "autograder.nbgrader_glue.kernel" not in feedback  # still cleared
