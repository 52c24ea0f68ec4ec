"""An autograded exercise's answers grouped by the mistake its graders named (autograder/by_question): a few planted
answers to concat_weights really graded by `autograder grade`, their result files read by
`class_answers.read_code_answers`, grouped by `answer_groups.group_answers(code=True)`: by named mistake first,
whatever the text, then identical after whitespace inside a group; a student without a readable result file is
grouped by text alone, never by a mistake someone else's file named."""

import os
import re
import shutil

import pytest

from autograder.by_question.answer_groups import group_answers, normalised
from autograder.by_question.class_answers import read_code_answers
from autograder.course.result_file import RESULT_FILE
from autograder.devtools.catalogue import Answer, correct_answers, wrong_answers
from tests.grading_course import ASSIGNMENT, grade, make_course, submit

CELL = "test_concat_weights"


def planted(name: str) -> Answer:
    return next(a for a in wrong_answers(ASSIGNMENT) if a.label == f"concat_weights/{name}")


AXIS_0 = planted("axis-0")
# The same code retyped: other spaces and line breaks, so identical once whitespace is normalised.
AXIS_0_SPACED = Answer(AXIS_0.exercise, "axis-0-spaced", AXIS_0.code.replace("return ", "return   ")
                       .replace(", axis", ",\n        axis"))
CLASS = {"ax0": AXIS_0, "ax0-spaced": AXIS_0_SPACED, "vstack": planted("vstack"),
         "swapped": planted("blocks-swapped"), "hard": planted("hard-coded"),
         "right1": next(a for a in correct_answers(ASSIGNMENT) if a.exercise == "concat_weights"),
         "no-result": AXIS_0, "linked-result": AXIS_0}
CLASS["right2"] = CLASS["right1"]


@pytest.fixture(scope="module")
def autograded(tmp_path_factory):
    course = make_course(tmp_path_factory.mktemp("code-groups") / "course")
    for student, answer in CLASS.items():
        submit(course, student, [answer])
    done = grade(course)
    assert done.returncode == 0, done.stderr
    folder = course / "autograded"
    (folder / "no-result" / ASSIGNMENT / RESULT_FILE).unlink()  # as if graded by plain `nbgrader autograde`
    linked = folder / "linked-result" / ASSIGNMENT / RESULT_FILE
    linked.unlink()
    os.symlink(folder / "ax0" / ASSIGNMENT / RESULT_FILE, linked)  # a link is never followed
    return folder


def test_code_answers_group_by_the_named_mistake_then_by_text(autograded):
    answers = read_code_answers(autograded, ASSIGNMENT, ASSIGNMENT, CELL, sorted(CLASS) + ["absent"])
    by_student = {a.student: a for a in answers}
    assert by_student["ax0"].text == AXIS_0.code.strip("\n")  # the solution cell's code, not the grade cell's
    assert by_student["ax0"].mistakes == {"wrong_axis"} and by_student["right1"].mistakes == frozenset()
    groups = group_answers(answers, code=True)
    found = [(g.kind, sorted(g.mistakes), set(g.students)) for g in groups]
    assert found[0] == ("mistake", ["wrong_axis"], {"ax0", "ax0-spaced", "vstack"})
    assert ("mistake", ["block_order"], {"swapped"}) in found
    assert ("identical", [], {"right1", "right2"}) in found
    # No result file (or a link to another's): nothing named, so grouped by text, apart from the mistake group.
    assert ("identical", [], {"no-result", "linked-result"}) in found
    assert sorted(s for g in groups for s in g.students) == sorted([*CLASS, "absent"])
    # Inside the mistake group: identical after whitespace, the most common text first.
    assert groups[0].variants == [(normalised(AXIS_0.code), ("ax0", "ax0-spaced")),
                                  (normalised(planted("vstack").code), ("vstack",))]


def test_a_broken_result_file_names_nothing_and_says_nothing(autograded, tmp_path):
    broken = tmp_path / "s" / ASSIGNMENT
    shutil.copytree(autograded / "ax0" / ASSIGNMENT, broken)
    (broken / RESULT_FILE).write_text('{"student": "s", "cells": [')
    [answer] = read_code_answers(tmp_path, ASSIGNMENT, ASSIGNMENT, CELL, ["s"])
    assert answer.mistakes == frozenset() and answer.text == AXIS_0.code.strip("\n")


def test_the_exercise_page_shows_the_class_code_by_named_mistake_with_scores(autograded):
    """Grade by question lists the autograded exercise; its page groups the class's code as above, each group with
    its students' scores, and the code shown as text."""
    import urllib.request

    from autograder.course.settings import read_course
    from tests.question_service import serving_questions

    course = autograded.parent
    read_course(course, rooted=True)  # the course's settings, as the service reads them when it starts
    with serving_questions(course) as url:
        def page(query: str = "") -> str:
            request = urllib.request.Request(url + query, headers={"X-Test-User": "prof"})
            with urllib.request.urlopen(request, timeout=30) as reply:
                return reply.read().decode()

        index = page()
        exercise = page(f"?assignment={ASSIGNMENT}&notebook={ASSIGNMENT}&cell={CELL}")
    assert "<h2>Autograded exercises</h2>" in index and f"{ASSIGNMENT}: {CELL}</a>" in index
    code = exercise[exercise.index('<section class="code"'):]
    headings = re.findall(r'<h3 id="c\d+">(.*?)</h3>', code)
    assert headings[0].startswith("Group 1 of ") and "3 students, the same mistake named: wrong_axis" in headings[0]
    maximum = max(float(h.rsplit("/ ", 1)[1].split()[0]) for h in headings if "/ " in h)
    right = next(h for h in headings if h.endswith(f"2 students, no mistake named, identical code, "
                                                   f"{maximum:g} / {maximum:g} points"))
    assert right and "block_order" in code and "0 / " in headings[0]
    assert "&lt;" not in AXIS_0.code and "<pre class=\"answer\"" in code
