"""Limits a submission cannot reach from its own process, and a bad value that costs one check only.

Graded end to end by the real `autograder grade`, an honest and a blank student beside the attackers:
printed output counted on the trusted side (a submission that raises its own budget), memory and processes
limited for everything a submission starts (a cgroup), return values that cannot cross back, and IPython
syntax turned into Python inside the sandbox (a cell of 50 KB of `!ls`).
"""

import os
import threading
import time
from pathlib import Path

import pytest

from autograder.devtools.catalogue import write_submission
from tests.grading_course import ASSIGNMENT, add_cell, grade, make_course, result, scores, submit
from tests.test_attacks import FULL, cw, nobody_processes

# Code that finds the runtime through the interpreter (its frames, or the collector) and lifts its budget.
RAISE_BUDGET = (
    "import gc, sys\n"
    "f = sys._getframe()\n"
    "while f is not None:\n"
    "    if hasattr(f.f_locals.get('self'), 'budget'):\n"
    "        f.f_locals['self'].budget = 10**12\n"
    "    f = f.f_back\n"
    "for o in gc.get_objects():\n"
    "    if type(o).__name__ == 'Runtime':\n"
    "        o.budget = 10**12\n")

# Each child touches up to 450 MB, 10 MB at a time (it stops early where its own address space, 1 GB with all
# the zygote has loaded, runs out: how much that leaves varies with the threads and arenas the process holds,
# and one 500 MB block sometimes did not fit, so no child touched anything), and holds it until all six have
# touched theirs (or none has for 2 s, as when some were killed): six of them hold well over 1 GB at once
# without a limit over them all. Without the hold, a child on a loaded host may finish before the next starts.
FORK_MEMORY = (
    "import os, select\n"
    "touched_r, touched_w = os.pipe()\nrelease_r, release_w = os.pipe()\nkids = []\n"
    "for _ in range(6):\n    pid = os.fork()\n    if pid == 0:\n        try:\n"
    "            os.close(release_w)\n            blocks = []\n"
    "            try:\n                for _ in range(45):\n"
    "                    block = bytearray(10 * 1024 * 1024)\n"
    "                    block[::4096] = b'x' * len(block[::4096])\n                    blocks.append(block)\n"
    "            except MemoryError:\n                pass\n"
    "            os.write(touched_w, b'x')\n            os.read(release_r, 1)\n"
    "        finally:\n            os._exit(0)\n    kids.append(pid)\n"
    "seen = 0\n"
    "while seen < 6 and select.select([touched_r], [], [], 2.0)[0]:\n    seen += len(os.read(touched_r, 6))\n"
    "os.close(release_w)\n"
    "for pid in kids:\n    os.waitpid(pid, 0)\nprint('all touched', seen)")


