"""`autograder scores ASSIGNMENT [--csv]`: the gradebook's scores, students by exercises with totals, in the
terminal or as CSV on stdout; one line and status 1 when there is nothing to show."""

import csv
import io

from autograder.display.terminal import visible
from tests.lms.conftest import HSA, HSA_CELLS, RUE, run_cli, write_config
from tests.lms.notebook_order import RUE_ORDER, with_rue_notebook

EXERCISES = sorted(cell.removeprefix("test_") for cell in HSA_CELLS)  # no source notebook here: by name
FORMULA = "=HYPERLINK(\"http://x\",\"y\")\x1b[2J"


def test_the_table_shows_every_student_exercise_and_total(in_course, capsys):
    assert run_cli("scores", HSA) == 0
    out = capsys.readouterr().out
    assert f"{HSA}: scores" in out and "/ 46" in out and all(name in out for name in EXERCISES)
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.split()[:1] in
            (["ada"], ["bob"], ["cyd"], ["dee"])}
    assert rows["ada"][-1] == "40.5" and rows["bob"][-1] == "36.5" and rows["dee"][-1] == "0.0"
    assert rows["cyd"] == ["—"] * (len(EXERCISES) + 1)  # submitted nothing: no score, not 0
    assert "totals before late penalties; 1 student(s) have one: bob" in out


def test_csv_goes_to_stdout_with_formulas_neutralised(in_course, capsys):
    with in_course.gradebook() as gb:
        gb.add_student(FORMULA)
    assert run_cli("scores", HSA, "--csv") == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    rows = list(csv.reader(io.StringIO(captured.out)))
    assert rows[0] == ["student", *EXERCISES, "total"]
    by_student = {row[0]: row[1:] for row in rows[1:]}
    assert by_student["ada"] == ["6", "6", "6", "3", "12.5", "7", "40.5"]
    assert by_student["cyd"] == [""] * (len(EXERCISES) + 1)
    # A spreadsheet shows it as text, with its control characters written out as the terminal shows them.
    assert by_student["'" + visible(FORMULA)] == [""] * (len(EXERCISES) + 1)


def test_an_unknown_assignment_or_no_gradebook_is_one_line(in_course, capsys, tmp_path, monkeypatch):
    assert run_cli("scores", "nope") == 1
    err = capsys.readouterr().err
    assert err == visible(f"autograder scores: assignment(s) not in the gradebook: nope (known: {HSA}, "
                          "rnn_update_equations)") + "\n"

    empty = tmp_path / "empty"
    empty.mkdir()
    write_config(empty)
    monkeypatch.chdir(empty)
    assert run_cli("scores", HSA) == 1
    err = capsys.readouterr().err
    assert err.startswith("autograder scores: ") and "no gradebook yet" in err and err.count("\n") == 1
    assert not (empty / "gradebook.db").exists()  # looking made none


def test_the_columns_follow_the_source_notebook_not_the_names(in_course, capsys):
    """As the student's feedback page lists them: the order of source/<assignment>/<notebook>.ipynb."""
    with_rue_notebook(in_course)
    assert run_cli("scores", RUE, "--csv") == 0
    header = next(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert header == ["student", *(cell.removeprefix("test_") for cell in RUE_ORDER), "total"]
    assert run_cli("scores", RUE) == 0
    table = capsys.readouterr().out
    assert [table.index(f" {cell.removeprefix('test_')} ") for cell in RUE_ORDER] == sorted(
        table.index(f" {cell.removeprefix('test_')} ") for cell in RUE_ORDER)
