"""`make bench-watch`: 20 students submit `hidden_state_activation` with `nbgrader submit` within a minute
against a running `autograder watch`; prints the time from each `nbgrader submit` returning to its feedback
being fetchable (p50, p95, max), the throughput, and whether every score equals `autograder grade`'s.

A scratch course and exchange in a temporary folder; the submissions name their students with
`--student` (one OS user submits for all, so the owner check is off). Not a test: figures only.
"""

import argparse
import json
import os
import shutil
import stat
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.catalogue import correct_answers, write_submission, wrong_answers
from autograder.devtools.repo import new_course

ASSIGNMENT = "hidden_state_activation"
COURSE_ID = "rnn-hidden-state"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60.0, help="the submissions are spread over this long")
    parser.add_argument("--keep", action="store_true", help="keep the scratch course, exchange and watcher log")
    args = parser.parse_args(argv)
    bin_dir = Path(sys.executable).parent
    scratch = Path(tempfile.mkdtemp(prefix="bench-watch-"))
    exchange = scratch / "exchange"
    exchange.mkdir()
    os.chmod(exchange, 0o1777)
    try:
        course = new_course(scratch / "course", (ASSIGNMENT,))
        with open(course / "nbgrader_config.py", "a") as config:
            config.write(f'\nc.Exchange.root = "{exchange}"\nc.CollectApp.check_owner = False\n')
        print("bench-watch: setting up the course (nbgrader generate_assignment, release_assignment)", flush=True)
        nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
        nbgrader(course, "release_assignment", ASSIGNMENT)
        students = [f"s{index:02d}" for index in range(args.students)]
        answers = [[]] + [[a] for a in wrong_answers(ASSIGNMENT)] + [[a] for a in correct_answers(ASSIGNMENT)]
        for index, student in enumerate(students):
            home = scratch / student
            write_submission(ASSIGNMENT, home / ASSIGNMENT, answers[index % len(answers)],
                             release=course / "release" / ASSIGNMENT)
            (home / "nbgrader_config.py").write_text(
                f'c = get_config()\nc.Exchange.root = "{exchange}"\nc.CourseDirectory.course_id = "{COURSE_ID}"\n'
                f'c.Exchange.cache = "{home / "cache"}"\n')
        log = open(scratch / "watch.log", "w")  # noqa: SIM115 - the watcher's, closed below
        watcher = subprocess.Popen([str(bin_dir / "autograder"), "watch", ASSIGNMENT], cwd=course, stdout=log,
                                   stderr=subprocess.STDOUT)
        try:
            _wait(lambda: "watching " in (scratch / "watch.log").read_text(), 120, "the watcher to start")
            print(f"bench-watch: {len(students)} students submit within {args.seconds:g} s", flush=True)
            latencies = _submit_all(students, scratch, exchange, bin_dir, args.seconds)
        finally:
            watcher.terminate()
            watcher.wait(timeout=60)
            log.close()
        watched = _totals(course)
        done = subprocess.run([str(bin_dir / "autograder"), "grade", ASSIGNMENT, "--force"], cwd=course,
                              capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            return 1
        graded = _totals(course)
        _report(latencies, watched, graded, students)
        return 0
    finally:
        if args.keep:
            print(f"bench-watch: kept {scratch} (the watcher's log: {scratch / 'watch.log'})")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def _submit_all(students: list[str], scratch: Path, exchange: Path, bin_dir: Path, seconds: float
                ) -> dict[str, tuple[float, float]]:
    """Each student's (submit returned, feedback first seen, submission first seen finished in inbound/),
    as monotonic times."""
    seen: dict[str, float] = {}  # feedback file names, and the inbound folders' student ids
    stop = threading.Event()

    def watch_exchange() -> None:
        feedback, inbound = exchange / COURSE_ID / "feedback", exchange / COURSE_ID / "inbound"
        while not stop.is_set():
            now = time.monotonic()
            for name in os.listdir(inbound):
                student = name.split("+")[0]
                # finished: `nbgrader submit`'s last step makes the folder writable by all
                if student not in seen and os.lstat(inbound / name).st_mode & stat.S_IWOTH:
                    seen[student] = now
            try:
                for name in os.listdir(feedback):
                    seen.setdefault(name, now)
            except FileNotFoundError:
                pass
            time.sleep(0.005)

    returned: dict[str, float] = {}

    def submit(student: str) -> None:
        done = subprocess.run([str(bin_dir / "nbgrader"), "submit", ASSIGNMENT, f"--student={student}"],
                              cwd=scratch / student, capture_output=True, text=True)
        returned[student] = time.monotonic()
        if done.returncode != 0:
            print(f"bench-watch: {student}: nbgrader submit failed:\n{done.stderr[-1000:]}", file=sys.stderr)

    poller = threading.Thread(target=watch_exchange, daemon=True)
    poller.start()
    threads = []
    start = time.monotonic()
    for index, student in enumerate(students):
        time.sleep(max(0.0, start + index * seconds / len(students) - time.monotonic()))
        thread = threading.Thread(target=submit, args=(student,))
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    from nbgrader.utils import notebook_hash

    names = {}
    for student in students:
        cached = next((scratch / student / "cache" / COURSE_ID).glob(f"{student}+{ASSIGNMENT}+*"))
        secret = (cached / "submission_secret.txt").read_text()
        names[student] = f"{notebook_hash(secret=secret, notebook_id=ASSIGNMENT)}.html"
    _wait(lambda: all(name in seen for name in names.values()), 120, "every student's feedback")
    stop.set()
    return {student: (returned[student], seen[names[student]], seen[student]) for student in students}


def _totals(course: Path) -> dict[str, float]:
    import sqlite3

    with sqlite3.connect(course / "gradebook.db") as db:
        rows = db.execute(
            "SELECT s.student_id, SUM(COALESCE(g.manual_score, g.auto_score, 0)) FROM submitted_assignment s "
            "JOIN submitted_notebook n ON n.assignment_id = s.id JOIN grade g ON g.notebook_id = n.id "
            "GROUP BY s.student_id").fetchall()
    return {student: round(total, 6) for student, total in rows}


def _report(latencies: dict[str, tuple[float, float, float]], watched: dict[str, float], graded: dict[str, float],
            students: list[str]) -> None:
    # Feedback released before `nbgrader submit` has exited (it copies the submission to its cache after
    # the exchange) is fetchable at once: a wait of 0.
    waits = sorted(max(0.0, seen - returned) for returned, seen, _ in latencies.values())
    arrivals = sorted(seen - arrived for _, seen, arrived in latencies.values())
    first = min(returned for returned, _, _ in latencies.values())
    last = max(seen for _, seen, _ in latencies.values())
    same = sum(watched.get(s) == graded.get(s) and s in watched for s in students)
    print(json.dumps({student: watched.get(student) for student in students}))
    print(f"submit returned -> feedback fetchable: p50 {statistics.median(waits):.2f} s, p95 {_p95(waits):.2f} s, "
          f"max {waits[-1]:.2f} s ({len(waits)} submissions)")
    print(f"submission finished in inbound/ -> feedback fetchable: p50 {statistics.median(arrivals):.2f} s, "
          f"p95 {_p95(arrivals):.2f} s, max {arrivals[-1]:.2f} s")
    print(f"throughput: {len(waits) / (last - first):.2f} submissions/s over {last - first:.1f} s "
          "(first submit returned to last feedback released)")
    print(f"scores: {same} of {len(students)} equal to `autograder grade --force` on the same submissions")


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18] if len(values) > 1 else values[0]


def _wait(check, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"bench-watch: timed out waiting for {what}")
        time.sleep(0.01)


if __name__ == "__main__":
    sys.exit(main())
