"""Every export format: golden files, and each field checked against the LMS's documented import rules.

The scores are checked against nbgrader's own CSV exporter run on the same gradebook, so late
penalties are the ones nbgrader computes; non-submitters must be blank where the LMS tells blank from 0.
"""

from __future__ import annotations

import csv
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from nbgrader.plugins import CsvExportPlugin

from tests.databases import DATABASES
from tests.lms.conftest import HSA, HSA_CELLS, RUE, RUE_CELLS, Course, on_database, run_cli, subprocess_env

GOLDEN = Path(__file__).parent / "golden"
BOTH = [HSA, RUE]
MAX = {HSA: sum(HSA_CELLS.values()), RUE: sum(RUE_CELLS.values())}
LMS_ID = {"ada": "1001", "bob": "1002", "cyd": "1003", "dee": "1004"}


@pytest.fixture(params=DATABASES)
def course(request, course: Course) -> Course:
    """conftest's course, its gradebook in SQLite and then on a PostgreSQL server: every test runs on both."""
    return on_database(request, course, request.param)


def nbgrader_scores(course: Course) -> dict[tuple[str, str], dict[str, str]]:
    """(assignment, student) -> row of `nbgrader export`'s own CSV for the same gradebook."""
    out = course.root / "nbgrader.csv"
    with course.gradebook() as gb:
        CsvExportPlugin(to=str(out)).export(gb)
    return {(r["assignment"], r["student_id"]): r for r in csv.DictReader(out.open())}


def export(course: Course, fmt: str, *extra: str) -> tuple[str, list[list[str]]]:
    assert run_cli("export", *BOTH, "--to", fmt, *extra) == 0
    raw = (course.root / "exports" / f"{fmt}.csv").read_bytes()
    text = raw.decode("utf-8")
    return text, list(csv.reader(io.StringIO(text, newline="")))


def check_common(text: str, rows: list[list[str]]) -> None:
    assert not text.startswith("\ufeff"), "no BOM: it would become part of the first header"
    assert text.endswith("\r\n") and text.count("\r\n") == len(rows), "RFC 4180 CRLF line ends"
    assert {len(r) for r in rows} == {len(rows[0])}, "every row as long as the header"


def expected_score(oracle, assignment: str, student: str) -> str:
    """nbgrader's score for a submitter, blank for a non-submitter (nbgrader writes 0 and no timestamp)."""
    row = oracle[(assignment, student)]
    if not row["timestamp"]:
        return ""
    return f"{float(row['score']):.2f}".rstrip("0").rstrip(".")


def test_scores_apply_nbgrader_late_penalties(in_course: Course) -> None:
    oracle = nbgrader_scores(in_course)
    # bob was 1 day 3 hours late: TenPercentPerDay takes 20% of 36.5, as nbgrader stored it.
    assert float(oracle[(HSA, "bob")]["late_submission_penalty"]) == pytest.approx(7.3)
    assert expected_score(oracle, HSA, "bob") == "29.2"
    assert expected_score(oracle, HSA, "cyd") == ""
    assert oracle[(HSA, "cyd")]["score"] == "0.0"  # what nbgrader's CSV says for a non-submitter


@pytest.mark.parametrize("fmt", ["canvas", "moodle", "blackboard", "brightspace", "csv"])
def test_matches_golden_file(in_course: Course, fmt: str) -> None:
    text, _ = export(in_course, fmt)
    assert text == (GOLDEN / f"{fmt}.csv").read_text(encoding="utf-8").replace("\n", "\r\n")


def test_canvas_rules(in_course: Course) -> None:
    oracle = nbgrader_scores(in_course)
    text, rows = export(in_course, "canvas")
    check_common(text, rows)
    header, points, students = rows[0], rows[1], rows[2:]
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    ids = [re.fullmatch(r"(.+) \((\d+)\)", h).groups() for h in header[5:]]
    assert ids == [(HSA, "501"), (RUE, "502")]
    assert points[0] == "    Points Possible" and points[1:5] == ["", "", "", ""]
    assert points[5:] == ["46", "20"]
    by_id = {r[1]: r for r in students}
    assert set(by_id) == set(LMS_ID.values())
    for student, canvas_id in LMS_ID.items():
        row = by_id[canvas_id]
        assert row[5] == expected_score(oracle, HSA, student)
        assert row[6] == expected_score(oracle, RUE, student)
    assert by_id["1003"][5:] == ["", ""], "non-submitter blank, not 0"
    assert by_id["1004"][5] == "0", "a submitted zero stays 0"
    assert by_id["1001"][0] == "Lovelace, Ada" and by_id["1001"][2:5] == ["S-0001", "ada", "Section A"]


