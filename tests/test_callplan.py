"""Sending a notebook's requests ahead (the call plan) must not change a single grade or output.

Every answer of both catalogues, the blank release and the adversarial answers (an endless loop, a
process that kills itself) is graded twice in the same sandbox machinery: with the plan, and call by call
as the graders ask. The outcomes must be identical. Correct answers should rarely need the fallback (one
that stacks [h; x] consistently does: the graders feed its own stacks back to it, which no plan can
know); if many did, the plan would no longer describe what the graders do on a right answer.
"""

import dataclasses

import pytest

from autograder import classgrade
from autograder.catalogue import correct_answers, write_submission, wrong_answers
from autograder.catalogue.classroom import adversarial_answers
from autograder.course import available_assignments, nbgrader, new_course
from autograder.engine import grade_submission
from autograder.gradebook import GradebookWriter
from autograder.sandbox.client import Zygote


@pytest.fixture(scope="module")
def zygote():
    with Zygote() as z:
        yield z


def comparable(outcome) -> dict:
    data = outcome.to_dict()
    data["result"].pop("seconds")
    data.pop("regraded")
    return data


# The endless loop is tried where every honest cell takes milliseconds, with a short cell limit so that it
# ends soon; rnn_update_equations draws a figure, so it keeps nbgrader's limit.
ATTACKED = {"hidden_state_activation": 3.0}


def jobs(root, assignment: str) -> dict[str, tuple[str, object]]:
    """Each submission's job, by student, with its kind."""
    course = new_course(root, (assignment,))
    nbgrader(course, "generate_assignment", assignment, "--force")
    release = course / "release" / assignment
    kinds = {"solution": ("correct", []), "blank": ("blank", None)}
    for i, answer in enumerate(correct_answers(assignment)):
        kinds[f"c{i:03d}"] = ("correct", [answer])
    attacks = [a for a in adversarial_answers(assignment) if a.name in ("infinite-loop", "kills-its-process")
               and assignment in ATTACKED]
    for i, answer in enumerate(wrong_answers(assignment) + attacks):
        kinds[f"w{i:03d}"] = ("wrong", [answer])
    for student, (_, answers) in kinds.items():
        write_submission(assignment, course / "submitted" / student / assignment, answers or [],
                         blank=answers is None, release=release)
    settings = classgrade.load_settings(course)
    writer = GradebookWriter(settings.db_url, settings.course_id)
    sources = writer.source_notebooks(assignment)
    modules, preload = classgrade.instructor_files(settings, sources, assignment)
    writer.close()
    limits = dataclasses.replace(settings.limits, cell_seconds=ATTACKED.get(assignment, 30.0))
    found = {}
    for student, (kind, _) in kinds.items():
        job = classgrade.prepare(settings, sources, modules, assignment, student, preload).job
        found[student] = (kind, dataclasses.replace(job, limits=limits))
    return found


@pytest.mark.parametrize("assignment", available_assignments())
def test_plan_grades_exactly_as_call_by_call(assignment, zygote, tmp_path):
    regraded_correct, differ, correct = [], [], 0
    for student, (kind, job) in jobs(tmp_path / "course", assignment).items():
        planned = grade_submission(job, zygote)
        asked = grade_submission(job, zygote, plan=False)
        if comparable(planned) != comparable(asked):
            differ.append(student)
        correct += kind == "correct"
        if kind == "correct" and planned.regraded:
            regraded_correct.append(student)
    assert differ == []
    assert len(regraded_correct) <= correct // 10, regraded_correct
