"""`make bench-watch`: the deadline spike. 150 students hand in `hidden_state_activation` twice each with
`nbgrader submit` within 10 minutes against a running `autograder watch`, and a few hostile students do what
the threat model says they may (a notebook that sleeps in every call, a broken notebook, none at all, more
attempts than the policy allows, a notebook rewritten in `inbound/` after handing in, thousands of junk names
in `inbound/`). Prints, for the honest submissions, the time from `nbgrader submit` returning to the feedback
being fetchable (p50, p95, max); the queue as `autograder status` saw it; what became of each hostile
submission; and whether anything was lost or scored differently from `autograder grade`.

A scratch course and exchange in a temporary folder under the course's own defaults (3 graded attempts a
day); the submissions name their students with `--student` (one OS user submits for all, so the owner check
is off). Not a test: figures only. `--students 20 --seconds 60` for a quick look.
"""

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.catalogue import Answer, correct_answers, write_submission, wrong_answers
from autograder.devtools.repo import new_course
from autograder.watch.watch_status import LEDGER_FILE, STATE_FOLDER, WatchStatus

ASSIGNMENT = "hidden_state_activation"
COURSE_ID = "rnn-hidden-state"
JUNK_NAMES = 5000  # the flooding student's entries in inbound/
OVER_LIMIT = 5  # the greedy student's submissions, past the default of 3 graded attempts a day
# What each hostile student does, and what the threat model says becomes of it.
HOSTILE = {
    "slow": "graded on the cell limit, or still being graded when the spike ends: holds one worker, no one else",
    "broken-json": "graded 0, the reason on the student's page",
    "no-notebook": "graded 0, the reason on the student's page",
    "over-limit": "3 graded, the rest deferred (or waiting behind the deferred one) until a slot frees",
    "rewritten": "refused, or graded when the watcher collected it before the rewrite",
    "flood": f"its submission graded; {JUNK_NAMES} junk names refused, read a bounded slice a poll",
}


@dataclass
class Handed:
    """One `nbgrader submit` and what came of it (monotonic times)."""

    student: str
    kind: str  # honest, or one of HOSTILE
    returned: float = 0.0
    feedback: str = ""  # the feedback file's name, from the submission's secret
    inbound: str = ""  # its folder in inbound/
    released: float | None = None