def test_moodle_rules(in_course: Course) -> None:
    oracle = nbgrader_scores(in_course)
    text, rows = export(in_course, "moodle")
    check_common(text, rows)
    header = rows[0]
    assert header[0] == "Email address"
    assert header[3:] == [HSA, f"{HSA} (Feedback)", RUE, f"{RUE} (Feedback)"]
    emails = [r[0] for r in rows[1:]]
    assert len(set(emails)) == len(emails) == 4, "the identifier column identifies each row once"
    for row in rows[1:]:
        student = row[0].split("@")[0]
        assert row[3] == expected_score(oracle, HSA, student)
        assert row[5] == expected_score(oracle, RUE, student)
        assert (row[4] == "") == (row[3] == ""), "feedback exactly where there is a grade"
    bob = next(r for r in rows if r[0].startswith("bob"))
    assert "late penalty -7.3" in bob[4] and "sigmoid 3.5/7" in bob[4] and bob[4].endswith("total 29.2/46")


def test_blackboard_rules(in_course: Course) -> None:
    oracle = nbgrader_scores(in_course)
    text, rows = export(in_course, "blackboard")
    check_common(text, rows)
    header = rows[0]
    assert "Username" in header
    columns = [re.fullmatch(r"(.+) \[Total Pts: ([\d.]+) Score\] \|(\d+)", h) for h in header[4:]]
    assert [c.groups() for c in columns] == [(HSA, "46", "123456"), (RUE, "20", "123457")]
    user = header.index("Username")
    for row in rows[1:]:
        assert row[4] == expected_score(oracle, HSA, row[user])
        assert row[5] == expected_score(oracle, RUE, row[user])


def test_brightspace_rules(in_course: Course) -> None:
    oracle = nbgrader_scores(in_course)
    text, rows = export(in_course, "brightspace")
    check_common(text, rows)
    header = rows[0]
    assert header[:2] == ["OrgDefinedId", "Username"], "OrgDefinedId first, then Username"
    assert header[-1] == "End-of-Line Indicator"
    items = [re.fullmatch(r"(.+) Points Grade <Numeric MaxPoints:([\d.]+)>", h).groups() for h in header[2:-1]]
    assert items == [("Hidden State Activation", "46"), (RUE, "20")]
    for row in rows[1:]:
        assert row[-1] == "#"
        assert row[0].startswith("#") and row[1].startswith("#")
        student = row[1][1:]
        assert row[2] == expected_score(oracle, HSA, student)
        assert row[3] == expected_score(oracle, RUE, student)
    dee = next(r for r in rows if r[1] == "#dee")
    assert dee[0] == "#00042", "leading zeros kept behind the #"


def test_breakdown_rules(in_course: Course) -> None:
    oracle = nbgrader_scores(in_course)
    text, rows = export(in_course, "csv")
    check_common(text, rows)
    table = list(csv.DictReader(io.StringIO(text, newline="")))
    assert len(table) == 8  # 4 students x 2 assignments, non-submitters included
    for row in table:
        nb = oracle[(row["assignment"], row["student_id"])]
        if row["status"] == "missing":
            assert not nb["timestamp"]
            assert row["raw_score"] == row["score"] == row["late_penalty"] == ""
            continue
        parts = [float(v) for k, v in row.items() if k.startswith(row["assignment"] + "/")]
        assert sum(parts) == pytest.approx(float(row["raw_score"]))
        assert float(row["raw_score"]) == pytest.approx(float(nb["raw_score"]))
        assert float(row["late_penalty"]) == pytest.approx(float(nb["late_submission_penalty"]))
        assert float(row["score"]) == pytest.approx(float(nb["score"]))
        assert (row["status"] == "late") == (float(row["seconds_late"]) > 0)
        others = [v for k, v in row.items() if "/" in k and not k.startswith(row["assignment"] + "/")]
        assert others == [""] * len(others)


def test_missing_identity_is_an_error_and_writes_nothing(in_course: Course, capsys) -> None:
    (in_course.root / "roster2.csv").write_text("id,first_name,last_name,email,lms_user_id\neve,Eve,Ito,,\n")
    assert run_cli("roster", "import", "roster2.csv") == 0
    capsys.readouterr()
    target = in_course.root / "exports" / "canvas.csv"
    assert run_cli("export", HSA, "--to", "canvas") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "eve" in err and "Canvas user ID" in err and "--skip-missing" in err
    assert not target.exists()
    assert run_cli("export", HSA, "--to", "canvas", "--skip-missing") == 0
    out = capsys.readouterr().out
    assert "Skipped 1 student(s)" in out and "eve" in out
    assert "Ito" not in target.read_text() and "Lovelace" in target.read_text()


