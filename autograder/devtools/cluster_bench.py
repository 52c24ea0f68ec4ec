"""`make bench-cluster N=2000`: the same class graded by the local pool and by a Dask `LocalCluster` of
worker processes on this machine, with the gradebook in SQLite and on a PostgreSQL server.

For each database: `autograder grade --jobs W` and `autograder grade --cluster ADDRESS` (W worker processes
each), each on its own copy of the ungraded class, `--runs` times each alternated (the median counts),
scores compared cell by cell, and the cluster's throughput as a share of the local pool's (target >= 0.9).
Then what bounds throughput as workers are added: the round trip of one task through Dask and through the
local pool (echoing a real job), Dask's task rate with a few tasks per worker in flight, and the client side
alone (reading submissions, recording outcomes through the one gradebook writer, with grading replaced by
outcomes computed beforehand), in submissions and gradebook rows per second.

The PostgreSQL server is the tests' own (`tests/postgres.py`): run this from a clone, as `make` does.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import Future, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.bench import build, clone, scores, timed
from autograder.devtools.repo import available_assignments

ROW_TABLES = ("submitted_assignment", "submitted_notebook", "grade", "comment")


HEADER = (f"{'gradebook':<11}{'local s':>9}{'cluster s':>11}{'local/s':>10}{'dask/s':>10}{'ratio':>8}"
          f"{'client/s':>11}{'rows/s':>10}")


def echo(value: Any) -> Any:
    return value


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


def point_at(course: Path, db_url: str, assignment: str) -> None:
    """Make `db_url` the course's gradebook, with the assignment in it (as the SQLite copy has)."""
    with open(course / "nbgrader_config.py", "a") as config:
        config.write(f"\nc.CourseDirectory.db_url = {db_url!r}\n")
    nbgrader(course, "generate_assignment", assignment, "--force")


def ungraded(template: Path, dest: Path, assignment: str, n: int, server: Any = None) -> Path:
    """A copy of the ungraded class; with a PostgreSQL `server`, its gradebook a new database there."""
    course = clone(template, dest, assignment, n)
    if server is not None:
        point_at(course, server.url(server.create_database()), assignment)
    return course


def row_count(db_url: str) -> int:
    import sqlalchemy

    engine = sqlalchemy.create_engine(db_url)
    try:
        with engine.connect() as connection:
            return sum(connection.execute(sqlalchemy.text(f"SELECT count(*) FROM {t}")).scalar() for t in ROW_TABLES)
    finally:
        engine.dispose()


def round_trips(submit: Any, job: Any, in_flight: int, count: int) -> float:
    """Seconds per task, `count` echo tasks of `job` with at most `in_flight` out at once."""
    pending: set[Future] = set()
    started = time.perf_counter()
    for _ in range(count):
        if len(pending) >= in_flight:
            done, pending = wait(pending, return_when="FIRST_COMPLETED")
            for future in done:
                future.result()
        pending.add(submit(echo, job))
    for future in pending:
        future.result()
    return (time.perf_counter() - started) / count


class Precomputed:
    """An executor that grades each distinct submission once, in this process, and then hands its outcome
    out at once for every student who submitted the same: what is left of a run is the client side alone."""

    def __init__(self, hide: list[str]) -> None:
        from autograder.grading.pool import Worker

        self.zygote = Worker(hide).zygote()
        self.outcomes: dict[str, dict[str, Any]] = {}

    def submit(self, fn: Any, *args: Any) -> Future:
        import json

        from autograder.grading.model import Outcome
        from autograder.grading.pool import work
        from autograder.grading.submission import grade_submission

        future: Future = Future()
        if fn is not work:
            future.set_result(fn(*args))
            return future
        job = args[0]
        key = json.dumps({**job.to_dict(), "student": ""}, sort_keys=True)
        if key not in self.outcomes:
            self.outcomes[key] = grade_submission(job, self.zygote).to_dict()
        outcome = Outcome.from_dict(self.outcomes[key])
        outcome.result.student = job.student
        future.set_result(outcome)
        return future

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


def settings_of(course: Path) -> Any:
    """The course's settings, read as the command reads them: from its root."""
    from autograder.course.settings import read_course

    here = os.getcwd()
    os.chdir(course)
    try:
        return read_course(course, rooted=True)
    finally:
        os.chdir(here)


