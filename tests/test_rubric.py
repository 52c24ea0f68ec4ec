"""Rubric items applied to one question's answers (autograder/by_question/rubric.py), on a real nbgrader gradebook
(SQLite, tests/question_gradebook.py): the scores are nbgrader's manual scores, the LMS outbox is told through
`grades.settle`, an item's edit re-scores everyone it was given to, and two graders never overwrite each other.
"""

from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.by_question.rubric import Conflict, Question, QuestionGrading, RubricError, given_items
from autograder.deadlines.rules import LateRules
from autograder.grades.outbox import SessionSql, latest
from autograder.grades.settle import GradeRules
from tests.question_gradebook import ASSIGNMENT, CELL, NOTEBOOK, copy_opened, made_once

QUESTION = Question(ASSIGNMENT, NOTEBOOK, CELL)
STUDENTS = [f"s{i:03d}" for i in range(40)]


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    return made_once(tmp_path_factory.mktemp("question"), STUDENTS)  # 7 of 7 autograded, the written answer waiting


@pytest.fixture
def gradebook(made: Path, tmp_path: Path):
    with copy_opened(made, tmp_path) as gb:
        yield gb


def grader(gb: Gradebook, user: str = "ta1") -> QuestionGrading:
    return QuestionGrading(SessionSql(gb.db), QUESTION, GradeRules(LateRules()), user)


def manual(gb: Gradebook) -> dict[str, tuple[float | None, bool]]:
    gb.db.expire_all()
    return {s: (g.manual_score, bool(g.needs_manual_grade))
            for s in STUDENTS for g in [gb.find_grade(CELL, NOTEBOOK, ASSIGNMENT, s)]}


def test_items_applied_to_groups_become_manual_scores_and_reach_the_outbox(gradebook):
    q = grader(gradebook)
    full = q.add_item(2, "Names both blocks: W_hh meets h, W_hx meets x.")
    half = q.add_item(1, "Says the blocks line up, without which parts meet.")
    order = q.add_item(-1, "Misses that the orders must match.")
    q.add_item(0, "No answer.")
    seen = {s: a.version for s, a in q.answers().items()}
    q.apply(full.id, {s: seen[s] for s in STUDENTS[:20]})
    q.apply(half.id, {s: seen[s] for s in STUDENTS[20:30]})
    gradebook.db.commit()
    seen = {s: a.version for s, a in q.answers().items()}
    q.apply(order.id, {s: seen[s] for s in STUDENTS[25:30]})  # half, then one taken off
    gradebook.db.commit()
    scores = manual(gradebook)
    assert all(scores[s] == (2.0, False) for s in STUDENTS[:20])
    assert all(scores[s] == (1.0, False) for s in STUDENTS[20:25])
    assert all(scores[s] == (0.0, False) for s in STUDENTS[25:30])  # 1 - 1
    assert all(scores[s] == (None, True) for s in STUDENTS[30:])  # not graded: no 0 written
    sent = latest(SessionSql(gradebook.db), ASSIGNMENT)
    assert sent["s000"].score == 9.0 and sent["s000"].max_score == 9.0 and sent["s000"].origin == "rubric"
    assert "explain_formulas 2/2" in sent["s000"].comment
    assert sent["s025"].score == 7.0 and "explain_formulas 0/2" in sent["s025"].comment
    assert "s039" not in sent  # nothing of theirs changed: nothing queued
    assert given_items(SessionSql(gradebook.db).rows, ASSIGNMENT, NOTEBOOK, "s027") == {CELL: [
        (1.0, "Says the blocks line up, without which parts meet."), (-1.0, "Misses that the orders must match.")]}


def test_an_items_edit_rescores_everyone_it_was_given_to_and_clamps(gradebook):
    q = grader(gradebook)
    good = q.add_item(2, "Right.")
    extra = q.add_item(1, "A nice picture.")
    q.apply(good.id, {s: 0 for s in STUDENTS[:10]})
    q.apply(extra.id, {s: 1 for s in STUDENTS[:3]})
    gradebook.db.commit()
    assert manual(gradebook)["s000"] == (2.0, False)  # 3 clamped to the cell's 2
    rescored = q.edit_item(good.id, good.version, 0.5, "Right, but only just.")
    gradebook.db.commit()
    assert rescored == STUDENTS[:10]
    scores = manual(gradebook)
    assert [scores[s][0] for s in STUDENTS[:4]] == [1.5, 1.5, 1.5, 0.5]
    assert latest(SessionSql(gradebook.db), ASSIGNMENT)["s005"].score == 7.5
    q.remove_item(extra.id, extra.version)
    gradebook.db.commit()
    assert manual(gradebook)["s000"] == (0.5, False)
    q.apply(good.id, {"s009": 1}, given=False)  # taken back: not graded again, not a 0
    gradebook.db.commit()
    assert manual(gradebook)["s009"] == (None, True)


def test_two_graders_never_overwrite_each_other_silently(gradebook):
    a, b = grader(gradebook, "ta1"), grader(gradebook, "ta2")
    item = a.add_item(2, "Right.")
    low = a.add_item(1, "Half.")
    gradebook.db.commit()
    seen_by_b = {s: x.version for s, x in b.answers().items()}
    a.apply(item.id, {"s001": 0, "s002": 0})
    gradebook.db.commit()
    with pytest.raises(Conflict, match="another grader changed s001 since you loaded the question"):
        b.apply(low.id, {s: seen_by_b[s] for s in ("s000", "s001")})
    gradebook.db.rollback()
    scores = manual(gradebook)
    assert scores["s001"] == (2.0, False) and scores["s000"] == (None, True)  # all or nothing
    # the item itself: b edits what a changed since b loaded it
    a.edit_item(low.id, low.version, 0.5, "Half, barely.")
    gradebook.db.commit()
    with pytest.raises(Conflict, match="rubric item 2 was changed by another grader"):
        b.edit_item(low.id, low.version, 1.5, "Mostly.")
    gradebook.db.rollback()
    assert [i.points for i in b.items()] == [2.0, 0.5]


def test_bad_changes_are_refused_in_one_line_and_change_nothing(gradebook):
    q = grader(gradebook)
    with pytest.raises(RubricError, match="points 3 is not between -2 and 2"):
        q.add_item(3, "Too generous.")
    with pytest.raises(RubricError, match="needs a comment"):
        q.add_item(1, "   ")
    with pytest.raises(RubricError, match="points 'lots' is not a number"):
        q.add_item("lots", "x")
    item = q.add_item(1, "ok")
    with pytest.raises(RubricError, match="no submission of hsa from 'nobody'"):
        q.apply(item.id, {"nobody": 0, "s000": 0})
    with pytest.raises(RubricError, match="test_sigmoid is autograded"):
        QuestionGrading(SessionSql(gradebook.db), Question(ASSIGNMENT, NOTEBOOK, "test_sigmoid"),
                        GradeRules(LateRules()), "ta1")
    with pytest.raises(RubricError, match="hsa has no grade cell 'nope' in hsa"):
        QuestionGrading(SessionSql(gradebook.db), Question(ASSIGNMENT, NOTEBOOK, "nope"), GradeRules(LateRules()),
                        "ta1")
    assert manual(gradebook)["s000"] == (None, True)
