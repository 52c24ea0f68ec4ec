"""Text from students reaches the instructor's terminal escaped: the summary of `autograder grade`.

A student's folder name becomes their id, and what their code raised or printed is quoted in the
summary's problem lines; either could otherwise clear the screen and print a fake summary.
"""

import io

from rich.console import Console

from autograder.commands.grade import print_summary
from autograder.grading.scheduler import Summary
from tests.grading_course import grade, make_course, submit

# Clear the screen, go home, back to the start of the line, a new line, a C1 CSI, a right-to-left override
# and rich markup: what a student would use to erase the real summary and fake another.
HOSTILE = "eve\x1b[2J\x1b[H\rALL 40 GRADED, no problems\n\x9b2J\u202etxt.exe[red]x"
SHOWN = "eve\\x1b[2J\\x1b[H\\rALL 40 GRADED, no problems\\n\\x9b2J\\u202etxt.exe[red]x"
UNSAFE = ("\x1b", "\r", "\x9b", "\u202e")


def test_grade_summary_shows_a_hostile_folder_name_escaped(tmp_path):
    course = make_course(tmp_path / "course")
    submit(course, "ada")
    # A folder name cannot hold "/" or NUL; everything else in HOSTILE is allowed.
    submit(course, HOSTILE)  # not a plain id: refused, and the summary names the folder
    done = grade(course)
    assert done.returncode == 0, done.stderr
    assert not any(char in done.stdout for char in UNSAFE), done.stdout
    problems = [line for line in done.stdout.splitlines() if line.startswith("  ")]
    assert len(problems) == 1 and problems[0].startswith(f"  not graded: '{SHOWN}': not a valid student id")


def test_problem_lines_quote_student_messages_escaped(capsys):
    summary = Summary(graded=1, unreadable=1)
    summary.problems = [f"{HOSTILE}: limits hit (output): {HOSTILE}", f"bob: unreadable notebook: {HOSTILE}"]
    err = io.StringIO()
    print_summary(summary, "hw1", Console(file=err))
    out = capsys.readouterr().out
    assert not any(char in out for char in UNSAFE)
    lines = out.splitlines()
    assert lines[1:] == [f"  {SHOWN}: limits hit (output): {SHOWN}", f"  bob: unreadable notebook: {SHOWN}"]
