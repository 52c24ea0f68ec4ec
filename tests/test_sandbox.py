"""The sandbox on its own: the zygote's isolation, and the same verdicts as in-process (the wire format is in
tests/unit/test_wire.py)."""

import re

import numpy as np
import pytest

from autograder.devtools.catalogue import correct_answers, write_submission, wrong_answers
from autograder.grader_support.activations import ACTIVATIONS
from autograder.grader_support.exercise import run_exercise
from autograder.grader_support.student import InProcessStudent, StudentError
from autograder.nbgrader_glue.notebook import is_test_cell, load_namespace, read_notebook, visible_part
from autograder.sandbox.limits import Limits
from autograder.sandbox.output_budget import OutputBudget
from autograder.sandbox.sandboxed_student import SandboxedStudent
from autograder.sandbox.syntax import python_source
from autograder.sandbox.zygote_handle import Zygote
from tests.conftest import CATALOGUED

ASSIGNMENT = "hidden_state_activation"


@pytest.fixture(scope="module")
def zygote():
    with Zygote() as z:
        yield z


def test_zygote_holds_no_grader_code(zygote):
    sandbox = zygote.spawn(Limits())
    try:
        reply = sandbox.run_cell("import sys\nsorted(m for m in sys.modules if m.startswith('autograder'))", 10,
                                 OutputBudget(10**5))
    finally:
        sandbox.close()
    loaded = eval(reply["result"])
    # `raised`: how an exception is reported to the grader (its type and lines), no grader code.
    support = ("", ".activations", ".student", ".raised")
    student_side = ("autograder", *(f"autograder.grader_support{m}" for m in support))
    assert loaded and all(m in student_side or m.startswith("autograder.sandbox") for m in loaded), loaded


def test_function_arguments_cross_by_name_and_mutations_come_back(zygote):
    import time

    sandbox = zygote.spawn(Limits())
    try:
        sandbox.run_cell("def f(a, layers, g):\n    a += 1\n    layers[0]['W'][0, 0] = 7\n    return g(a)", 10,
                         OutputBudget(10**5))
        student = SandboxedStudent(sandbox, time.monotonic() + 10)
        a, layers = np.zeros((2, 2)), [{"W": np.zeros((1, 1))}]
        got = student.f(a, layers, ACTIVATIONS["tanh"])
        assert np.allclose(got, np.tanh(1.0)) and np.all(a == 1) and layers[0]["W"][0, 0] == 7
        with pytest.raises(StudentError, match="not defined"):
            student.missing()
    finally:
        sandbox.close()


@pytest.mark.parametrize("code, said", [
    ("np.frompyfunc(lambda v: v + 1, 1, 1)(np.zeros((2, 2)))", r"an array of dtype object .*\.astype\(float\)"),
    ("np.zeros(2, dtype=[('a', float), ('b', int)])", "an array of a structured dtype"),
    ("np.zeros(2, dtype='datetime64[s]')", r"an array of dates \(datetime64\)"),
    ("(x for x in range(3))", "a value that is neither numbers, text, arrays of numbers"),
], ids=["object", "structured", "dates", "generator"])
def test_a_value_that_cannot_cross_is_named_by_what_it_is_never_by_the_sandbox_s_lines(zygote, code, said):
    """Real code returns such values (np.frompyfunc makes an object array): the student reads what their value
    was and the way out, in the grader's words; nothing of the trusted side's code."""
    import time

    sandbox = zygote.spawn(Limits())
    try:
        sandbox.run_cell(f"import numpy as np\ndef f():\n    return {code}", 10, OutputBudget(10**5))
        with pytest.raises(StudentError) as raised:
            SandboxedStudent(sandbox, time.monotonic() + 10).f()
        message = str(raised.value)
        assert re.search(f"^f returned {said}", message) and "line" not in message and "_send_call" not in message
    finally:
        sandbox.close()


def test_a_traceback_in_the_sandbox_quotes_the_students_line_and_the_self_check_names_the_mistake(zygote):
    """As in a kernel: a traceback through a cell shows that cell's line, and a failing self-check says in which
    function its line is and which known mistake the worked example shows (the graders' table, generated)."""
    from autograder.devtools.repo import ROOT

    sandbox = zygote.spawn(Limits())
    try:
        sandbox.send_modules({"selfcheck": (ROOT / "source" / ASSIGNMENT / "selfcheck.py").read_text()})
        sandbox.run_cell("import numpy as np\n\ndef concat_state_input(h_t_prev, x_t):\n"
                         "    stacked = np.concatenate((h_t_prev, x_t), axis=1)\n    return stacked\n", 10,
                         OutputBudget(10**5))
        checked = sandbox.run_cell("import selfcheck\nselfcheck.check_concat_state_input(concat_state_input)", 10,
                                   OutputBudget(10**5))
        crashed = sandbox.run_cell("concat_state_input(np.ones((2, 1)), np.ones((3, 1)))", 10, OutputBudget(10**5))
    finally:
        sandbox.close()
    said = checked["error"]["evalue"]
    assert "line 4, in `concat_state_input`: stacked = np.concatenate((h_t_prev, x_t), axis=1)" in said, said
    assert "known mistake [wrong_axis]: joined along the wrong axis" in said, said
    shown = "".join(crashed["error"]["traceback"])
    assert 'File "<cell 1>", line 4, in concat_state_input\n    stacked = np.concatenate(' in shown, shown


