"""`autograder grade` gives every grade cell the score the real `nbgrader autograde` gives, over both
assignments' catalogues (the solution, a blank release, every correct and every wrong answer)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CATALOGUED
from tests.grading_course import gradebook_scores, make_course, submit
from tests.nbgrader_class import student_ids


def grade_ours(root: Path, assignment: str) -> dict[str, dict[str, float]]:
    course = make_course(root, assignment=assignment)
    for student, answers in student_ids(assignment).items():
        submit(course, student, answers, assignment=assignment, blank=student == "blank", selfcheck=True)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([str(Path(sys.executable).parent / "autograder"), "grade", assignment], cwd=course,
                          env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    return gradebook_scores(f"sqlite:///{course}/gradebook.db", assignment)


@pytest.mark.slow
@pytest.mark.parametrize("assignment", CATALOGUED)
def test_same_scores_as_nbgrader_autograde(assignment, graded_classes, tmp_path):
    reference = graded_classes[assignment].scores
    ours = grade_ours(tmp_path / "course", assignment)
    assert set(ours) == set(reference)
    differ = {s: (ours[s], reference[s]) for s in reference if ours[s] != reference[s]}
    assert not differ
    # The catalogue is not trivial: some answers lose points, some keep them all.
    totals = {sum(cells.values()) for cells in reference.values()}
    assert len(totals) > 2
