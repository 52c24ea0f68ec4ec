"""`make bench N=200`: `autograder grade` against `nbgrader autograde` on one synthetic class.

Builds N submissions from the answer catalogues (solution, every correct and every wrong answer, round
robin), grades them with both tools in separate copies of one course, checks that every grade cell got the
same score, and prints wall time, ms per submission, the ratio, the peak memory of the whole
`autograder grade` run (all its processes, sandboxes included, by proportional set size), and the bare
cost of forking a NumPy-loaded process and running the same cells, for reference.

nbgrader costs about 2 s a submission, so its side grades at most `--nbgrader-cap` (200) submissions;
its per-submission time is what the ratio compares. `autograder grade` takes a few seconds, which other
work on the host moves by ~10%: it grades `--runs` copies of the same ungraded class (3 by default, 1 above
1000 submissions) and the median counts; every run's time is printed.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.catalogue import catalogued
from autograder.devtools.repo import available_assignments, new_course
from autograder.migrations import upgrade

BARE_SCRIPT = r"""
import os, sys, time, json
os.environ["OPENBLAS_NUM_THREADS"] = "1"
import numpy
cells, selfcheck, k = json.loads(sys.stdin.read())
codes = [compile(c, "<cell>", "exec") for c in cells]
sc = compile(selfcheck, "selfcheck.py", "exec")
null = open(os.devnull, "w")
import types


def run_cells():
    sys.stdout = sys.stderr = null
    module = types.ModuleType("selfcheck"); exec(sc, module.__dict__); sys.modules["selfcheck"] = module
    ns = {"__name__": "__main__"}
    for code in codes:
        try:
            exec(code, ns)
        except Exception:
            pass


# Run the cells once first, as the zygote warms NumPy up: what is measured is fork + run, not NumPy's
# one-time lazy initialisation.
saved = sys.stdout, sys.stderr
run_cells()
sys.stdout, sys.stderr = saved
del sys.modules["selfcheck"]
times = []
for _ in range(k):
    t = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        run_cells()
        os._exit(0)
    os.waitpid(pid, 0)
    times.append(time.perf_counter() - t)
