import pytest

from autograder.devtools.catalogue import catalogued
from autograder.devtools.repo import available_assignments
from tests.nbgrader_class import GradedClass, grade_class

# `make test` runs test files on several workers (pytest-xdist, `--dist loadgroup`). A file's tests stay together
# on one worker, so a module's fixtures are built once; the files that share the session's `graded_classes` (the
# slowest fixture of all) share one worker too, so the class is graded once.
GRADED_CLASSES_GROUP = "graded-classes"


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    sharing = {item.path for item in items if "graded_classes" in getattr(item, "fixturenames", ())}
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            group = GRADED_CLASSES_GROUP if item.path in sharing else item.nodeid.split("::")[0]
            item.add_marker(pytest.mark.xdist_group(group))


ASSIGNMENTS = available_assignments()  # every source/<name>/<name>.ipynb of this repository
CATALOGUED = catalogued(ASSIGNMENTS)  # those with a catalogue of answers (the tests that grade a class need one)


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
