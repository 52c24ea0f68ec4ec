"""`make bench-hub`: a class on `autograder hub`, driven through JupyterHub's REST API as many students as this
machine holds: each one's server spawned (their OS user made, the assignment fetched), a solution saved and
submitted through their own server's nbgrader API, and their feedback fetched once `autograder watch` (the hub's
service) has graded it. Prints the time from spawn request to ready server, from Submit to fetchable feedback, and
the memory each student's server holds. Figures only: nothing here is a pass or fail.

How many: one server is spawned first and measured; the class is then as many as half the memory available holds
at that size, at most --max (CPU, not memory, is what a small machine runs out of first: see the spawn times).
"""

import argparse
import json
import os
import secrets
import shutil
import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.catalogue import write_submission
from autograder.devtools.hub_driver import Api, HubFailed, RunningHub, remove_users, running_hub
from autograder.devtools.repo import new_course
from autograder.hub.groups import instructor_group
from autograder.hub.os_accounts import account_command, course_group_name

ASSIGNMENT = "hidden_state_activation"
KEPT_LOG = Path(tempfile.gettempdir()) / "bench-hub.log"
MEMORY_SHARE = 0.5  # of MemAvailable, for the students' servers: the hub, the watcher and the system keep the rest


def memory_available() -> int:
    """Bytes the kernel says can be given to new processes (MemAvailable)."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no MemAvailable in /proc/meminfo")


def user_pss(uid: int) -> int:
    """Bytes of memory held by every process of `uid` (a student's server and what it started), each page shared
    with other processes counted as its share (PSS: what one more student costs, not the libraries all share)."""
    total = 0
    for process in Path("/proc").glob("[0-9]*"):
        try:
            if process.stat().st_uid != uid:
                continue
            rollup = (process / "smaps_rollup").read_text()
        except OSError:
            continue
        total += sum(int(line.split()[1]) * 1024 for line in rollup.splitlines() if line.startswith("Pss:"))
    return total


class Student:
    def __init__(self, hub: RunningHub, name: str, course_id: str) -> None:
        self.hub, self.name = hub, name
        self.api: Api = hub.add_user(name, course_id=course_id)
        self.spawn_seconds = self.feedback_seconds = 0.0
        self.memory = 0
        self.failed = ""  # why their server did not start, if it did not

    def spawn_or_fail(self) -> None:
        try:
            self.spawn()
        except HubFailed as exc:
            self.failed = str(exc).splitlines()[0]

    def spawn(self) -> None:
        start = time.monotonic()
        reply = self.hub.spawn(self.name)
        if reply.status_code not in (201, 202):
            raise HubFailed(f"spawning {self.name}: HTTP {reply.status_code} {reply.text[:300]}")
        self.hub.wait_ready(self.name, timeout=900)
        self.spawn_seconds = time.monotonic() - start
        listing = self.api.server(self.name, "GET", f"/api/contents/{ASSIGNMENT}")
        if listing.status_code != 200:
            raise HubFailed(f"{self.name}: the assignment was not fetched at spawn (HTTP {listing.status_code})")
        import pwd

        self.memory = user_pss(pwd.getpwnam(self.name).pw_uid)

    def submit_and_wait(self, course: Path, course_id: str) -> None:
        answered = write_submission(ASSIGNMENT, Path(tempfile.mkdtemp()), release=course / "release" / ASSIGNMENT)
        self.api.put_notebook(self.name, f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb", json.loads(answered.read_text()))
        start = time.monotonic()
        done = self.api.assignments(self.name, "submit", course_id, ASSIGNMENT).json()
        if not done["success"]:
            raise HubFailed(f"{self.name}: submit failed: {str(done['value'])[:300]}")
        while time.monotonic() - start < 1800:
            listed = self.api.assignments(self.name, "fetch_feedback", course_id, ASSIGNMENT).json()
            if any(nb["has_local_feedback"] for a in listed["value"] if a["status"] == "submitted"
                   for s in a["submissions"] for nb in s["notebooks"]):
                self.feedback_seconds = time.monotonic() - start
                return
            time.sleep(1)
        raise HubFailed(f"{self.name}: no feedback 30 minutes after submitting")


def figures(label: str, values: list[float], unit: str = "s") -> str:
    values = sorted(values)
    return (f"{label}: median {statistics.median(values):.1f} {unit}, max {values[-1]:.1f} {unit} "
            f"(n={len(values)})")


def run(students: int | None, most: int) -> int:
    scratch = Path(tempfile.mkdtemp(prefix="autograder-hub-bench-"))
    os.chmod(scratch, 0o755)
    course = new_course(scratch / "course", (ASSIGNMENT,))
    tag = secrets.token_hex(3)
    course_id = f"hubbench-{tag}"  # its instructors' OS group is the machine's: a name no other run shares
    with open(course / "nbgrader_config.py", "a") as config:
        config.write(f'\nc.Exchange.root = "{scratch / "exchange"}"\nc.CourseDirectory.course_id = "{course_id}"\n')
    nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    nbgrader(course, "release_assignment", ASSIGNMENT)
    made: list[str] = []
    try:
        with running_hub(course, scratch / "state", "--authenticator", "null") as hub:
            first = Student(hub, f"agb{tag}0", course_id)
            made.append(first.name)
            first.spawn()
            holds = int(memory_available() * MEMORY_SHARE / max(first.memory, 1))
            count = students or max(1, min(most, holds))
            print(f"one student's server: {first.memory / 2**20:.0f} MB (PSS); half of this machine's available "
                  f"memory holds {holds} such servers; this run: {count} students on {os.cpu_count()} cores",
                  flush=True)
            rest = []
            for index in range(1, count):
                rest.append(Student(hub, f"agb{tag}{index}", course_id))
                made.append(rest[-1].name)
            class_ = [first, *rest]
            with ThreadPoolExecutor(max_workers=max(1, len(rest))) as pool:
                list(pool.map(Student.spawn_or_fail, rest))  # the class arrives at once
            for student in class_:
                if student.failed:
                    print(f"{student.name}: {student.failed}", flush=True)
            class_ = [student for student in class_ if not student.failed]
            print(f"servers started: {len(class_)} of {count}", flush=True)
            print(figures("spawn request -> ready server (the first alone, then the rest at once)",
                          [s.spawn_seconds for s in class_]), flush=True)
            print(figures("memory per student server (PSS)", [s.memory / 2**20 for s in class_], "MB"), flush=True)
            with ThreadPoolExecutor(max_workers=len(class_)) as pool:
                list(pool.map(lambda s: s.submit_and_wait(course, course_id), class_))  # everyone submits at once
            print(figures("Submit -> feedback fetchable (all submitting at once)",
                          [s.feedback_seconds for s in class_]), flush=True)
    finally:
        log = scratch / "state-hub.log"
        if log.exists():
            shutil.copy(log, KEPT_LOG)
            print(f"the hub's log: {KEPT_LOG}")
        remove_users(made)
        account_command("groupdel", course_group_name(instructor_group(course_id)))
        subprocess.run(["rm", "-rf", str(scratch)])
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, help="this many, instead of as many as the memory holds")
    parser.add_argument("--max", type=int, default=40, dest="most",
                        help="at most this many students (default 40)")
    args = parser.parse_args()
    if os.geteuid() != 0:
        parser.error("run it as root: the hub makes an OS user per student")
    return run(args.students, args.most)


if __name__ == "__main__":
    raise SystemExit(main())