def client_side(course: Path, assignment: str, executor: Precomputed) -> tuple[float, int, int]:
    """One run of `grade_class` on `course` with `executor`: seconds, submissions recorded, gradebook rows."""
    from autograder.grading.scheduler import grade_class, start_class, students_to_grade
    from autograder.grading.writer import GradebookWriter

    settings = settings_of(course)
    students = students_to_grade(settings, assignment, None)
    writer = GradebookWriter(settings.db_url, settings.course_id, config=settings.coursedir.config)
    try:
        before = row_count(settings.db_url)
        started = time.perf_counter()
        run = start_class(settings, assignment, writer.source_notebooks(assignment), students, False, 2,
                                     [], executor)
        summary = grade_class(run, writer, keep_pool=True)
        seconds = time.perf_counter() - started
    finally:
        writer.close()
    return seconds, summary.graded + summary.unreadable, row_count(settings.db_url) - before


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=2000, help="submissions in the class (default 2000)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes, local and on the cluster")
    parser.add_argument("--assignment", default=available_assignments()[0])
    parser.add_argument("--databases", default="sqlite,postgresql")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each side, alternated (median counts)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path.cwd()))  # tests/postgres.py, from the clone this runs in
    import distributed

    from autograder.cluster.executor import connect
    from autograder.grading.startup import hidden_paths

    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    cli = str(Path(sys.executable).parent / "autograder")
    server = None
    failed = False
    rows: list[str] = []
    with tempfile.TemporaryDirectory(prefix="autograder-bench-cluster-") as scratch, \
            distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                     dashboard_address=None) as cluster:
        print(f"building {args.n} submissions of {args.assignment} ...", flush=True)
        template = build(Path(scratch) / "template", args.assignment, args.n)
        # First, while the cluster is fresh: the client side's runs below are in this process, which also
        # hosts the LocalCluster's scheduler and nannies, and have left it without workers once.
        print("one task's round trip (echoing a real job), and task rate with 2 per worker in flight ...", flush=True)
        job = _a_job(template, args.assignment)
        dask = connect(cluster.scheduler_address, hidden_paths(template), [args.assignment])
        try:
            dask_one = round_trips(dask.submit, job, 1, 200)
            dask_rate = round_trips(dask.submit, job, 2 * args.workers, 1000)
        finally:
            dask.shutdown()
        with ProcessPoolExecutor(args.workers, mp_context=get_context("spawn")) as pool:  # no fork of Dask's threads
            round_trips(pool.submit, job, 1, 20)  # the workers start
            pool_one = round_trips(pool.submit, job, 1, 200)
            pool_rate = round_trips(pool.submit, job, 2 * args.workers, 1000)
        try:
            for database in args.databases.split(","):
                if database == "postgresql":
                    from tests.postgres import PostgresServer

                    if server is None:
                        server = PostgresServer()
                        server.start()
                copies: dict[str, Path] = {}

                on = server if database == "postgresql" else None

                def fresh(name: str, database: str = database, on: Any = on) -> Path:
                    return ungraded(template, Path(scratch) / f"{database}-{name}", args.assignment, args.n, on)

                times: dict[str, list[float]] = {"local": [], "cluster": []}
                extras = {"local": ["--jobs", str(args.workers)], "cluster": ["--cluster", cluster.scheduler_address]}
                # Whatever else the host does moves one run by ~10%: runs alternate, and the median counts.
                for run in range(args.runs):
                    for side in ("local", "cluster") if run % 2 == 0 else ("cluster", "local"):
                        course = fresh(f"{side}-{run}")
                        os.sync()
                        print(f"{database}: autograder grade {' '.join(extras[side])} ({load()}) ...", flush=True)
                        took, _, done = timed([cli, "grade", args.assignment, *extras[side]], course, env)
                        if done.returncode != 0:
                            print(done.stdout, done.stderr[-3000:], file=sys.stderr)
                            return 1
                        print(f"  {took:.2f} s: {done.stdout.strip().splitlines()[0]}", flush=True)
                        times[side].append(took)
                        copies[side] = course
                seconds = {side: statistics.median(taken) for side, taken in times.items()}
                copies["client"] = fresh("client")
                mine, theirs = scores(copies["cluster"], args.assignment), scores(copies["local"], args.assignment)
                differ = [s for s in theirs if mine.get(s) != theirs[s]] + [s for s in mine if s not in theirs]
                failed |= bool(differ) or len(mine) != args.n
                print(f"  scores: {len(theirs) - len(differ)} of {args.n} submissions agree cell by cell")
                print(f"client side alone ({database}): reading and recording, grading done beforehand ...", flush=True)
                executor = Precomputed(hidden_paths(copies["client"]))
                warm = ungraded(template, Path(scratch) / f"{database}-warm", args.assignment, min(args.n, 200), on)
                client_side(warm, args.assignment, executor)  # every distinct submission graded once
                client_s, recorded, written = client_side(copies["client"], args.assignment, executor)
                ratio = seconds["local"] / seconds["cluster"]
                failed |= ratio < 0.9
                rows.append(f"{database:<11}{seconds['local']:>9.2f}{seconds['cluster']:>11.2f}"
                            f"{args.n / seconds['local']:>10.0f}{args.n / seconds['cluster']:>10.0f}{ratio:>8.2f}"
                            f"{recorded / client_s:>11.0f}{written / client_s:>10.0f}")
                print(f"  {HEADER}\n  {rows[-1]}", flush=True)  # kept if a later step fails
        finally:
            if server is not None:
                server.stop()
    print()
    print(f"{args.n} submissions, {args.workers} worker processes; {load()} at the end")
    print(HEADER)
    for row in rows:
        print(row)
    print("ratio: the cluster's throughput over the local pool's (target >= 0.9); client/s, rows/s: submissions "
          "and gradebook rows recorded per second by the client side alone")
    print(f"one task's round trip: Dask {1000 * dask_one:.2f} ms, local pool {1000 * pool_one:.2f} ms: "
          f"Dask adds {1000 * (dask_one - pool_one):.2f} ms a task")
    print(f"tasks per second with {2 * args.workers} in flight: Dask {1 / dask_rate:.0f}, "
          f"local pool {1 / pool_rate:.0f}")
    return 1 if failed else 0


def _a_job(course: Path, assignment: str) -> Any:
    from autograder.grading.instructor import instructor_files
    from autograder.grading.prepare import prepare
    from autograder.grading.scheduler import students_to_grade
    from autograder.grading.writer import GradebookWriter

    settings = settings_of(course)
    writer = GradebookWriter(settings.db_url, settings.course_id, config=settings.coursedir.config)
    try:
        sources = writer.source_notebooks(assignment)
    finally:
        writer.close()
    modules, preload = instructor_files(settings, sources, assignment)
    student = students_to_grade(settings, assignment, None)[0]
    return prepare(settings, sources, modules, assignment, student, preload).job


if __name__ == "__main__":
    sys.exit(main())
