"""Submissions that attack the grader. Each may lose its own points and must get a clear message; nobody
else's grade changes, nothing is left running, the gradebook stays intact and the command exits 0.

Every attack is bounded by itself (a fork bomb forks a few hundred sleepers at most, a memory bomb asks
for a fixed size), so a broken sandbox costs a test failure, not the machine. Nothing here signals a
process group or -1.
"""

import os
import time
from pathlib import Path

import pytest

from autograder.devtools.catalogue import Answer, wrong_answers
from autograder.nbgrader_glue.notebook import grade_id
from tests.counting_listener import counting_listener
from tests.grading_course import ASSIGNMENT, add_cell, grade, make_course, outputs_text, result, scores, submit

FULL = {"test_concat_weights": 6.0, "test_concat_state_input": 6.0, "test_formula_1": 6.0,
        "test_formula_2": 6.0, "test_sigmoid": 7.0, "test_hidden_state": 15.0}
WRONG = wrong_answers(ASSIGNMENT)[0]  # concat_weights joined along axis 0
CW = "concat_weights"


def cw(body: str) -> Answer:
    return Answer(CW, "attack", f"def concat_weights(w_hh, w_hx):\n{body}")


def wrong_with(code: str) -> dict:
    """An attack whose submission is the known wrong answer, plus attack code run when the solution cell runs."""
    return dict(answers=[Answer(CW, "attack", f"{code}\n{WRONG.code}")])


