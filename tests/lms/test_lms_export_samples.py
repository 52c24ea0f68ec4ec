"""The worked examples of docs/instructors/lms-export.md are the real output of `autograder export` (and of
`autograder push --dry-run`) on the current course: its assignments' grade cells as its source notebooks declare them
(the written answer graded by hand included), so the page cannot show a course that no longer exists (it once said
"/46" when the course was out of 48).

The class is tests/lms/conftest.py's (Ada on time, Bob a day and 3 hours late under a 10%-per-day plugin, Cyd
nothing, Dee a zero), its written answers in the three states a grade can hold them: Ada's graded by hand (2 of 2),
Bob's still to be graded, Dee's left as released (0, as nbgrader scores "no response").

When the course changes, this test fails and prints what the page should show
(`python -m tests.lms.test_lms_export_samples` prints every sample)."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import sys
import warnings
from datetime import timedelta
from pathlib import Path

import pytest
from nbgrader.api import Gradebook
from sqlalchemy.exc import SAWarning

from autograder.course.nbgrader_cli import tools_on_path
from autograder.devtools.repo import ROOT
from tests.lms.conftest import DUE, HSA, ROSTER, RUE, STUDENTS, assign_late_penalty, run_cli, write_config
from tests.lms.conftest import SETTINGS as CONFTEST_SETTINGS

PAGE = ROOT / "docs" / "instructors" / "lms-export.md"
# A course id of its own: the exercise order is registered per course id in the process (grades.exercise_order),
# and conftest's courses, without source notebooks, list theirs by name.
COURSE_ID = "lms-samples"
FORMATS = {"Canvas": "canvas", "Moodle": "moodle", "Blackboard Learn": "blackboard", "Brightspace": "brightspace",
           "csv": "csv"}
# conftest's settings, with a Canvas a reader recognises as an example.
SETTINGS = CONFTEST_SETTINGS.replace('url = "http://127.0.0.1:9"\ncourse_id = 77',
                                     'url = "https://canvas.example.edu"\ncourse_id = 12345')
# The autograded points of each submission (conftest's, on the course's cells): (the cells not named score their
# points, or 0; the cells named), and each written answer's state: a number is a score given by hand, None still
# to be graded, "blank" left as released.
AUTO = {
    (HSA, "ada"): (0, {"test_concat_weights": 6, "test_concat_state_input": 6, "test_formula_1": 6,
                       "test_formula_2": 3, "test_sigmoid": 7, "test_hidden_state": 12.5}),
    (HSA, "bob"): (0, {"test_concat_weights": 6, "test_concat_state_input": 0, "test_formula_1": 6,
                       "test_formula_2": 6, "test_sigmoid": 3.5, "test_hidden_state": 15}),
    (HSA, "dee"): (0, {}),
    (RUE, "ada"): ("full", {}),
    (RUE, "dee"): ("full", {"test_sequence_loss": 5}),
}
WRITTEN = {"ada": 2.0, "bob": None, "dee": "blank"}
ARRIVED = {(HSA, "ada"): DUE - timedelta(hours=2), (HSA, "bob"): DUE + timedelta(days=1, hours=3),
           (HSA, "dee"): DUE - timedelta(minutes=1), (RUE, "ada"): DUE + timedelta(days=6),
           (RUE, "dee"): DUE + timedelta(days=7, hours=1)}


def grade_cells(assignment: str) -> list[tuple[str, float, str, bool]]:
    """The assignment's grade cells as its source notebook declares them: (id, points, cell type, an answer cell)."""
    notebook = json.loads((ROOT / "source" / assignment / f"{assignment}.ipynb").read_text())
    found = []
    for cell in notebook["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade"):
            found.append((meta["grade_id"], float(meta["points"]), cell["cell_type"], bool(meta.get("solution"))))
    return found


