"""`make demo`'s pipeline end to end on a small class, in a scratch folder."""

import csv
import subprocess
import sys

from nbgrader.api import Gradebook

from autograder.devtools.repo import ROOT
from tests.conftest import CATALOGUED


def test_demo_grades_a_class_and_prints_the_table(tmp_path):
    course = tmp_path / "demo"
    done = subprocess.run([sys.executable, "-m", "autograder.devtools.demo", "--students", "10",
                           "--course", str(course)],
                          cwd=ROOT, capture_output=True, text=True, env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin",
                                                                          "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr[-3000:]
    for assignment in CATALOGUED:
        assert f"{assignment}: scores per exercise" in done.stdout
        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
            submissions = gradebook.assignment_submissions(assignment)
            assert len(submissions) == 10
            scores = {s.student_id: s.score for s in submissions}
        # Every student's gradebook total ends one of their rows in the tables.
        rows = [line.split() for line in done.stdout.splitlines() if line.startswith("s0")]
        for student, score in scores.items():
            assert any(r[0] == student and float(r[-1]) == round(score, 2) for r in rows), student
        assert len({round(score, 6) for score in scores.values()}) > 1, "a class mixes right and wrong answers"
        # The class came in through Canvas: its archive, imported by `autograder collect`, is where
        # submitted/ comes from, and the reconciliation lists every student as imported.
        assert (course / "lms_downloads" / f"{assignment}_submissions.zip").is_file()
        reconciled = list(csv.DictReader((course / "exports" / f"collect_{assignment}.csv").open()))
        assert sorted(row["student"] for row in reconciled if row["status"] == "imported") == sorted(scores)
        report = (course / "reports" / f"{assignment}.html").read_text()
        assert "data:image/png;base64," in report
        assert len(list((course / "feedback").glob(f"*/{assignment}/{assignment}.html"))) == 10
    canvas = list(csv.reader((course / "exports" / "canvas.csv").open()))
    assert canvas[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert len(canvas) == 2 + 10
    assert "Dry run" in done.stdout
