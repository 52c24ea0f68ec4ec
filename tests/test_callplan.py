"""Sending a notebook's requests ahead (the call plan) must not change a single grade or output.

Every answer of both catalogues, the blank release and the adversarial answers (an endless loop, a
process that kills itself) is graded twice in the same sandbox machinery: with the plan, and call by call
as the graders ask. The outcomes must be identical. Correct answers should rarely need the fallback (one
that stacks [h; x] consistently does: the graders feed its own stacks back to it, which no plan can
know); if many did, the plan would no longer describe what the graders do on a right answer.
"""

import dataclasses

import numpy as np
import pytest

from autograder.course.settings import read_course
from autograder.devtools.catalogue import correct_answers, write_submission, wrong_answers
from autograder.devtools.catalogue.classroom import adversarial_answers
from autograder.grader_support.exercise import exercises
from autograder.grading import instructor, prepare
from autograder.grading.self_check.callplan import _recorded
from autograder.grading.submission import Stages, grade_submission
from autograder.grading.writer import GradebookWriter
from autograder.sandbox.output_budget import OutputBudget
from autograder.sandbox.zygote_handle import Zygote
from tests.conftest import ASSIGNMENTS, CATALOGUED
from tests.grading_course import make_course


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
    course = make_course(root, assignment=assignment)
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
    settings = read_course(course, rooted=True)
    writer = GradebookWriter(settings.db_url, settings.course_id)
    sources = writer.source_notebooks(assignment)
    modules, preload = instructor.instructor_files(settings, sources, assignment)
    writer.close()
    limits = dataclasses.replace(settings.limits, cell_seconds=ATTACKED.get(assignment, 30.0))
    found = {}
    for student, (kind, _) in kinds.items():
        job = prepare.prepare(settings, sources, modules, assignment, student, preload).job
        found[student] = (kind, dataclasses.replace(job, limits=limits))
    return found


@pytest.mark.parametrize("assignment", CATALOGUED)
def test_plan_grades_exactly_as_call_by_call(assignment, zygote, tmp_path):
    regraded_correct, differ, correct = [], [], 0
    for student, (kind, job) in jobs(tmp_path / "course", assignment).items():
        planned = grade_submission(job, zygote)
        asked = grade_submission(job, zygote, Stages(plan=False))
        if comparable(planned) != comparable(asked):
            differ.append(student)
        correct += kind == "correct"
        if kind == "correct" and planned.regraded:
            regraded_correct.append(student)
    assert differ == []
    assert len(regraded_correct) <= correct // 10, regraded_correct


def test_a_planned_call_is_recognised_without_encoding_only_when_encoding_would_agree():
    from autograder.grader_support.activations import ACTIVATIONS
    from autograder.grader_support.judge import fresh
    from autograder.grading.self_check.callplan import planned_calls
    from autograder.sandbox.planned import planned_call
    from autograder.sandbox.request_builders import call_request

    def crosses_as(request, name, args, kwargs):
        sent = call_request(name, args, kwargs, "g")
        return request.same(sent.header, sent.buffers)

    w, h = np.arange(6.0).reshape(2, 3), np.zeros((3, 1))
    request = planned_call("f", (w, [h, 2]), {"scale": 0.0, "g": ACTIVATIONS["tanh"]}, "g")
    assert request.matches("f", (w.copy(), [h.copy(), 2]), {"scale": 0.0, "g": ACTIVATIONS["tanh"]}, "g")
    one_off = w.copy()
    one_off[1, 2] += 1e-12
    variants = [
        ((one_off, [h, 2]), {"scale": 0.0, "g": ACTIVATIONS["tanh"]}),  # one element
        ((w.astype(np.float32), [h, 2]), {"scale": 0.0, "g": ACTIVATIONS["tanh"]}),  # dtype
        ((w.reshape(3, 2), [h, 2]), {"scale": 0.0, "g": ACTIVATIONS["tanh"]}),  # shape
        ((w, (h, 2)), {"scale": 0.0, "g": ACTIVATIONS["tanh"]}),  # a tuple for the list
        ((w, [h, 2.0]), {"scale": 0.0, "g": ACTIVATIONS["tanh"]}),  # equal, but a float
        ((w, [h, True]), {"scale": 0.0, "g": ACTIVATIONS["tanh"]}),
        ((w, [h, 2]), {"scale": -0.0, "g": ACTIVATIONS["tanh"]}),  # the sign of a zero
        ((w, [h, 2]), {"scale": 0.0, "g": ACTIVATIONS["relu"]}),  # another function
        ((w, [h, 2]), {"g": ACTIVATIONS["tanh"], "scale": 0.0}),  # keywords in another order
        ((w, [h, 2, 3]), {"scale": 0.0, "g": ACTIVATIONS["tanh"]}),
        ((w, [h]), {"scale": 0.0, "g": ACTIVATIONS["tanh"]}),
        ((w, [h, 2], 1), {"scale": 0.0, "g": ACTIVATIONS["tanh"]}),
        ((w.view(type("Sub", (np.ndarray,), {})), [h, 2]), {"scale": 0.0, "g": ACTIVATIONS["tanh"]}),
    ]
    for args, kwargs in variants:
        assert not request.matches("f", args, kwargs, "g"), (args, kwargs)
    assert not request.matches("f", (w, [h, 2]), {"scale": 0.0, "g": ACTIVATIONS["tanh"]}, "other cell")
    assert not request.matches("f2", (w, [h, 2]), {"scale": 0.0, "g": ACTIVATIONS["tanh"]}, "g")
    # Changing what the pattern was made from does not move it.
    w[0, 0] = 99
    assert not request.matches("f", (w, [h, 2]), {"scale": 0.0, "g": ACTIVATIONS["tanh"]}, "g")

    # Every planned call of every grader is recognised on the copies the graders hand out.
    for assignment in ASSIGNMENTS:
        for exercise in exercises(assignment):
            plan = planned_calls(assignment, exercise, "g")
            for request, (name, args, kwargs) in zip(plan, _recorded(assignment, exercise), strict=True):
                copies = tuple(map(fresh, args)), dict(kwargs)
                assert request.matches(name, *copies, "g") and crosses_as(request, name, *copies)