def build_course(root: Path) -> Path:
    """The course folder: config, lms.toml, roster imported, and the gradebook of the class above."""
    from autograder.lms.roster_import import import_roster

    root.mkdir(parents=True, exist_ok=True)
    write_config(root)
    config = root / "nbgrader_config.py"
    config.write_text(config.read_text().replace("'rnn-test'", f"'{COURSE_ID}'"))
    for assignment in (HSA, RUE):  # the exercises' order in every listing is the source notebook's
        (root / "source" / assignment).mkdir(parents=True)
        shutil.copy(ROOT / "source" / assignment / f"{assignment}.ipynb", root / "source" / assignment)
    (root / "lms.toml").write_text(SETTINGS)
    (root / "roster.csv").write_text(ROSTER)
    db_url = f"sqlite:///{root / 'gradebook.db'}"
    tools_on_path()
    with Gradebook(db_url, course_id=COURSE_ID) as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)  # nbgrader's own add_submission's autoflush warnings
        for assignment, due in ((HSA, DUE), (RUE, DUE + timedelta(days=7))):
            gb.add_assignment(assignment, duedate=due)
            gb.add_notebook(assignment, assignment)
            for cell, points, cell_type, answer in grade_cells(assignment):
                gb.add_grade_cell(cell, assignment, assignment, max_score=points, cell_type=cell_type)
                if answer:
                    gb.add_solution_cell(cell, assignment, assignment)
        for sid, (first, last, email) in STUDENTS.items():
            gb.add_student(sid, first_name=first, last_name=last, email=email)
        for (assignment, student), (rest, scores) in AUTO.items():
            gb.add_submission(assignment, student, timestamp=ARRIVED[(assignment, student)])
            for cell, points, cell_type, _ in grade_cells(assignment):
                grade = gb.find_grade(cell, assignment, assignment, student)
                if cell_type == "code":
                    grade.auto_score = scores.get(cell, points if rest == "full" else rest)
                    grade.needs_manual_grade = False
                elif WRITTEN[student] == "blank":  # nbgrader's autograde: an answer left as released scores 0
                    grade.auto_score, grade.needs_manual_grade = 0.0, False
                else:  # an answer written: waiting for a person, or graded by one
                    grade.auto_score, grade.manual_score = None, WRITTEN[student]
                    grade.needs_manual_grade = WRITTEN[student] is None
            gb.db.commit()
        import_roster(gb, root / "roster.csv", "plain")
    for assignment, student in AUTO:
        assign_late_penalty(db_url, assignment, assignment, student)
    return root


def samples(course: Path) -> dict[str, str]:
    """Each format's export, and the dry-run push, as the commands write and print them."""
    found = {}
    with contextlib.chdir(course):
        for fmt in FORMATS.values():
            assert run_cli("export", HSA, RUE, "--to", fmt) == 0
            found[fmt] = (course / "exports" / f"{fmt}.csv").read_text(encoding="utf-8").replace("\r\n", "\n")
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            assert run_cli("push", HSA, "--to", "canvas", "--dry-run") == 0
        found["push"] = printed.getvalue()
    return found


def page_samples() -> dict[str, str]:
    """What the page shows: the plain fence after each format's bold name, and the dry run's example block."""
    text = PAGE.read_text()
    found = {}
    for name, fmt in FORMATS.items():
        match = re.search(rf"^\*\*{re.escape(name)}\*\*.*?^```\n(.*?)^```$", text, re.M | re.S)
        assert match, f"{PAGE.name}: no sample under **{name}**"
        found[fmt] = match[1]
    push = re.search(r"^\$ autograder push hidden_state_activation --to canvas --dry-run\n(.*?)^```$", text,
                     re.M | re.S)
    assert push, f"{PAGE.name}: no dry-run example"
    found["push"] = push[1]
    return found


def elided(shown: str) -> re.Pattern:
    """The page's dry run, where `...` within a line stands for any text (the long comments are cut there)."""
    return re.compile("\n".join(".*?".join(re.escape(piece) for piece in line.rstrip().split("..."))
                                for line in shown.rstrip("\n").splitlines()))


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict[str, str]:
    return samples(build_course(tmp_path_factory.mktemp("samples") / "course"))


def test_the_course_has_a_written_answer_the_samples_must_show():
    cells = grade_cells(HSA)
    assert any(cell_type == "markdown" for _, _, cell_type, _ in cells), "the written answer left the course?"


@pytest.mark.parametrize("fmt", [*FORMATS.values(), "push"])
def test_the_page_shows_the_real_export_of_the_current_course(exported, fmt):
    shown = page_samples()[fmt]
    real = exported[fmt]
    if fmt == "push":
        assert elided(shown).fullmatch(real.rstrip("\n")), f"{PAGE.name}: the dry run prints now:\n{real}"
    else:
        # The page may stop a long export early: what it shows is the export's first lines, `...` cutting a line.
        lines = shown.splitlines()
        assert all(elided(line).fullmatch(got) for line, got in zip(lines, real.splitlines(), strict=False)) \
            and len(lines) <= len(real.splitlines()), f"{PAGE.name}: the {fmt} export is now:\n{real}"
    total = sum(points for _, points, _, _ in grade_cells(HSA))
    assert f"{total:g}" in shown


if __name__ == "__main__":  # prints every sample, to paste into the page when the course changes
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        for name, text in samples(build_course(Path(scratch) / "course")).items():
            sys.stdout.write(f"--- {name}\n{text}")
        shutil.rmtree(scratch, ignore_errors=True)
