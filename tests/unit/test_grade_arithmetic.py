"""`grades.arithmetic` against nbgrader's own classes on random gradebooks: a cell's score (`Grade.score`), a
notebook's and a submission's (`SubmittedNotebook.score`, `SubmittedAssignment.score`), the late penalty its
`AssignLatePenalties` stores with the course's plugin (`late_plugin.LateCredit`) and the score its CSV export
counts (`max(0, score - penalty)`). The gradebook is nbgrader's, made once (its schema by nbgrader) and filled
through nbgrader's ORM; our side reads it with `grades.facts`, as every surface does."""

import shutil
from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from nbgrader.api import Gradebook
from nbgrader.preprocessors import AssignLatePenalties
from traitlets.config import Config

from autograder.deadlines.late_plugin import LateContext, LateCredit
from autograder.deadlines.rules import rules_from
from autograder.grades.arithmetic import cell_score, clamp_penalty, counted_score, grade_of, stored_grade
from autograder.grades.facts import read_facts

DUE = datetime(2026, 3, 1, 12, 0)
SCHEDULE = {"schedule": [["24h", 0.75], ["72h", 0.4]], "after": "not-accepted", "grace": "5m",
            "labels": {"slow": {"extra": "12h", "stretch": 1.5}}}
CELLS = (("nb1", "test_a", 5.0), ("nb1", "test_b", 3.0), ("nb2", "test_c", 4.0))


@pytest.fixture(scope="module")
def empty_gradebook(tmp_path_factory):
    """An empty nbgrader gradebook (its schema made once: nbgrader runs alembic for a new one)."""
    path = tmp_path_factory.mktemp("arith") / "empty.db"
    with Gradebook(f"sqlite:///{path}") as gb:
        gb.update_or_create_assignment("hw", duedate=DUE)
        for notebook in ("nb1", "nb2"):
            gb.update_or_create_notebook(notebook, "hw")
        for notebook, cell, points in CELLS:
            gb.update_or_create_grade_cell(cell, notebook, "hw", max_score=points, cell_type="code")
    return path


scores = st.one_of(st.none(), st.floats(0, 6, allow_nan=False).map(lambda x: round(x, 3)))
cell_facts = st.tuples(scores, scores, st.one_of(st.none(), st.floats(0, 2).map(lambda x: round(x, 3))))
late_hours = st.one_of(st.just(None), st.floats(-48, 24 * 6).map(lambda h: round(h, 4)))


@pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")  # nbgrader's ORM on its own way of adding rows
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cells=st.lists(cell_facts, min_size=len(CELLS), max_size=len(CELLS)), hours=late_hours,
       extension=st.one_of(st.none(), st.integers(1, 96)), label=st.booleans())
@example(cells=[(None, None, None)] * len(CELLS), hours=None, extension=5, label=False)  # only an extension
def test_our_arithmetic_is_nbgraders_on_any_gradebook(empty_gradebook, tmp_path, cells, hours, extension, label):
    db = tmp_path / "gb.db"
    shutil.copy(empty_gradebook, db)
    url = f"sqlite:///{db}"
    config = Config({"LateCredit": SCHEDULE})
    rules = rules_from(SCHEDULE)
    with Gradebook(url) as gb:
        gb.add_student("ann")
        stamp = None if hours is None else DUE + timedelta(hours=hours)
        submission = gb.update_or_create_submission("hw", "ann", timestamp=stamp)
        if extension is not None:
            submission.extension = timedelta(hours=extension)
        from sqlalchemy import text

        gb.db.execute(text("CREATE TABLE autograder_student_label (student_id VARCHAR(128) PRIMARY KEY, "
                           "label VARCHAR(128))"))
        if label:
            gb.db.execute(text("INSERT INTO autograder_student_label VALUES ('ann', 'slow')"))
        for (notebook, cell, _), (auto, manual, extra) in zip(CELLS, cells, strict=True):
            grade = gb.find_grade(cell, notebook, "hw", "ann")
            grade.auto_score, grade.manual_score, grade.extra_credit = auto, manual, extra
        gb.db.commit()
        # nbgrader's AssignLatePenalties, notebook by notebook, with the course's plugin
        submission = gb.find_submission("hw", "ann")
        for notebook in submission.notebooks:
            notebook.late_submission_penalty = None
            if submission.total_seconds_late > 0:
                parent = LateContext("hw", lambda sql, params: [tuple(r) for r in gb.db.execute(text(sql), params)],
                                     config=config)
                found = LateCredit(parent=parent, config=config).late_submission_penalty(
                    "ann", notebook.score, submission.total_seconds_late)
                if found is not None:  # nbgrader's own clamp
                    notebook.late_submission_penalty = AssignLatePenalties()._check_late_penalty(notebook, found)
        gb.db.commit()
        theirs = gb.find_submission("hw", "ann")
        their_cells = {(g.notebook.name, g.name): g.score for n in theirs.notebooks for g in n.grades}
        their_notebooks = {n.name: (n.score, n.late_submission_penalty) for n in theirs.notebooks}
        their_raw, their_penalty = theirs.score, theirs.late_submission_penalty
        rows = lambda sql, params: [tuple(r) for r in gb.db.execute(text(sql), params)]  # noqa: E731
        facts = read_facts(rows, "hw").get("ann")
    if facts is None:  # only an extension, nothing handed in nor scored: not a submission (nbgrader's row is empty)
        assert hours is None and extension is not None and all(a is None and m is None for a, m, _ in cells)
        return
    ours = grade_of(facts, rules)
    assert {(c.notebook, c.cell): c.score for c in facts.cells} == pytest.approx(their_cells)
    assert ours.notebook_scores == pytest.approx({n: s for n, (s, _) in their_notebooks.items()})
    assert {n: p or 0.0 for n, p in ours.penalties.items()} == pytest.approx(
        {n: p or 0.0 for n, (_, p) in their_notebooks.items()})
    assert ours.raw == pytest.approx(their_raw)
    assert ours.penalty == pytest.approx(their_penalty)
    assert ours.score == pytest.approx(max(0.0, their_raw - their_penalty))  # nbgrader's CsvExportPlugin
    assert not ours.stale  # what nbgrader stored is what we derive
    assert stored_grade(facts).score == pytest.approx(ours.score)


def test_the_rules_nbgrader_fixes():
    assert cell_score(None, None, 1.0) == 0.0  # ungraded: no extra credit either
    assert cell_score(2.0, None, None) == 2.0
    assert cell_score(2.0, 0.0, None) == 0.0  # a manual 0 counts over the graders'
    assert cell_score(2.0, 1.0, 0.5) == 1.5
    assert clamp_penalty(-1.0, 3.0) == 0.0 and clamp_penalty(5.0, 3.0) == 3.0 and clamp_penalty(1.0, 3.0) == 1.0
    assert counted_score(2.0, 3.0) == 0.0 and counted_score(3.0, 1.0) == 2.0
