"""`autograder grade --cluster ADDRESS` on a real Dask `LocalCluster` (worker processes, on loopback):
the scores a local-pool run gives, with a worker killed mid-run and with the scheduler going away; and a
run without `--cluster` never imports Dask."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import distributed
import pytest

from autograder.course.settings import read_course
from autograder.devtools.catalogue import correct_answers, wrong_answers
from tests.databases import DATABASES, query
from tests.grading_course import ASSIGNMENT, add_cell, grade, make_course, scores, submit

N = 30
# Each submission sleeps a little, so that a run lasts a few seconds and a fault lands in its middle.
SLOW = "import time\ntime.sleep(0.2)"

LOCAL_RUN = """
import sys
from autograder.cli import main
code = main(["grade", sys.argv[1], "--jobs", "2"])
print(sorted(name for name in sys.modules if name.split(".")[0] in ("dask", "distributed")))
sys.exit(code)
"""


def build(root: Path, extra_config: str = "") -> Path:
    """N students, every other one with a wrong answer."""
    course = make_course(root, extra_config)
    right, wrong = correct_answers(ASSIGNMENT), wrong_answers(ASSIGNMENT)
    for i in range(N):
        answer = wrong[i // 2 % len(wrong)] if i % 2 else right[i // 2 % len(right)]
        submit(course, f"s{i:03d}", [answer], edit=add_cell(SLOW))
    return course


def graded_folders(course: Path) -> int:
    folder = course / "autograded"
    return sum(1 for _ in folder.iterdir()) if folder.is_dir() else 0


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, dict[str, float]]:
    """The class graded by the local pool, in a process that says which Dask modules it imported."""
    course = build(tmp_path_factory.mktemp("local") / "course")
    done = subprocess.run([sys.executable, "-c", LOCAL_RUN, ASSIGNMENT], cwd=course, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"graded {N}," in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]", "a local run imported Dask"
    return scores(course)


@pytest.fixture
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        yield cluster


@pytest.fixture(params=DATABASES)
def course(request, tmp_path) -> Path:
    extra = ""
    if request.param == "postgresql":
        server = request.getfixturevalue("postgres")
        extra = f"c.CourseDirectory.db_url = {server.url(server.create_database())!r}"
    return build(tmp_path / "course", extra)


def start_grading(course: Path, address: str) -> subprocess.Popen:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.Popen([str(Path(sys.executable).parent / "autograder"), "grade", ASSIGNMENT, "--cluster",
                             address], cwd=course, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_first_batch(course: Path, process: subprocess.Popen) -> int:
    """Once some results are committed (their folders are in place), how many; the run is still going."""
    deadline = time.monotonic() + 300
    while graded_folders(course) == 0:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "nothing graded in 300 s"
        time.sleep(0.05)
    return graded_folders(course)


def test_a_local_run_matches_itself_and_never_imports_dask(reference):
    assert len(reference) == N
    totals = {sum(cells.values()) for cells in reference.values()}
    assert max(totals) == 46.0 and min(totals) < 46.0  # right and wrong answers: the comparisons below can fail


def test_a_worker_killed_mid_run_loses_nothing_and_records_each_result_once(reference, cluster, course):
    process = start_grading(course, cluster.scheduler_address)
    with distributed.Client(cluster) as client:
        wait_for_first_batch(course, process)
        victim = next(iter(client.run(os.getpid).values()))  # a worker process (its nanny restarts it)
        os.kill(victim, signal.SIGKILL)
        assert graded_folders(course) < N, "the class was graded before the worker died: nothing was tested"
        out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err
    assert f"graded {N}, failed 0" in out and "NOT GRADED" not in out, out
    assert scores(course) == reference
    db_url = read_course(course).db_url
    assert query(db_url, "SELECT count(*) FROM submitted_assignment") == [(N,)]
    # One grade a grade cell (the autograded ones and the written answer) a submission, none twice.
    ((cells,),) = query(db_url, "SELECT count(*) FROM grade_cells")
    assert cells >= 6 and query(db_url, "SELECT count(*) FROM grade") == [(N * cells,)]
    assert graded_folders(course) == N
    seconds = [json.loads((course / "autograded" / s / ASSIGNMENT / "autograder-result.json").read_text())["seconds"]
               for s in reference]
    assert all(s >= 0.2 for s in seconds)  # every result is a real run of the submission


def test_the_scheduler_going_away_stops_in_one_line_and_the_next_run_grades_the_rest(reference, cluster, tmp_path):
    course = build(tmp_path / "course")
    process = start_grading(course, cluster.scheduler_address)
    wait_for_first_batch(course, process)
    cluster.close()
    out, err = process.communicate(timeout=600)
    assert process.returncode == 1, (out, err)
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith(f"autograder grade: lost the Dask scheduler at "
                                                   f"{cluster.scheduler_address}"), err
    committed = scores(course)
    assert 0 < len(committed) < N, "the class was graded before the scheduler went away: nothing was tested"
    assert graded_folders(course) == len(committed)  # folders are in place only for committed rows
    assert committed == {s: reference[s] for s in committed}
    done = grade(course)  # the local pool takes over
    assert done.returncode == 0, done.stderr
    assert f"graded {N - len(committed)}, failed 0 (unreadable), skipped {len(committed)}" in done.stdout
    assert scores(course) == reference


def test_an_unreachable_scheduler_is_one_line(tmp_path):
    course = make_course(tmp_path / "course")
    done = grade(course, "--cluster", "tcp://127.0.0.1:9")
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("autograder grade: cannot reach the Dask scheduler at tcp://127.0.0.1:9: "), line


def test_the_watcher_grades_on_the_cluster(cluster, tmp_path):
    from tests.watching import OWNERLESS, copy_watched, feedback_of, hand_in, make_template, wait_for, watching

    watched = copy_watched(make_template(tmp_path / "template"), tmp_path / "watched", OWNERLESS)
    wrong = next(a for a in wrong_answers(ASSIGNMENT) if a.hint == "wrong_axis")  # loses concat_weights' 6 points
    handed = [hand_in(watched, "ada", [wrong]), hand_in(watched, "bo")]
    with watching(watched.course, "--cluster", cluster.scheduler_address) as watcher:
        for one in handed:
            wait_for(lambda one=one: feedback_of(watched, one).is_file(), 120, f"feedback for {one.name}", watcher.log)
    assert watcher.code == 0
    assert f"(the Dask cluster at {cluster.scheduler_address}, sandbox level full)" in watcher.log()
    got = scores(watched.course)
    assert sum(got["bo"].values()) == 46.0
    assert got["ada"]["test_concat_weights"] == 0.0 and sum(got["ada"].values()) == 40.0