def sandbox_namespace_cells(path):
    nb = read_notebook(path)
    return [python_source(visible_part(c.source) if is_test_cell(c) else c.source)
            for c in nb.cells if c.cell_type == "code"]


@pytest.mark.parametrize("assignment", CATALOGUED)
def test_same_verdicts_in_process_and_in_the_sandbox(assignment, zygote, tmp_path):
    """Every catalogue answer: each grader case earns the same in a kernel-like namespace and remotely."""
    import time

    from autograder.devtools.repo import ROOT
    from autograder.grading.instructor import instructor_code, instructor_imports

    source = ROOT / "source" / assignment
    modules = {"selfcheck": (source / "selfcheck.py").read_text()}
    # As grading does: the zygote imports what the instructor's notebook imports (matplotlib) once for all children.
    warm = {"imports": instructor_imports(instructor_code(source), modules)}
    shown = False
    for index, answer in enumerate(correct_answers(assignment) + wrong_answers(assignment)):
        path = write_submission(assignment, tmp_path / f"s{index}", [answer])
        local = InProcessStudent(load_namespace(path))
        sandbox = zygote.spawn(Limits(), warm)
        try:
            sandbox.send_modules(modules)
            for source in sandbox_namespace_cells(path):
                sandbox.run_cell(source, 30, OutputBudget(10**5))
            remote = SandboxedStudent(sandbox, time.monotonic() + 60)
            here = run_exercise(assignment, answer.exercise, local)
            there = run_exercise(assignment, answer.exercise, remote)
        finally:
            sandbox.close()
        assert [c.earned for c in there.cases] == [c.earned for c in here.cases], answer.label
        assert there.hints == here.hints, answer.label
        assert there.counterexample == here.counterexample, answer.label
        shown |= bool(there.counterexample)
    assert shown  # the smallest public input that shows a mistake, found through the sandbox as in-process


def test_bare_level_still_grades_and_says_what_is_off(tmp_path):
    with Zygote(level="bare") as z:
        assert z.info.level == "bare"
        assert {"hidden files", "pid namespace", "unprivileged uid"} <= set(z.info.missing)
        sandbox = z.spawn(Limits())
        try:
            reply = sandbox.run_cell("import os\nos.getcwd()", 10, OutputBudget(10**5))
            assert "autograder-scratch-" in reply["result"]
            reply = sandbox.run_cell("import socket\nsocket.socket()", 10, OutputBudget(10**5))
            assert reply["error"]["ename"] == "PermissionError"  # seccomp still refuses sockets
        finally:
            sandbox.close()


def test_a_job_and_its_outcome_travel_as_json(zygote):
    """The unit of work can move between machines: job and outcome survive a JSON round trip."""
    import json

    from autograder.grading.model import CellJob, Job, NotebookJob, Outcome
    from autograder.grading.submission import grade_submission

    job = Job("s1", "hidden_state_activation", [NotebookJob("nb", [
        CellJob("code", "import numpy as np\ndef sigmoid(z):\n    return 1 / (1 + np.exp(-z))"),
        CellJob("test", "assert sigmoid(0) == 0.5", "test_sigmoid", 7.0, "hidden_state_activation", "sigmoid"),
        CellJob("skip"),
    ])], limits=Limits(cell_seconds=20))
    job = Job.from_dict(json.loads(json.dumps(job.to_dict())))
    outcome = Outcome.from_dict(json.loads(json.dumps(grade_submission(job, zygote).to_dict())))
    assert [(c.grade_id, c.score) for c in outcome.result.cells] == [("test_sigmoid", 7.0)]
    assert len(outcome.outputs["nb"]) == 3 and outcome.outputs["nb"][1][-1]["data"]["text/plain"] == "7.0"


def test_a_zygote_started_by_one_process_serves_another_and_ends_with_it():
    """As the grade command does: it starts the zygotes first, and each forked worker takes one over."""
    import os

    from autograder.sandbox.launch import launch, requested_level

    launched = launch(requested_level(), [])
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: greets the zygote, checks it lives (it is not this process's child), uses it
        code = 1
        try:
            os.close(read)
            with Zygote(launched=launched) as z:
                sandbox = z.spawn(Limits())
                try:
                    reply = sandbox.run_cell("6 * 7", 10, OutputBudget(10**5))
                finally:
                    sandbox.close()
                os.write(write, f"{z.alive()} {z.process.pid} {reply['result']}".encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    launched.close()  # the starter keeps only the process, to reap it
    _, status = os.waitpid(pid, 0)
    report = os.read(read, 200).decode()
    os.close(read)
    assert os.waitstatus_to_exitcode(status) == 0
    assert report == f"True {launched.process.pid} 42"  # the launched zygote, not one of its own
    assert launched.process.wait(timeout=10) is not None  # gone with its owner, though started here