def test_failed_export_keeps_the_previous_file(in_course: Course, capsys) -> None:
    export(in_course, "canvas")
    target = in_course.root / "exports" / "canvas.csv"
    before = target.read_bytes()
    settings = in_course.root / "lms.toml"
    settings.write_text(settings.read_text().replace("rnn_update_equations = 502\n", ""))
    assert run_cli("export", *BOTH, "--to", "canvas") == 1
    err = capsys.readouterr().err
    assert "lms.toml" in err and "[canvas.assignments]" in err and "rnn_update_equations" in err
    assert target.read_bytes() == before
    assert [p.name for p in target.parent.iterdir()] == ["canvas.csv"], "no temporary file left behind"


@pytest.mark.parametrize("argv, expected", [
    (["export", "nope", "--to", "csv"], "not in the gradebook: nope"),
    (["export", HSA, "--to", "csv", "--output", "."], "is a folder"),
])
def test_bad_arguments_one_line(in_course: Course, capsys, argv, expected) -> None:
    assert run_cli(*argv) == 1
    err = capsys.readouterr().err
    assert expected in err and err.count("\n") == 1 and "Traceback" not in err


def test_bad_settings_file_one_line(in_course: Course, capsys) -> None:
    settings = in_course.root / "lms.toml"
    settings.write_text("[canvas\nurl = 1\n")
    assert run_cli("export", HSA, "--to", "canvas") == 1
    err = capsys.readouterr().err
    assert str(settings) in err and "not valid TOML" in err and err.count("\n") == 1


def test_outside_a_course(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert run_cli("export", HSA, "--to", "csv") == 1
    assert "no nbgrader_config.py" in capsys.readouterr().err


@pytest.mark.parametrize("course", ["sqlite"], indirect=True)
def test_gradebook_url_read_from_nbgrader_config(course: Course, monkeypatch, tmp_path: Path) -> None:
    """A course whose config moves the gradebook (here, to another file) is read where nbgrader would write it."""
    moved = tmp_path / "elsewhere" / "grades.sqlite"
    moved.parent.mkdir()
    (course.root / "gradebook.db").rename(moved)
    config = course.root / "nbgrader_config.py"
    config.write_text(config.read_text() + f"c.CourseDirectory.db_url = 'sqlite:///{moved}'\n")
    monkeypatch.chdir(course.root)
    assert run_cli("export", HSA, "--to", "csv", "--output", "out.csv") == 0
    assert "Lovelace" in (course.root / "out.csv").read_text()


def test_real_nbgrader_export_command(course: Course) -> None:
    """`nbgrader export --exporter=autograder.lms.canvas.CanvasExport` through nbgrader's own command."""
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", "export", "--exporter=autograder.lms.canvas.CanvasExport",
         "--to=via-nbgrader.csv", f"--assignment={HSA}", f"--assignment={RUE}"],
        cwd=course.root, env=subprocess_env(), capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert run_cli_in(course.root, "export", *BOTH, "--to", "canvas", "--output", "via-cli.csv") == 0
    assert (course.root / "via-nbgrader.csv").read_bytes() == (course.root / "via-cli.csv").read_bytes()

    # A user's mistake through nbgrader: one error line, no traceback, no file.
    (course.root / "lms.toml").write_text("")
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", "export", "--exporter=autograder.lms.canvas.CanvasExport",
         "--to=broken.csv", f"--assignment={HSA}"],
        cwd=course.root, env=subprocess_env(), capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 1
    assert "no [canvas.assignments] entry" in done.stderr and "Traceback" not in done.stderr
    assert not (course.root / "broken.csv").exists()


def run_cli_in(folder: Path, *argv: str) -> int:
    import os

    here = Path.cwd()
    os.chdir(folder)
    try:
        return run_cli(*argv)
    finally:
        os.chdir(here)


@pytest.mark.parametrize("module, cls", [("canvas", "CanvasExport"), ("moodle", "MoodleExport"),
                                         ("blackboard", "BlackboardExport"), ("brightspace", "BrightspaceExport"),
                                         ("breakdown", "BreakdownExport")])
def test_plugins_write_what_the_cli_writes(in_course: Course, module: str, cls: str) -> None:
    """Each plugin, run as nbgrader's ExportApp runs it (in process), gives the CLI's file byte for byte."""
    import importlib

    plugin_class = getattr(importlib.import_module(f"autograder.lms.{module}"), cls)
    fmt = plugin_class.format_name
    plugin = plugin_class(to=str(in_course.root / "plugin.csv"), assignment=BOTH)
    with in_course.gradebook() as gb:
        plugin.export(gb)
    export(in_course, fmt)
    assert (in_course.root / "plugin.csv").read_bytes() == (in_course.root / "exports" / f"{fmt}.csv").read_bytes()
