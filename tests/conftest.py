import pytest

from autograder.devtools.catalogue import catalogued
from autograder.devtools.repo import available_assignments
from tests.nbgrader_class import GradedClass, grade_class

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
