import os

import pytest

from autograder.devtools.catalogue import catalogued
from autograder.devtools.repo import available_assignments
from tests.grading_course import share_releases
from tests.nbgrader_class import GradedClass, grade_class

# `make test` runs test files on several workers (pytest-xdist, `--dist loadgroup`). A file's tests stay together
# on one worker, so a module's fixtures are built once. The tests that read the session's `graded_classes` (the
# slowest fixture of all: a class graded by real `nbgrader autograde`) are grouped by the assignment they read
# instead, so each assignment's class is graded once, on its own worker, beside the other's.
GRADED_CLASS_GROUP = "graded-class-{}"


def _graded_class_read(item: pytest.Item) -> str | None:
    """The assignment whose graded class `item` reads, if it reads one."""
    if "graded_classes" not in getattr(item, "fixturenames", ()):
        return None
    callspec = getattr(item, "callspec", None)
    if callspec is not None and "assignment" in callspec.params:
        return callspec.params["assignment"]
    return None  # a test reading several classes names its group itself (`pytest.mark.xdist_group`)


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # A worker is given COLUMNS=80 and LINES=24 (it has no terminal); the commands the tests run in-process
        # would wrap their tables at 80 columns, as no plain `pytest` run or user's pipe ever sees them.
        for name in ("COLUMNS", "LINES"):
            os.environ.pop(name, None)


# The groups that keep a worker longest, longest first (as a run's timeline measured them, docs "Tests and
# their time budget"; refresh the order from `--durations` when a file grows). The Makefile hands groups out in
# the order they are collected (`--no-loadscope-reorder`) and this order starts them first: a long file started
# last would run alone while the other workers stand idle (test_outside_course.py, 4 tests, was started at 20
# of 27 minutes). Every group not named here follows, in the order pytest collects it.
SLOWEST_FIRST = (
    GRADED_CLASS_GROUP.format("rnn_update_equations"),
    "tests/test_outside_course.py",
    "tests/test_watch.py",  # mostly limits waited out
    GRADED_CLASS_GROUP.format("hidden_state_activation"),
    "tests/test_regrade.py",
    "tests/test_hub_loop.py",
    "tests/test_hub.py",
    "tests/test_course_on_databases.py",
    "tests/test_gradebook_writer.py",
    "tests/test_docs.py",
    "tests/test_one_grade.py",  # every surface read again after each of some 50 instructor actions
    "tests/test_hostile_property.py",
    "tests/test_oracle.py",
    "tests/test_watch_fairness.py",  # a sleeping notebook waited out (~78 s)
    "tests/test_callplan.py",
    "tests/test_sandbox.py",
    "tests/test_hub_lms_sync.py",
    "tests/test_demo.py",
    "tests/test_cluster.py",
)


def _group(item: pytest.Item) -> str:
    marker = item.get_closest_marker("xdist_group")
    return marker.args[0] if marker.args else marker.kwargs["name"]


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            assignment = _graded_class_read(item)
            group = GRADED_CLASS_GROUP.format(assignment) if assignment else item.nodeid.split("::")[0]
            item.add_marker(pytest.mark.xdist_group(group))
    rank = {group: index for index, group in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(_group(item), len(rank)))  # stable: the rest keep pytest's order


ASSIGNMENTS = available_assignments()  # every source/<name>/<name>.ipynb of this repository
CATALOGUED = catalogued(ASSIGNMENTS)  # those with a catalogue of answers (the tests that grade a class need one)


@pytest.fixture(scope="session", autouse=True)
def _releases_shared_by_the_workers(tmp_path_factory, worker_id) -> None:
    """The released courses `make_course` copies, made once for all the workers of a run (in the run's own
    temporary folder, which each worker's lies in) instead of once per worker: ~5 CPU-seconds each."""
    base = tmp_path_factory.getbasetemp()
    share_releases(base if worker_id == "master" else base.parent)


@pytest.fixture(scope="session")
def graded_classes(tmp_path_factory) -> dict[str, GradedClass]:
    """Each assignment's catalogue graded once by the real nbgrader autograde (slow: shared by all tests)."""
    cache: dict[str, GradedClass] = {}

    class Lazy(dict):
        def __missing__(self, assignment: str) -> GradedClass:
            cache[assignment] = grade_class(tmp_path_factory.mktemp(f"nbgrader-{assignment}"), assignment)
            self[assignment] = cache[assignment]
            return cache[assignment]

    return Lazy()


@pytest.fixture(scope="session")
def postgres():
    """One PostgreSQL server for the whole session (a second or two to start), stopped at the end."""
    from tests.postgres import PostgresServer

    server = PostgresServer()
    try:
        server.start()
        yield server
    finally:
        server.stop()