# Values a function can return that cannot cross back as plain data, each failing only its own call.
BAD_VALUES = {
    "huge_int": "    return 10**5000",
    "object": "    return object()",
    "raising_repr_eq": ("    class Bad:\n        def __repr__(self): raise SystemExit('repr')\n"
                        "        def __eq__(self, other): raise KeyboardInterrupt\n    return [Bad()]"),
    "huge_nested_list": "    return [[0.0] * 1000 for _ in range(3000)]",
    "recursive_list": "    x = []\n    x.append(x)\n    return x",
    "endless_walk": "    x = [0.0] * 10\n    for _ in range(30):\n        x = [x] * 10\n    return x",
    "endless_iter": ("    class Endless(list):\n        def __iter__(self):\n            while True:\n"
                     "                yield 1.0\n    return Endless([1.0])"),
    "big_array": "    return np.zeros((3000, 3000))",
    "object_array": "    return np.array([object(), 1], dtype=object)",
    "nan_keys_and_complex": "    return {float('nan'): 1j}",
    "module": "    return np",
    "lying_int": "    class I(int):\n        def __int__(self): raise ValueError('no')\n    return I(3)",
    "datetime_array": "    return np.array(['2020-01-01'], dtype='datetime64[D]')",
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    assert os.geteuid() == 0, "these tests check the full sandbox, which needs root"
    course = make_course(tmp_path_factory.mktemp("limits") / "course", "c.Execute.timeout = 3")
    submit(course, "solution")
    folder = course / "submitted" / "blank" / ASSIGNMENT
    write_submission(ASSIGNMENT, folder, [], blank=True, release=course / "release" / ASSIGNMENT)
    # Prints 100 MB in one cell at the end: past what the grader accepts in one reply, it is stopped.
    submit(course, "output_one_frame",
           edit=add_cell(RAISE_BUDGET + "print('x' * 100_000_000)", after="test_hidden_state"))
    # 3 MB in each of five cells: each reply is accepted, but only output_chars of text is kept.
    submit(course, "output_many_frames", edit=_cells([RAISE_BUDGET] + ["print('y' * 3_000_000)"] * 5, "imports"))
    submit(course, "fork_memory", edit=add_cell(FORK_MEMORY, after="test_sigmoid"))
    submit(course, "shell_cell", edit=add_cell("!ls\n" * 12_500, after="imports"))
    for name, body in BAD_VALUES.items():
        submit(course, f"bad_{name}", [cw(body)])
    available = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            available.append(_available_mb())
            time.sleep(0.05)

    before = _available_mb()
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    started = time.monotonic()
    done = grade(course, timeout=900)
    seconds = time.monotonic() - started
    stop.set()
    watcher.join()
    deadline = time.monotonic() + 10
    while nobody_processes(course) and time.monotonic() < deadline:
        time.sleep(0.2)
    return course, done, before - min(available + [before]), seconds


def _cells(sources: list[str], after: str):
    def edit(nb):
        for source in reversed(sources):
            add_cell(source, after=after)(nb)
    return edit


def _available_mb() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) // 1024
    raise AssertionError("no MemAvailable")


def test_the_run_succeeds_and_others_are_exact(graded):
    course, done, _, _ = graded
    assert done.returncode == 0, done.stderr[-2000:]
    got = scores(course)
    assert got["solution"] == FULL
    assert got["blank"] == {cell: 0.0 for cell in FULL}
    assert not nobody_processes(course)


def test_output_is_counted_by_the_grader_whatever_the_process_says(graded):
    course = graded[0]
    got = scores(course)
    for name in ("output_one_frame", "output_many_frames"):
        assert got[name] == FULL, name
        record = result(course, name)
        assert "output" in record["limits_hit"], record
        notebook = course / "autograded" / name / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        assert notebook.stat().st_size < 1_000_000, name  # 200 000 characters kept, not 15 or 100 MB
    assert "more than the grader accepts" in result(course, "output_one_frame")["message"]


def test_memory_is_limited_for_all_a_submission_starts(graded):
    course, _, drop_mb, _ = graded
    got = scores(course)["fork_memory"]
    assert {cell for cell, score in got.items() if score < FULL[cell]} == {"test_hidden_state"}, got
    record = result(course, "fork_memory")
    # Named either way it was stopped: the cgroup's out-of-memory kill as the zygote saw it, or the kill as the
    # grader saw the process end (which of the two comes first depends on the host's timing).
    assert "memory" in record["limits_hit"] and "1024 MB" in record["message"], record
    assert drop_mb < 2000, f"the host's available memory fell by {drop_mb} MB"  # 3 GB without the limit


@pytest.mark.parametrize("name", sorted(BAD_VALUES))
def test_a_value_that_cannot_cross_back_costs_its_own_check_only(graded, name):
    course = graded[0]
    got = scores(course)[f"bad_{name}"]
    assert got["test_concat_weights"] < FULL["test_concat_weights"], got
    # concat_weights is used by formula_1 and hidden_state (the reference solution): the others are exact.
    for cell in ("test_concat_state_input", "test_formula_2", "test_sigmoid"):
        assert got[cell] == FULL[cell], got
    record = result(course, f"bad_{name}")
    assert "crash" not in record["limits_hit"], record
    # An endless iterable is a value the student's own formula_1 and hidden_state consume: they may fill their
    # own sandbox's memory doing so (and are then judged on their own). Every finite value costs no memory.
    if name != "endless_iter":
        assert "memory" not in record["limits_hit"], record


def test_a_cell_of_shell_lines_is_transformed_in_the_sandbox_on_its_own_time(graded):
    course, _, _, seconds = graded
    assert scores(course)["shell_cell"] == FULL
    assert result(course, "shell_cell")["seconds"] < 20
    assert result(course, "solution")["seconds"] < 5