ATTACKS = {
    "patch_allclose": wrong_with(
        "import numpy as np\nnp.allclose = lambda *a, **k: True\nnp.array_equal = lambda *a, **k: True\n"
        "np.isclose = lambda a, b, *x, **k: np.ones(np.shape(a), bool)\n"
        "np.testing.assert_allclose = lambda *a, **k: None"),
    "shadow_modules": dict(answers=[WRONG], files={
        "numpy.py": "open('/tmp/SHADOWED', 'w').write('x')\nfrom numpy import *\n",
        "pytest.py": "raise SystemExit('shadow pytest')\n", "conftest.py": "raise SystemExit('shadow conftest')\n",
        "autograder.py": "def grade(*a, **k):\n    print('all good')\n    return 99.0\n",
        "selfcheck.py": "def __getattr__(name):\n    return lambda f: None\n"}),
    "lying_subclass": dict(answers=[cw(
        "    class Liar(np.ndarray):\n        def __eq__(self, other): return np.ones(np.shape(other), bool)\n"
        "        def __array_ufunc__(self, *a, **k): return np.bool_(True)\n"
        "        shape = property(lambda self: (w_hh.shape[0], w_hh.shape[1] + w_hx.shape[1]))\n"
        "    return np.zeros((1, 1)).view(Liar)")]),
    "output_hooks": wrong_with(
        "import sys, builtins\nsys.displayhook = lambda v: sys.__stdout__.write('6.0')\n"
        "builtins.print = lambda *a, **k: sys.__stdout__.write('concat_weights: 6 / 6 points')\n"
        "get_ipython().display_formatter = None"),
    "edits_test_cells": dict(answers=[WRONG], edit="replace_and_delete"),
    "reads_secrets": wrong_with(
        "import glob, os\nfound = []\n"
        "for pattern in ['{course}/gradebook.db', '{course}/source/*/*', '{repo}/autograder/graders/*/*.py',\n"
        "                '{course}/submitted/*/*/*.ipynb', os.path.expanduser('~') + '/*', '/root/*']:\n"
        "    for path in glob.glob(pattern):\n        try:\n            open(path, 'rb').read(10); found.append(path)\n"
        "        except OSError: pass\n"
        "try:\n    import autograder.graders.hidden_state_activation.reference; found.append('graders')\n"
        "except ImportError: pass\nprint('READ-OK' if found else 'read nothing', found)"),
    "writes_outside": wrong_with(
        "import os\nfor path in ['{course}/PWNED', '{course}/submitted/solution/PWNED', '/var/tmp/PWNED',\n"
        "             '/dev/shm/PWNED', '/root/PWNED', '/etc/PWNED']:\n"
        "    try:\n        open(path, 'w').write('x'); print('WROTE', path)\n    except OSError: pass\n"
        "open('scratch_is_fine', 'w').write('x')"),
    "network": wrong_with(
        "import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'x')\n"
        "    print('NET-OK')\n"
        "except OSError as e: print('no network', e)"),
    "infinite_loop": dict(edit=add_cell("while True:\n    pass", after="test_formula_1")),
    "hangs_when_called": dict(answers=[cw("    while True:\n        pass")]),
    "ignores_interrupt": dict(answers=[cw("    import signal\n    signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                                          "    while True:\n        pass")]),
    "sys_exit": dict(edit=add_cell("import sys\nsys.exit(3)", after="test_concat_weights")),
    "os_exit": dict(edit=add_cell("import os\nos._exit(0)", after="test_sigmoid")),
    "kills_parent": dict(edit=add_cell(
        "import os, signal\nfor pid in (os.getppid(), 1):\n    try: os.kill(pid, signal.SIGKILL)\n"
        "    except OSError: pass",
        after="test_sigmoid")),
    "memory_bomb": dict(edit=add_cell("hog = bytearray(8 * 1024**3)", after="test_concat_weights")),
    "fork_bomb": dict(edit=add_cell(
        "import os, time\nkids = 0\nfor _ in range(300):\n    try:\n        if os.fork() == 0:\n"
        "            time.sleep(30)\n            os._exit(0)\n        kids += 1\n    except OSError:\n        break\n"
        "print('forked', kids)", after="test_concat_weights")),
    "output_flood": dict(edit=add_cell("for _ in range(200_000):\n    print('x' * 500)", after="imports")),
}


def replace_and_delete(nb):
    for cell in nb.cells:
        if grade_id(cell) == "test_concat_weights":
            cell.source = "print('concat_weights: 6 / 6 points')\n6.0"
            cell.metadata["nbgrader"]["locked"] = False
    nb.cells = [c for c in nb.cells if grade_id(c) != "test_concat_state_input"]


def nobody_processes(course: Path) -> list[int]:
    """Sandboxed processes of this course's run: uid nobody, and forked from a zygote whose command line
    names the course (other courses may be grading on the same machine)."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                status = Path(f"/proc/{entry}/status").read_text()
            except OSError:
                continue
            uid_line = next(line for line in status.splitlines() if line.startswith("Uid:"))
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if uid_line.split()[1] == "65534" and str(course).encode() in cmdline:
                pids.append(int(entry))
    return pids


@pytest.fixture(scope="module")
def attacked(tmp_path_factory):
    assert os.geteuid() == 0, "these tests check the full sandbox, which needs root"
    course = make_course(tmp_path_factory.mktemp("attacks") / "course", "c.Execute.timeout = 3")
    repo = Path(__file__).resolve().parent.parent
    with counting_listener() as (port, connections):
        fill = {"course": str(course), "repo": str(repo), "port": port}
        submit(course, "solution")
        submit(course, "wrong", [WRONG])
        for name, spec in ATTACKS.items():
            answers = [Answer(a.exercise, a.name, a.code.replace("{course}", fill["course"]).replace(
                "{repo}", fill["repo"]).replace("{port}", str(fill["port"]))) for a in spec.get("answers", [])]
            edit = replace_and_delete if spec.get("edit") == "replace_and_delete" else spec.get("edit")
            submit(course, name, answers, edit=edit, files=spec.get("files"))
        started = time.monotonic()
        done = grade(course, timeout=900)
    gone = _wait_until(lambda: not nobody_processes(course), 10)
    return course, done, connections, gone, time.monotonic() - started


def _wait_until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def test_the_run_succeeds_and_honest_students_are_untouched(attacked):
    course, done, _, _, _ = attacked
    assert done.returncode == 0, done.stderr[-2000:]
    got = scores(course)
    assert got["solution"] == FULL
    assert set(got) == {"solution", "wrong", *ATTACKS}


def test_nothing_is_left_running(attacked):
    assert attacked[3], f"sandboxed processes still running: {nobody_processes(attacked[0])}"


@pytest.mark.parametrize("name", ["patch_allclose", "shadow_modules", "output_hooks", "edits_test_cells",
                                  "reads_secrets", "writes_outside", "network"])
def test_cheating_earns_nothing_more_than_the_wrong_answer(attacked, name):
    course = attacked[0]
    got = scores(course)
    assert got[name] == got["wrong"], name
    assert got[name]["test_concat_weights"] < 6.0


def test_lying_subclass_scores_zero_for_its_exercise(attacked):
    got = scores(attacked[0])["lying_subclass"]
    assert got["test_concat_weights"] == 0.0 and got["test_sigmoid"] == 7.0


def test_nothing_was_read_written_or_connected(attacked):
    course, _, connections, _, _ = attacked
    assert "READ-OK" not in outputs_text(course, "reads_secrets")
    assert "read nothing" in outputs_text(course, "reads_secrets")
    assert "WROTE" not in outputs_text(course, "writes_outside")
    assert not list(course.rglob("PWNED")) and not Path("/var/tmp/PWNED").exists()
    assert not Path("/dev/shm/PWNED").exists() and not Path("/tmp/SHADOWED").exists()
    assert not connections and "NET-OK" not in outputs_text(course, "network")


def test_shadow_modules_are_ignored_but_kept_as_submitted(attacked):
    course = attacked[0]
    folder = course / "autograded" / "shadow_modules" / ASSIGNMENT
    assert (folder / "numpy.py").is_file()  # the student's file is kept, like nbgrader keeps it
    assert "def check_concat_weights" in (folder / "selfcheck.py").read_text()  # the instructor's wins


@pytest.mark.parametrize("name, lost, limit, words", [
    ("infinite_loop", set(), "time", "interrupted"),
    # formula_1 and hidden_state call the hanging concat_weights: judged on their own, they keep their points.
    ("hangs_when_called", {"test_concat_weights"}, "time", "interrupted"),
    ("sys_exit", set(), None, None),
    ("os_exit", {"test_hidden_state"}, "crash", "os._exit"),
    ("kills_parent", set(), None, None),  # its parent is out of reach; signals to itself as init are ignored
    ("memory_bomb", set(), "memory", None),
    ("fork_bomb", set(), None, None),
    ("output_flood", set(), "output", None),
])
def test_misbehaviour_costs_only_its_own_points(attacked, name, lost, limit, words):
    course = attacked[0]
    got = scores(course)[name]
    assert {cell for cell, score in got.items() if score < FULL[cell]} == lost, got
    record = result(course, name)
    if limit:
        assert limit in record["limits_hit"], record
    if words:
        assert words in record["message"] or any(words in (c["visible_error"] or "") for c in record["cells"]), record


def test_code_that_ignores_the_interrupt_is_stopped_and_said_once(attacked):
    course = attacked[0]
    record = result(course, "ignores_interrupt")
    assert "time" in record["limits_hit"] and "ignored the interrupt" in record["message"], record
    assert record["message"].count("were not run") == 1, record["message"]  # where the run stopped, once
    got = scores(course)["ignores_interrupt"]
    # Its process was stopped in its first grade cell; the next one, graded on its own in a new process, keeps
    # its points.
    assert got["test_concat_weights"] == 0.0 and got["test_concat_state_input"] == 6.0, got


def test_fork_bomb_is_stopped_by_the_process_limit(attacked):
    import re

    forked = int(re.search(r"forked (\d+)", outputs_text(attacked[0], "fork_bomb")).group(1))
    assert forked < 20  # RLIMIT_NPROC for the sandbox user is 16
    assert attacked[3]  # and the sleepers died with their PID namespace


def test_limits_are_said_plainly_and_output_is_capped(attacked):
    course, done, _, _, _ = attacked
    assert "hangs_when_called: limits hit (time)" in done.stdout
    assert "memory_bomb: limits hit" in done.stdout
    assert "MemoryError" in (course / "autograded" / "memory_bomb" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text()
    flood = course / "autograded" / "output_flood" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert flood.stat().st_size < 2_000_000
    assert "output limit reached" in outputs_text(course, "output_flood")


# The cheats that aim at the score, at the levels below "full": whatever the sandbox can hide, none of them
# earns more than the wrong answer it carries. At "bare" (accepted only in so many words) student code can read
# the course, so the cheats that read, write or connect are left out there: the docs say what is lost.
SCORE_CHEATS = ("patch_allclose", "shadow_modules", "lying_subclass", "output_hooks", "edits_test_cells")


@pytest.fixture(scope="module", params=["userns", "bare"])
def cheated_at(request, tmp_path_factory):
    level = request.param
    course = make_course(tmp_path_factory.mktemp(f"cheats-{level}") / "course", "c.Execute.timeout = 3")
    submit(course, "solution")
    submit(course, "wrong", [WRONG])
    names = SCORE_CHEATS + (("reads_secrets",) if level == "userns" else ())
    repo = Path(__file__).resolve().parent.parent
    for name in names:
        spec = ATTACKS[name]
        answers = [Answer(a.exercise, a.name, a.code.replace("{course}", str(course)).replace("{repo}", str(repo)))
                   for a in spec.get("answers", [])]
        edit = replace_and_delete if spec.get("edit") == "replace_and_delete" else spec.get("edit")
        submit(course, name, answers, edit=edit, files=spec.get("files"))
    done = grade(course, env={"AUTOGRADER_SANDBOX": level}, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return level, course, done


def test_score_cheats_hold_at_every_level(cheated_at):
    level, course, done = cheated_at
    assert f"sandbox level '{level}'" in done.stderr  # the summary names what is off at this level
    assert result(course, "solution")["sandbox_level"] == level
    got = scores(course)
    assert got["solution"] == FULL
    for name in SCORE_CHEATS:
        if name == "lying_subclass":
            assert got[name]["test_concat_weights"] == 0.0 and got[name]["test_sigmoid"] == 7.0
        else:
            assert got[name] == got["wrong"], name
    if level == "userns":
        assert "read nothing" in outputs_text(course, "reads_secrets")
