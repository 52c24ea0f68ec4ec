"""`autograder collect` with archives in each LMS's layout (tests/lms/lms_archives.py says where each is
documented), against the test course's roster: ada 1001, bob 1002, cyd 1003, dee 1004 (Canvas ids; the
Blackboard usernames are the logins ada, bob, ...; names Ada Lovelace, Bob Babbage, Cyd Charisse, Dee Dirac)."""

from __future__ import annotations

import csv
import io
import os
from datetime import UTC, datetime
from pathlib import Path

from autograder.course.submitted import read_timestamp
from tests.lms import lms_archives as lms
from tests.lms.conftest import HSA, Course, run_cli

NB = f"{HSA}.ipynb"


def submitted(course: Course, student: str) -> Path:
    return course.root / "submitted" / student / HSA


def reconciliation(course: Course) -> list[dict[str, str]]:
    text = (course.root / "exports" / f"collect_{HSA}.csv").read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def statuses(course: Course) -> dict[tuple[str, str], str]:
    return {(r["student"], r["file in the archive"]): r["status"] for r in reconciliation(course)}


def tree(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `root`: its bytes and modification time, to show a run changed nothing."""
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file() and "exports" not in p.parts}


def canvas_class(path: Path, bob_again: bytes | None = None) -> Path:
    uploads = [
        ("lovelaceada", "1001", 5001, NB, lms.notebook("ada")),
        ("babbagebob", "1002", 5002, NB, lms.notebook("bob first")),
        ("babbagebob", "1002", 5003, f"{HSA}-1.ipynb", lms.notebook("bob second")),
        ("diracdee", "1004", 5004, "my work.ipynb", lms.notebook("dee")),
        ("diracdee", "1004", 5005, "notes.pdf", b"%PDF-1.4"),
        ("strangerzed", "9999", 5006, NB, lms.notebook("zed")),
    ]
    if bob_again is not None:
        uploads.append(("babbagebob", "1002", 5007, f"{HSA}-2.ipynb", bob_again))
    return lms.canvas(path, uploads, late={"1002"})


def test_canvas_archive_lands_in_submitted_and_every_file_is_accounted_for(in_course: Course, capsys) -> None:
    archive = canvas_class(in_course.root.parent / "canvas.zip")
    assert run_cli("collect", HSA, str(archive), "--from", "canvas") == 0
    assert (submitted(in_course, "ada") / NB).read_bytes() == lms.notebook("ada")
    assert (submitted(in_course, "bob") / NB).read_bytes() == lms.notebook("bob second"), "the newer upload wins"
    assert (submitted(in_course, "dee") / NB).read_bytes() == lms.notebook("dee"), "the only notebook, renamed"
    assert not (submitted(in_course, "ada") / "timestamp.txt").exists(), "Canvas gives no time: none is made up"
    assert not (in_course.root / "submitted" / "cyd").exists()
    rows = statuses(in_course)
    assert rows[("ada", f"lovelaceada_1001_5001_{NB}")] == "imported"
    assert rows[("bob", f"babbagebob_LATE_1002_5003_{HSA}-1.ipynb")] == "imported"
    assert rows[("bob", f"babbagebob_LATE_1002_5002_{NB}")] == "not taken"
    assert rows[("dee", "diracdee_1004_5004_my work.ipynb")] == "imported"
    assert rows[("dee", "diracdee_1004_5005_notes.pdf")] == "not a notebook"
    assert rows[("", f"strangerzed_9999_5006_{NB}")] == "unknown student"
    assert rows[("cyd", "")] == "no submission"
    assert len(rows) == 7, "one row per file of the archive, and one per roster student with nothing"
    notes = {r["student"] + r["status"]: r["note"] for r in reconciliation(in_course)}
    assert "LATE" in notes["bobimported"] and "newest of 2 copies" in notes["bobimported"]
    assert "the only notebook, named 'my work.ipynb'" in notes["deeimported"]
    kept = in_course.root / "lms_attempts" / HSA / "bob" / "current" / NB
    assert kept.read_bytes() == lms.notebook("bob first"), "the older copy is kept aside, not deleted"
    out = capsys.readouterr().out
    assert "unknown student" in out and "3 imported" in out and "1 no submission" in out


def test_same_archive_again_changes_nothing_and_a_newer_one_only_who_resubmitted(in_course: Course, capsys) -> None:
    first = canvas_class(in_course.root.parent / "canvas.zip")
    assert run_cli("collect", HSA, str(first), "--from", "canvas") == 0
    before = tree(in_course.root)
    assert run_cli("collect", HSA, str(first), "--from", "canvas") == 0
    assert tree(in_course.root) == before, "not a byte nor a modification time changed"
    assert {r["status"] for r in reconciliation(in_course) if r["student"] in ("ada", "bob", "dee")} >= {"unchanged"}
    assert "imported" not in {r["status"] for r in reconciliation(in_course)}

    capsys.readouterr()
    newer = canvas_class(in_course.root.parent / "canvas2.zip", bob_again=lms.notebook("bob third"))
    assert run_cli("collect", HSA, str(newer), "--from", "canvas") == 0
    after = tree(in_course.root)
    changed = {path for path in after if before.get(path) != after[path]}
    assert (submitted(in_course, "bob") / NB).read_bytes() == lms.notebook("bob third")
    assert all("/bob/" in f"/{path}" for path in changed), changed
    replaced = list((in_course.root / "lms_attempts" / HSA / "bob").glob(f"replaced-*/{NB}"))
    assert [p.read_bytes() for p in replaced] == [lms.notebook("bob second")], "the replaced notebook is kept"
    assert statuses(in_course)[("bob", f"babbagebob_LATE_1002_5007_{HSA}-2.ipynb")] == "updated"
    assert "--force --student bob" in capsys.readouterr().out, "no time says it is newer: the regrade is spelled out"


def test_moodle_folders_matched_by_name(in_course: Course) -> None:
    archive = lms.moodle(in_course.root.parent / "moodle.zip", [
        ("Ada Lovelace", 5550001, NB, lms.notebook("ada")),
        ("Bob Babbage", 5550002, "sub/" + NB, lms.notebook("bob in a folder")),
        ("Cyd Charisse", 5550003, "answers.txt", b"text"),
        ("Zed Stranger", 5550009, NB, lms.notebook("zed")),
    ])
    assert run_cli("collect", HSA, str(archive), "--from", "moodle") == 0
    assert (submitted(in_course, "ada") / NB).read_bytes() == lms.notebook("ada")
    assert (submitted(in_course, "bob") / NB).read_bytes() == lms.notebook("bob in a folder")
    rows = statuses(in_course)
    assert rows[("cyd", "Cyd Charisse_5550003_assignsubmission_file_/answers.txt")] == "not a notebook"
    assert rows[("cyd", "")] == "no submission"
    assert rows[("", f"Zed Stranger_5550009_assignsubmission_file_/{NB}")] == "unknown student"
    assert rows[("dee", "")] == "no submission"
    assert not (submitted(in_course, "ada") / "timestamp.txt").exists()


def test_blackboard_latest_attempt_wins_with_its_time(in_course: Course) -> None:
    archive = lms.blackboard(in_course.root.parent / "bb.zip", "HW1", [
        ("Ada Lovelace", "ada", "2025-03-01-10-00-00", "Saturday, March 1, 2025 10:00:00 AM EST",
         [(NB, lms.notebook("ada 1"))]),
        ("Ada Lovelace", "ada", "2025-03-02-09-30-15", "Sunday, March 2, 2025 9:30:15 AM EST",
         [(NB, lms.notebook("ada 2"))]),
        ("Bob Babbage", "bob", "2025-03-01-16-59-00", "Saturday, March 1, 2025 4:59:00 PM EST",
         [("draft.ipynb", lms.notebook("bob draft")), (NB, lms.notebook("bob"))]),
    ])
    assert run_cli("collect", HSA, str(archive), "--from", "blackboard", "--timezone", "America/New_York") == 0
    assert (submitted(in_course, "ada") / NB).read_bytes() == lms.notebook("ada 2")
    # 09:30:15 in New York (EST, UTC-5) is 14:30:15 UTC, written as nbgrader collect writes it and read back
    # by nbgrader's parse_utc (read_timestamp).
    assert (submitted(in_course, "ada") / "timestamp.txt").read_text() == "2025-03-02 14:30:15.000000 UTC"
    assert read_timestamp(submitted(in_course, "ada")).time == datetime(2025, 3, 2, 14, 30, 15)
    assert read_timestamp(submitted(in_course, "bob")).time == datetime(2025, 3, 1, 21, 59)
    rows = statuses(in_course)
    assert rows[("ada", f"HW1_ada_attempt_2025-03-01-10-00-00_{NB}")] == "older attempt"
    assert rows[("bob", "HW1_bob_attempt_2025-03-01-16-59-00_draft.ipynb")] == "not taken"
    older = in_course.root / "lms_attempts" / HSA / "ada" / "attempt-2025-03-01-10-00-00" / NB
    assert older.read_bytes() == lms.notebook("ada 1")


def test_blackboard_username_with_underscore_comes_from_the_receipt(in_course: Course) -> None:
    with in_course.gradebook() as gb:  # a login with `_`, which the file name alone cannot delimit
        from autograder.lms.identity import Person, save_people

        save_people(gb, [Person(id="cyd", login_id="cyd_c")])
    archive = lms.blackboard(in_course.root.parent / "bb.zip", "Lab_2", [
        ("Cyd Charisse", "cyd_c", "2025-03-01-10-00-00", "x", [(NB, lms.notebook("cyd"))])])
    assert run_cli("collect", HSA, str(archive), "--from", "blackboard", "--timezone", "UTC") == 0
    assert (submitted(in_course, "cyd") / NB).read_bytes() == lms.notebook("cyd")


def test_brightspace_folders_attempts_and_zone(in_course: Course) -> None:
    archive = lms.brightspace(in_course.root.parent / "d2l.zip", [
        ("81234-150001", "Bob Babbage", "Mar 1, 2025 459 PM", [(NB, lms.notebook("bob 1"))]),
        ("81240-150001", "Bob Babbage", "Mar 2, 2025 1005 AM", [(NB, lms.notebook("bob 2"))]),
        ("81241-150002", "Dee Dirac", "Feb 28, 2025 1159 PM", [(NB, lms.notebook("dee"))]),
    ])
    assert run_cli("collect", HSA, str(archive), "--from", "brightspace", "--timezone", "Europe/Paris") == 0
    assert (submitted(in_course, "bob") / NB).read_bytes() == lms.notebook("bob 2")
    assert read_timestamp(submitted(in_course, "bob")).time == datetime(2025, 3, 2, 9, 5)  # 10:05 in Paris (UTC+1)
    assert read_timestamp(submitted(in_course, "dee")).time == datetime(2025, 2, 28, 22, 59)
    rows = statuses(in_course)
    assert rows[("bob", f"81234-150001 - Bob Babbage - Mar 1, 2025 459 PM/{NB}")] == "older attempt"
    assert ("", "index.html") not in rows, "Brightspace's own index is read as the LMS's, not as a submission"
    assert rows[("ada", "")] == "no submission"


def test_a_name_two_students_share_is_not_guessed(in_course: Course) -> None:
    with in_course.gradebook() as gb:
        from autograder.lms.identity import Person, save_people

        save_people(gb, [Person(id="ada2", first_name="Ada", last_name="Lovelace")])
    archive = lms.moodle(in_course.root.parent / "moodle.zip", [("Ada Lovelace", 1, NB, lms.notebook("?"))])
    assert run_cli("collect", HSA, str(archive), "--from", "moodle") == 0
    (row,) = [r for r in reconciliation(in_course) if r["status"] == "unknown student"]
    assert "2 students on the roster have this name: ada, ada2" in row["note"]
    assert not (in_course.root / "submitted").exists()


def test_timestamp_written_is_the_utc_of_the_lms_time() -> None:
    from zoneinfo import ZoneInfo

    from nbgrader.utils import parse_utc

    from autograder.collect.importer import timestamp_text

    local = datetime(2025, 7, 1, 12, 0, tzinfo=ZoneInfo("America/Los_Angeles"))
    assert timestamp_text(local) == "2025-07-01 19:00:00.000000 UTC"
    assert parse_utc(timestamp_text(local)) == local.astimezone(UTC).replace(tzinfo=None)


def test_canvas_archive_builder_round_trips(in_course: Course) -> None:
    from autograder.collect.canvas_archive import build_canvas_archive
    from autograder.lms.identity import load_people

    source = in_course.root.parent / "class"
    for student in ("ada", "bob", "dee"):
        (source / student / HSA).mkdir(parents=True)
        (source / student / HSA / NB).write_bytes(lms.notebook(student))
    with in_course.gradebook() as gb:
        people = load_people(gb)
    archive = in_course.root.parent / "built.zip"
    assert build_canvas_archive(source, HSA, people, archive, late={"bob"}) == ["cyd"]
    assert run_cli("collect", HSA, str(archive), "--from", "canvas") == 0
    for student in ("ada", "bob", "dee"):
        assert (submitted(in_course, student) / NB).read_bytes() == lms.notebook(student)
    assert any("LATE" in r["note"] for r in reconciliation(in_course) if r["student"] == "bob")


def test_user_mistakes_are_one_line(in_course: Course, capsys) -> None:
    not_zip = in_course.root.parent / "x.zip"
    not_zip.write_text("hello")
    assert run_cli("collect", HSA, str(not_zip), "--from", "canvas") == 1
    assert run_cli("collect", "nope", str(not_zip), "--from", "canvas") == 1
    assert run_cli("collect", HSA, str(not_zip), "--from", "canvas", "--timezone", "Mars/Olympus") == 1
    assert run_cli("collect", HSA, str(in_course.root / "missing.zip"), "--from", "canvas") == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 4 and "Traceback" not in err
    assert "not a zip archive" in err and "not an assignment in the gradebook" in err
    assert "not a time zone" in err and "no such file" in err
    assert not os.path.exists(in_course.root / "submitted")