def test_a_call_that_differs_from_the_plan_in_one_element_is_not_taken_for_it(zygote):
    import time

    from autograder.sandbox.limits import Limits
    from autograder.sandbox.planned import PlanMismatch, PlannedSandbox, planned_call
    from autograder.sandbox.request_builders import cell_request
    from autograder.sandbox.sandboxed_student import SandboxedStudent

    planned = np.arange(4.0)
    sandbox = zygote.spawn(Limits(), kind=PlannedSandbox)
    try:
        sandbox.announce([cell_request("def f(a):\n    return a.sum()", True, None),
                          planned_call("f", (planned,), {}, "g")])
        sandbox.run_cell("def f(a):\n    return a.sum()", 10, OutputBudget(10**5))
        student = SandboxedStudent(sandbox, time.monotonic() + 10, "g")
        changed = planned.copy()
        changed[3] = 5.0
        with pytest.raises(PlanMismatch):
            student.f(changed)
        assert student.f(planned.copy()) == 6.0  # the one sent ahead, still there to claim
    finally:
        sandbox.close()


def test_planned_calls_held_by_the_zygote_run_on_fresh_copies_and_report_changes(zygote):
    import time

    from autograder.sandbox.limits import Limits
    from autograder.sandbox.planned import PlannedSandbox, planned_call
    from autograder.sandbox.request_builders import cell_request
    from autograder.sandbox.sandboxed_student import SandboxedStudent

    a, layers = np.arange(4.0), [np.zeros((1, 2))]
    request = planned_call("f", (a, layers), {"scale": 2}, "g")
    zygote.spawn(Limits(), {"calls": [request]}).close()  # a spare asked for before, without it
    sandbox = zygote.spawn(Limits(), {"calls": [request]}, PlannedSandbox)
    source = ("def f(a, layers, scale):\n    a += 1\n    layers[0][0, 1] = 7\n    layers.append(None)\n"
              "    return a.sum() * scale")
    try:
        assert request.key in sandbox.preloaded and len(request.brief) < 100
        sandbox.announce([cell_request(source, True, None), request, request])
        sandbox.run_cell(source, 10, OutputBudget(10**5))
        student = SandboxedStudent(sandbox, time.monotonic() + 10, "g")
        for _ in range(2):  # the second call's arguments are as planned, whatever the first did to its own
            mine, my_layers = a.copy(), [layers[0].copy()]
            assert student.f(mine, my_layers, scale=2) == 20.0
            assert np.array_equal(mine, a + 1) and my_layers[0][0, 1] == 7 and my_layers[1] is None
    finally:
        sandbox.close()


def test_a_process_without_a_planned_call_sent_by_its_key_makes_the_notebook_regrade(zygote):
    import time

    from autograder.sandbox.limits import Limits
    from autograder.sandbox.planned import PlanMismatch, PlannedSandbox, planned_call
    from autograder.sandbox.request_builders import cell_request
    from autograder.sandbox.sandboxed_student import SandboxedStudent

    request = planned_call("f", (np.arange(3.0),), {}, "g")  # never sent to the zygote
    sandbox = zygote.spawn(Limits(), kind=PlannedSandbox)
    try:
        sandbox.preloaded = frozenset({request.key})
        sandbox.announce([cell_request("def f(a):\n    return 1", True, None), request])
        sandbox.run_cell("def f(a):\n    return 1", 10, OutputBudget(10**5))
        with pytest.raises(PlanMismatch):
            SandboxedStudent(sandbox, time.monotonic() + 10, "g").f(np.arange(3.0))
    finally:
        sandbox.close()