@dataclass
class Queue:
    """The watcher's own status, sampled while the spike lasts."""

    samples: int = 0
    most_waiting: int = 0
    longest_wait: float = 0.0
    most_in_hand: int = 0
    seen: dict[str, float] = field(default_factory=dict)  # feedback file name -> first seen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=150, help="honest students")
    parser.add_argument("--attempts", type=int, default=2, help="submissions per honest student")
    parser.add_argument("--seconds", type=float, default=600.0, help="the submissions are spread over this long")
    parser.add_argument("--no-hostile", dest="hostile", action="store_false", help="honest students only")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the scratch course, exchange and watcher log")
    args = parser.parse_args(argv)
    bin_dir = Path(sys.executable).parent
    scratch = Path(tempfile.mkdtemp(prefix="bench-watch-"))
    exchange = scratch / "exchange"
    exchange.mkdir()
    os.chmod(exchange, 0o1777)
    try:
        course = _set_up(scratch, exchange)
        plan = _plan(args, random.Random(args.seed))
        log = open(scratch / "watch.log", "w")  # noqa: SIM115 - the watcher's, closed below
        watcher = subprocess.Popen([str(bin_dir / "autograder"), "watch", ASSIGNMENT], cwd=course, stdout=log,
                                   stderr=subprocess.STDOUT)
        try:
            _wait(lambda: "watching " in (scratch / "watch.log").read_text(), 120, "the watcher to start")
            print(f"bench-watch: {sum(len(times) for _, _, times in plan)} submissions from {len(plan)} students "
                  f"within {args.seconds:g} s", flush=True)
            handed, queue = _spike(plan, course, scratch, exchange, bin_dir)
        finally:
            watcher.terminate()
            watcher.wait(timeout=120)
            log.close()
        ledger = _ledger(course)
        watched = _totals(course)
        honest = sorted({h.student for h in handed if h.kind == "honest"})
        done = subprocess.run([str(bin_dir / "autograder"), "grade", ASSIGNMENT, "--force",
                               *(f"--student={s}" for s in honest)], cwd=course, capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            return 1
        return _report(handed, queue, ledger, watched, _totals(course), _watcher_times(scratch / "watch.log"),
                       scratch / "watch.log")
    finally:
        if args.keep:
            print(f"bench-watch: kept {scratch} (the watcher's log: {scratch / 'watch.log'})")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def _set_up(scratch: Path, exchange: Path) -> Path:
    course = new_course(scratch / "course", (ASSIGNMENT,))
    with open(course / "nbgrader_config.py", "a") as config:
        config.write(f'\nc.Exchange.root = "{exchange}"\nc.CollectApp.check_owner = False\n')
    print("bench-watch: setting up the course (nbgrader generate_assignment, release_assignment)", flush=True)
    nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    nbgrader(course, "release_assignment", ASSIGNMENT)
    return course


def _plan(args: argparse.Namespace, rng: random.Random) -> list[tuple[str, str, list[float]]]:
    """(student, kind, sorted submission times in seconds from the start) for every student."""
    def times(count: int) -> list[float]:
        return sorted(rng.uniform(0, args.seconds) for _ in range(count))

    plan = [(f"s{index:03d}", "honest", times(args.attempts)) for index in range(args.students)]
    if args.hostile:
        plan += [(f"x-{kind}", kind, times(OVER_LIMIT if kind == "over-limit" else 1)) for kind in HOSTILE]
    return plan


def _answers(kind: str, attempt: int, student: str) -> list[Answer]:
    """An honest student's first attempt has one mistake (or none), the second is right; the slow one's every
    call sleeps past any cell limit."""
    wrong, correct = wrong_answers(ASSIGNMENT), correct_answers(ASSIGNMENT)
    if kind == "slow":
        right = correct[0]
        name = right.exercise
        return [Answer(name, "slow", f"{right.code}\n\nimport time\n_right_{name} = {name}\n\n"
                                     f"def {name}(*args, **kwargs):\n    time.sleep(600)\n"
                                     f"    return _right_{name}(*args, **kwargs)\n")]
    if attempt == 0 and kind == "honest":
        return [wrong[sum(map(ord, student)) % len(wrong)]]
    return [correct[attempt % len(correct)]]


def _spike(plan: list[tuple[str, str, list[float]]], course: Path, scratch: Path, exchange: Path,
           bin_dir: Path) -> tuple[list[Handed], Queue]:
    inbound = exchange / COURSE_ID / "inbound"
    queue = Queue()
    stop = threading.Event()
    handed: list[Handed] = []
    lock = threading.Lock()

    def poll() -> None:
        feedback = exchange / COURSE_ID / "feedback"
        next_status = 0.0
        while not stop.is_set():
            now = time.monotonic()
            try:
                for name in os.listdir(feedback):
                    queue.seen.setdefault(name, now)
            except FileNotFoundError:
                pass
            if now >= next_status:
                next_status = now + 1.0
                status = WatchStatus.read(course / STATE_FOLDER)
                if status is not None:
                    queue.samples += 1
                    queue.most_waiting = max(queue.most_waiting, status.waiting)
                    queue.most_in_hand = max(queue.most_in_hand, len(status.in_hand))
                    queue.longest_wait = max(queue.longest_wait, status.oldest_waiting_seconds)
            time.sleep(0.005)

    def student_runs(student: str, kind: str, times: list[float], start: float) -> None:
        home = scratch / student
        for attempt, at in enumerate(times):
            time.sleep(max(0.0, start + at - time.monotonic()))
            _write(kind, attempt, student, home, course)
            before = set(os.listdir(inbound))
            # At the lowest priority: on a hub each student's `nbgrader submit` runs on their own server's CPU,
            # not the grader's; here 300 of them (~3 CPU-s each) would otherwise take most of the two cores.
            done = subprocess.run(["nice", "-n", "19", str(bin_dir / "nbgrader"), "submit", ASSIGNMENT,
                                   f"--student={student}"], cwd=home, capture_output=True, text=True)
            record = Handed(student, kind, returned=time.monotonic())
            if done.returncode != 0:
                print(f"bench-watch: {student}: nbgrader submit failed:\n{done.stderr[-1000:]}", file=sys.stderr)
                continue
            record.inbound = next(n for n in set(os.listdir(inbound)) - before if n.startswith(f"{student}+"))
            record.feedback = _feedback_name(home, record.inbound)
            with lock:
                handed.append(record)
            _after(kind, inbound / record.inbound, inbound, student)

    for student, _kind, _ in plan:
        (scratch / student).mkdir()
        (scratch / student / "nbgrader_config.py").write_text(
            f'c = get_config()\nc.Exchange.root = "{exchange}"\nc.CourseDirectory.course_id = "{COURSE_ID}"\n'
            f'c.Exchange.cache = "{scratch / student / "cache"}"\n')
    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    start = time.monotonic()
    runners = [threading.Thread(target=student_runs, args=(student, kind, times, start))
               for student, kind, times in plan]
    for runner in runners:
        runner.start()
    for runner in runners:
        runner.join()
    honest = [h for h in handed if h.kind == "honest"]
    _wait(lambda: all(h.feedback in queue.seen for h in honest), 600, "every honest submission's feedback")
    time.sleep(5)  # the hostile ones that will be released soon (the slow one is not waited for)
    stop.set()
    poller.join()
    for record in handed:
        record.released = queue.seen.get(record.feedback)
    return handed, queue


def _write(kind: str, attempt: int, student: str, home: Path, course: Path) -> None:
    notebook = home / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    write_submission(ASSIGNMENT, home / ASSIGNMENT, _answers(kind, attempt, student),
                     release=course / "release" / ASSIGNMENT)
    if kind == "broken-json":
        notebook.write_text('{"cells": [ this is not JSON')
    elif kind == "no-notebook":
        notebook.unlink()
        (home / ASSIGNMENT / "notes.txt").write_text("I forgot the notebook\n")


def _after(kind: str, folder: Path, inbound: Path, student: str) -> None:
    """What a hostile student does once `nbgrader submit` has returned."""
    if kind == "rewritten":
        time.sleep(0.05)  # past the clock tick: the rewrite's change time is later than the handing in
        notebook = folder / f"{ASSIGNMENT}.ipynb"
        notebook.write_text(notebook.read_text())
    elif kind == "flood":
        for index in range(JUNK_NAMES):
            (inbound / f"{student}+junk{index}").mkdir()


def _feedback_name(home: Path, inbound_name: str) -> str:
    from nbgrader.utils import notebook_hash

    # `nbgrader submit` keeps a copy in its cache, named as in inbound/ less the random part, with the secret the
    # feedback is named by
    cached = home / "cache" / COURSE_ID / inbound_name.rsplit("+", 1)[0]
    secret = (cached / "submission_secret.txt").read_text()
    return f"{notebook_hash(secret=secret, notebook_id=ASSIGNMENT)}.html"


def _ledger(course: Path) -> dict[str, str]:
    """Each inbound folder's last state in the watcher's ledger."""
    states: dict[str, str] = {}
    path = course / STATE_FOLDER / LEDGER_FILE
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        states[record["name"]] = record["state"]
    return states


def _totals(course: Path) -> dict[str, float]:
    import sqlite3

    from autograder.grades.arithmetic import cell_score

    totals: dict[str, float] = {}
    with sqlite3.connect(course / "gradebook.db") as db:
        for student, auto, manual, extra in db.execute(
                "SELECT s.student_id, g.auto_score, g.manual_score, g.extra_credit FROM submitted_assignment s "
                "JOIN submitted_notebook n ON n.assignment_id = s.id JOIN grade g ON g.notebook_id = n.id"):
            totals[student] = totals.get(student, 0.0) + cell_score(auto, manual, extra)
    return {student: round(total, 6) for student, total in totals.items()}


def _watcher_times(log: Path) -> list[tuple[str, float, float]]:
    """(student, seconds from collection, seconds from the submission's time) for each submission graded, as the
    watcher's log lines give them: the time a student waits once `nbgrader submit` has put it in the exchange."""
    pattern = re.compile(r" graded (\S+) .*feedback released ([\d.]+) s after it was collected, ([\d.]+) s after "
                         r"it was submitted")
    return [(m[1], float(m[2]), float(m[3])) for m in map(pattern.search, log.read_text().splitlines()) if m]


def _junk_refused(log: Path, student: str) -> int:
    """Junk refused, as the watcher's log counts it (junk is not the ledger's): the lines naming the flooding
    student's entries, and the counted rest of each poll (only that student makes junk here)."""
    text = log.read_text()
    named = len(re.findall(rf" refused {re.escape(student)}\+junk", text))
    return named + sum(int(n) for n in re.findall(r" refused (\d+) more entries in ", text))


def _report(handed: list[Handed], queue: Queue, ledger: dict[str, str], watched: dict[str, float],
            graded: dict[str, float], times: list[tuple[str, float, float]], watch_log: Path) -> int:
    honest = [h for h in handed if h.kind == "honest"]
    # Feedback released before `nbgrader submit` has exited (it copies the submission to its cache after the
    # exchange) is fetchable at once: a wait of 0.
    waits = sorted(max(0.0, h.released - h.returned) for h in honest if h.released is not None)
    lost = [h for h in honest if h.released is None or ledger.get(h.inbound) != "graded"]
    first = min(h.returned for h in honest)
    last = max(h.released for h in honest if h.released is not None)
    students = sorted({h.student for h in honest})
    same = sum(s in watched and watched.get(s) == graded.get(s) for s in students)
    print(f"honest: submit returned -> feedback fetchable: p50 {statistics.median(waits):.2f} s, "
          f"p95 {_p95(waits):.2f} s, max {waits[-1]:.2f} s ({len(waits)} of {len(honest)} submissions)")
    honest_names = {h.student for h in honest}
    since_submitted = sorted(t for student, _, t in times if student in honest_names)
    since_collected = sorted(t for student, t, _ in times if student in honest_names)
    if since_submitted:
        print(f"honest: in the exchange -> feedback released (the watcher's log): p50 "
              f"{statistics.median(since_submitted):.2f} s, p95 {_p95(since_submitted):.2f} s, max "
              f"{since_submitted[-1]:.2f} s; of which collected -> released: p50 "
              f"{statistics.median(since_collected):.2f} s, p95 {_p95(since_collected):.2f} s")
    print(f"throughput: {len(waits) / max(last - first, 1e-9):.2f} submissions/s over {last - first:.1f} s")
    print(f"queue (autograder status, {queue.samples} samples): at most {queue.most_in_hand} in the workers' "
          f"hands, {queue.most_waiting} waiting; longest wait since submitted {queue.longest_wait:.1f} s")
    for kind in HOSTILE:
        mine = [h for h in handed if h.kind == kind]
        if not mine:
            continue
        states = [ledger.get(h.inbound, "waiting") for h in mine]
        extra = ""
        if kind == "flood":
            extra = f"; junk names: {_junk_refused(watch_log, mine[0].student)} of {JUNK_NAMES} refused"
        print(f"hostile {kind}: {', '.join(states)}{extra} (expected: {HOSTILE[kind]})")
    print(f"lost: {len(lost)} honest submissions without feedback or not graded"
          + (f" ({', '.join(h.inbound for h in lost[:5])})" if lost else ""))
    print(f"scores: {same} of {len(students)} honest students equal to `autograder grade --force`")
    return 0 if not lost and same == len(students) else 1


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18] if len(values) > 1 else values[0]


def _wait(check, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"bench-watch: timed out waiting for {what}")
        time.sleep(0.05)


if __name__ == "__main__":
    sys.exit(main())