times.sort()
print(1000 * times[len(times) // 2])
"""


def students(assignment: str, n: int) -> list[tuple[str, list]]:
    from autograder.devtools.catalogue import correct_answers, wrong_answers

    pool = [[]] + [[a] for a in correct_answers(assignment)] + [[a] for a in wrong_answers(assignment)]
    return [(f"s{i:05d}", pool[i % len(pool)]) for i in range(n)]


def build(root: Path, assignment: str, n: int) -> Path:
    from autograder.devtools.catalogue import write_submission

    course = new_course(root, (assignment,))
    nbgrader(course, "generate_assignment", assignment, "--force")
    # Our tables made now, as in a course graded before: the benchmarks time grading a class, and the
    # gradebook's first migration (about half a CPU-second, once per course) would fall on every copy's run.
    upgrade(f"sqlite:///{course / 'gradebook.db'}")
    release = course / "release" / assignment
    for student, answers in students(assignment, n):
        folder = course / "submitted" / student / assignment
        write_submission(assignment, folder, answers, release=release)
        shutil.copy(release / "selfcheck.py", folder)  # the student's copy; graders must use their own
    return course


def clone(course: Path, dest: Path, assignment: str, limit: int) -> Path:
    dest.mkdir(parents=True)
    for name in ("nbgrader_config.py", "gradebook.db"):
        shutil.copy(course / name, dest / name)
    for folder in ("source", "release"):
        shutil.copytree(course / folder, dest / folder)
    for student in sorted(os.listdir(course / "submitted"))[:limit]:
        shutil.copytree(course / "submitted" / student, dest / "submitted" / student)
    return dest


def process_tree(root: int) -> list[int]:
    """`root` and every process below it, as /proc shows them now."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


class PeakMemory:
    """Samples the summed proportional set size of a process and all its descendants."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            total = 0
            for pid in process_tree(self.pid):
                try:
                    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                        if line.startswith("Pss:"):
                            total += int(line.split()[1]) * 1024
                            break
                except OSError:
                    pass
            self.peak = max(self.peak, total)
            self._stop.wait(0.05)

    def stop(self) -> int:
        self._stop.set()
        self.thread.join()
        return self.peak


def timed(command: list[str], cwd: Path, env: dict[str, str],
          memory: bool = False) -> tuple[float, int, subprocess.CompletedProcess]:
    """Wall time (and, with `memory`, peak memory) of one run. Sampling memory reads every process's
    smaps 20 times a second, which takes CPU from what is measured: time and memory come from two runs."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = PeakMemory(process.pid) if memory else None
    out, err = process.communicate()
    seconds = time.perf_counter() - start
    peak = sampler.stop() if sampler else 0
    return seconds, peak, subprocess.CompletedProcess(command, process.returncode, out, err)


def scores(course: Path, assignment: str) -> dict[str, dict[str, float]]:
    from nbgrader.api import Gradebook

    from autograder.course.settings import read_course

    with Gradebook(read_course(course).db_url) as gb:
        return {s.student_id: {g.name: g.score for nb in s.notebooks for g in nb.grades}
                for s in gb.assignment_submissions(assignment)}


def bare_fork_ms(course: Path, assignment: str) -> float:
    import json

    from autograder.nbgrader_glue.notebook import is_test_cell, read_notebook, visible_part
    from autograder.sandbox.syntax import python_source

    nb = read_notebook(course / "submitted" / "s00000" / assignment / f"{assignment}.ipynb")
    cells = [python_source(visible_part(c.source) if is_test_cell(c) else c.source)
             for c in nb.cells if c.cell_type == "code"]
    selfcheck = (course / "source" / assignment / "selfcheck.py").read_text()
    done = subprocess.run([sys.executable, "-c", BARE_SCRIPT], input=json.dumps([cells, selfcheck, 100]),
                          capture_output=True, text=True, check=True)
    return float(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--assignment", default=catalogued(available_assignments())[0])
    parser.add_argument("--nbgrader-cap", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--runs", type=int, default=0,
                        help="timed autograder grade runs, the median counts (default 3, 1 above 1000 submissions)")
    args = parser.parse_args(argv)
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    with tempfile.TemporaryDirectory(prefix="autograder-bench-") as scratch:
        print(f"building {args.n} submissions of {args.assignment} ...", flush=True)
        ours = build(Path(scratch) / "ours", args.assignment, args.n)
        capped = min(args.n, args.nbgrader_cap)
        theirs = clone(ours, Path(scratch) / "nbgrader", args.assignment, capped)
        runs = args.runs if args.runs else (3 if args.n <= 1000 else 1)
        print(f"grading with autograder grade ({runs} run{'s' if runs > 1 else ''}, each on its own copy of the "
              "ungraded class) ...", flush=True)
        command = [str(Path(sys.executable).parent / "autograder"), "grade", args.assignment, "--jobs", str(args.jobs)]
        copies = [ours] + [clone(ours, Path(scratch) / f"ours-{k}", args.assignment, args.n) for k in range(1, runs)]
        times = []
        for graded in copies:
            os.sync()  # what building or copying wrote is on disk first: its write-back is not grading's work
            seconds, _, done = timed(command, graded, env)
            if done.returncode != 0:
                print(done.stdout, done.stderr, file=sys.stderr)
                return 1
            print(f"  {seconds:.2f} s: {done.stdout.strip().splitlines()[0]}")
            times.append(seconds)
            if graded != ours:
                shutil.rmtree(graded)
        # A 3-second run moves by ~10% with whatever else the host does; the median of a few is its time.
        our_s = statistics.median(times)
        print("grading them all again (--force), sampling memory ...", flush=True)
        _, our_mem, again = timed([*command, "--force"], ours, env, memory=True)
        if again.returncode != 0:
            print(again.stdout, again.stderr, file=sys.stderr)
            return 1
        print(f"grading the first {capped} with nbgrader autograde ...", flush=True)
        their_s, _, done = timed([sys.executable, "-m", "nbgrader", "autograde", args.assignment], theirs, env)
        if done.returncode != 0:
            print(done.stderr[-2000:], file=sys.stderr)
            return 1
        mine, reference = scores(ours, args.assignment), scores(theirs, args.assignment)
        differ = [s for s in reference if mine.get(s) != reference[s]]
        bare = bare_fork_ms(ours, args.assignment)
    our_ms, their_ms = 1000 * our_s / args.n, 1000 * their_s / capped
    print()
    print(f"{'':44}{'submissions':>12}{'wall s':>10}{'ms/submission':>15}")
    median = f" (median of {len(times)})" if len(times) > 1 else ""
    print(f"{'autograder grade' + median:44}{args.n:>12}{our_s:>10.2f}{our_ms:>15.1f}")
    cap_note = f" (capped at its first {capped})" if capped < args.n else ""
    print(f"{'nbgrader autograde' + cap_note:44}{capped:>12}{their_s:>10.1f}{their_ms:>15.1f}")
    print(f"speed-up per submission: {their_ms / our_ms:.0f}x  (target >= 100x)")
    print(f"bare fork + run of the same cells: {bare:.1f} ms; autograder grade is {our_ms / bare:.1f}x that "
          "(target <= 10x)")
    print(f"peak memory of the whole autograder grade run (measured in the second run): {our_mem / 2**20:.0f} MiB "
          "(target < 1024 MiB)")
    print(f"scores: {len(reference) - len(differ)} of {len(reference)} submissions agree cell by cell")
    for student in differ[:10]:
        print(f"  {student}: autograder {mine.get(student)} nbgrader {reference[student]}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
