"""Who and when come from the LMS's part of each name, never from what a student chose: a file name that
holds another receipt, a look-alike display name, two submitters for one student, one file name too long
for a file system, and archives of very many entries (tests/lms/lms_archives.py says where each layout is
documented). The roster: ada 1001, bob 1002, cyd 1003, dee 1004; logins ada, bob, ...; Ada Lovelace, ..."""

from __future__ import annotations

import csv
import io
import time
import zipfile
from datetime import datetime
from pathlib import Path

from autograder.course.submitted import read_timestamp
from tests.lms import lms_archives as lms
from tests.lms.conftest import HSA, Course, run_cli

NB = f"{HSA}.ipynb"


def rows(course: Course) -> list[dict[str, str]]:
    text = (course.root / "exports" / f"collect_{HSA}.csv").read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def submitted(course: Course, student: str) -> Path:
    return course.root / "submitted" / student / HSA


def collect(course: Course, archive: Path, lms_name: str, *extra: str) -> None:
    assert run_cli("collect", HSA, str(archive), "--from", lms_name, *extra) == 0


def test_a_blackboard_file_name_holding_another_receipt_stays_its_uploaders(in_course: Course) -> None:
    # bob's upload is named like an attempt of ada's dated in 2099, and one of his own dated before the
    # due date: it was read as ada's newest attempt (hers moved aside) and as bob's attempt on time.
    forged_for_ada = f"x_ada_attempt_2099-01-01-00-00-00_{NB}"
    forged_for_bob = f"y_bob_attempt_2025-02-01-00-00-00_{NB}"
    archive = lms.blackboard(in_course.root.parent / "bb.zip", "HW1", [
        ("Ada Lovelace", "ada", "2025-03-01-10-00-00", "x", [(NB, lms.notebook("ada"))]),
        ("Bob Babbage", "bob", "2025-03-03-12-00-00", "x", [(forged_for_ada, lms.notebook("bob for ada"))]),
        ("Bob Babbage", "bob", "2025-03-04-12-00-00", "x", [(forged_for_bob, lms.notebook("bob backdated"))]),
    ])
    collect(in_course, archive, "blackboard", "--timezone", "UTC")
    assert (submitted(in_course, "ada") / NB).read_bytes() == lms.notebook("ada")
    assert read_timestamp(submitted(in_course, "ada")).time == datetime(2025, 3, 1, 10)
    assert (submitted(in_course, "bob") / NB).read_bytes() == lms.notebook("bob backdated")
    assert read_timestamp(submitted(in_course, "bob")).time == datetime(2025, 3, 4, 12), "the LMS's date"
    by_student = {(r["student"], r["status"]) for r in rows(in_course)}
    assert ("ada", "older attempt") not in by_student and ("bob", "older attempt") in by_student
    assert not (in_course.root / "lms_attempts" / HSA / "ada").exists()


def test_a_blackboard_receipt_must_name_the_username_its_files_carry(in_course: Course, capsys) -> None:
    path = in_course.root.parent / "bb.zip"
    lms.write_zip(path, {
        "HW1_bob_attempt_2025-03-01-10-00-00.txt": lms.blackboard_receipt("Ada Lovelace", "ada", "HW1", "x", []),
        f"HW1_bob_attempt_2025-03-01-10-00-00_{NB}": lms.notebook("bob as ada"),
        # a receipt-like line in the student's comments, after the LMS's first line, is not read
        "HW1_cyd_attempt_2025-03-01-10-00-00.txt": lms.blackboard_receipt("Cyd Charisse", "cyd", "HW1", "x", [])
        + b"Comments:\nName: Ada Lovelace (ada)\n",
        f"HW1_cyd_attempt_2025-03-01-10-00-00_{NB}": lms.notebook("cyd"),
    })
    collect(in_course, path, "blackboard", "--timezone", "UTC")
    assert not (in_course.root / "submitted" / "ada").exists() and not (in_course.root / "submitted" / "bob").exists()
    assert (submitted(in_course, "cyd") / NB).read_bytes() == lms.notebook("cyd")
    (refused,) = [r for r in rows(in_course) if r["status"] == "refused"]
    assert "its receipt names the username 'ada'" in refused["note"]


def test_a_canvas_name_that_reads_as_another_users_file_is_refused(in_course: Course, capsys) -> None:
    archive = lms.canvas(in_course.root.parent / "canvas.zip", [
        ("lovelaceada", "1001", 5001, "my work.ipynb", lms.notebook("ada")),
        ("x_1001", "1002", 5009, NB, lms.notebook("bob as ada")),  # bob's sortable name ends with ada's id
        ("lovelaceada_1001", "9999", 5010, NB, lms.notebook("a stranger as ada")),
    ])
    collect(in_course, archive, "canvas")
    assert (submitted(in_course, "ada") / NB).read_bytes() == lms.notebook("ada")
    assert not (in_course.root / "submitted" / "bob").exists()
    refused = [r for r in rows(in_course) if r["status"] == "refused"]
    assert len(refused) == 2 and all("cannot be attributed" in r["note"] for r in refused)
    assert "Canvas user 1001 (attachment 1002) or Canvas user 1002 (attachment 5009)" in refused[1]["note"] + \
        refused[0]["note"]
    assert len([line for line in capsys.readouterr().out.splitlines() if line.startswith("refused")]) == 2


def test_a_look_alike_moodle_name_is_refused_and_two_submitters_for_one_student_too(in_course: Course) -> None:
    # bob took ada's name in full-width letters: alone it is refused; beside ada's folder, both are.
    alone = lms.moodle(in_course.root.parent / "m1.zip", [("Ａｄａ Lovelace", 5550002, NB, lms.notebook("bob"))])
    collect(in_course, alone, "moodle")
    assert not (in_course.root / "submitted").exists()
    (row,) = [r for r in rows(in_course) if r["status"] == "unknown student"]
    assert "matches ada's name only once look-alike characters are folded" in row["note"]

    both = lms.moodle(in_course.root.parent / "m2.zip", [
        ("Ada Lovelace", 5550001, NB, lms.notebook("ada")),
        ("ADA LOVELACE", 5550002, NB, lms.notebook("bob as ada")),  # as written, case aside
        ("Cyd Charisse", 5550003, NB, lms.notebook("cyd")),
    ])
    collect(in_course, both, "moodle")
    assert not submitted(in_course, "ada").exists(), "which folder is ada's cannot be told"
    assert (submitted(in_course, "cyd") / NB).read_bytes() == lms.notebook("cyd")
    refused = [r for r in rows(in_course) if r["status"] == "refused"]
    assert len(refused) == 2 and all(r["student"] == "ada" for r in refused)
    assert "2 submitters for this student" in refused[0]["note"] and "5550001, 5550002" in refused[0]["note"]
    assert {r["note"] for r in rows(in_course) if r["student"] == "ada" and r["status"] == "no submission"} == {
        "its files were refused: more than one submitter in the archive is this student"}


def test_moodle_writes_no_underscore_in_a_name_so_a_name_with_one_is_outside(in_course: Course) -> None:
    archive = lms.moodle(in_course.root.parent / "m.zip", [("Bob Babbage_5550001_assignsubmission_file_ Ada Lovelace",
                                                            5550002, NB, lms.notebook("?"))])
    collect(in_course, archive, "moodle")
    assert not (in_course.root / "submitted").exists()
    assert {r["status"] for r in rows(in_course) if r["file in the archive"]} == {"outside the layout"}


def test_moodle_4_1_folders_without_the_trailing_underscore_are_read(in_course: Course) -> None:
    archive = lms.moodle(in_course.root.parent / "m.zip", [("Ada Lovelace", 5550001, NB, lms.notebook("ada"))], end="")
    collect(in_course, archive, "moodle")
    assert (submitted(in_course, "ada") / NB).read_bytes() == lms.notebook("ada")


def test_a_japanese_name_with_an_ideographic_space_is_imported(in_course: Course) -> None:
    with in_course.gradebook() as gb:
        from autograder.lms.identity import Person, save_people

        save_people(gb, [Person(id="yui", first_name="結衣", last_name="山田")])
    archive = lms.moodle(in_course.root.parent / "m.zip", [("山田\u3000結衣", 5550005, NB, lms.notebook("yui")),
                                                           ("山田\u3000結衣", 5550005, "メモ\u30001.txt", b"memo")])
    collect(in_course, archive, "moodle")
    assert (submitted(in_course, "yui") / NB).read_bytes() == lms.notebook("yui")
    assert (in_course.root / "lms_attempts" / HSA / "yui" / "latest" / "メモ\u30001.txt").read_bytes() == b"memo"


def test_brightspace_one_id_under_two_names_is_refused(in_course: Course) -> None:
    archive = lms.brightspace(in_course.root.parent / "d2l.zip", [
        ("81234-150002", "Bob Babbage", "Mar 1, 2025 459 PM", [(NB, lms.notebook("bob"))]),
        ("81240-150002", "Ada Lovelace", "Mar 2, 2025 1005 AM", [(NB, lms.notebook("bob as ada"))]),
        ("81241-150004", "Dee Dirac", "Mar 2, 2025 1005 AM", [(NB, lms.notebook("dee"))]),
    ])
    collect(in_course, archive, "brightspace", "--timezone", "UTC")
    assert not submitted(in_course, "ada").exists() and not submitted(in_course, "bob").exists()
    assert (submitted(in_course, "dee") / NB).read_bytes() == lms.notebook("dee")
    notes = {r["note"] for r in rows(in_course) if r["status"] == "refused"}
    assert notes == {"the LMS id 150002 appears under 2 names in the archive; nothing written"}


def test_a_file_name_too_long_in_bytes_is_kept_aside_under_a_short_name(in_course: Course, capsys) -> None:
    # 104 characters, 312 bytes: under 255 characters, over the 255 bytes of a file name. It crashed every run.
    long_name = "漢" * 100 + ".txt"
    archive = lms.canvas(in_course.root.parent / "canvas.zip", [
        ("lovelaceada", "1001", 5001, NB, lms.notebook("ada")),
        ("babbagebob", "1002", 5002, long_name, b"notes"),
        ("babbagebob", "1002", 5003, NB, lms.notebook("bob")),
    ])
    for _ in range(2):
        collect(in_course, archive, "canvas")
        captured = capsys.readouterr()
        assert "Traceback" not in captured.out + captured.err
    assert (submitted(in_course, "bob") / NB).read_bytes() == lms.notebook("bob")
    (kept,) = (in_course.root / "lms_attempts" / HSA / "bob" / "current").glob("file-*.txt")
    assert kept.read_bytes() == b"notes" and len(kept.name.encode()) <= 255


def test_an_archive_of_very_many_entries_costs_little_and_prints_a_count(in_course: Course, capsys) -> None:
    path = in_course.root.parent / "many.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"lovelaceada_1001_5001_{NB}", lms.notebook("ada"))
        for i in range(300):  # bob's own files: more than are kept aside of one student
            archive.writestr(f"babbagebob_1002_{6000 + i}_notes{i}.txt", b"")
        for i in range(25_000):  # past the archive's 20,000 files
            archive.writestr(f"junk{i}", b"")
    start = time.monotonic()
    collect(in_course, path, "canvas")
    seconds = time.monotonic() - start
    out = capsys.readouterr().out
    assert seconds < 60, seconds
    assert len(out.splitlines()) < 400, "a count, not a row per entry"
    assert "1 imported" in out and "300 not a notebook" in out
    assert f"{25_000 - 20_000 + 300 + 1} refused" in out and f"{20_000 - 301} outside the layout" in out
    assert len(rows(in_course)) < 400
    kept = list((in_course.root / "lms_attempts" / HSA / "bob" / "current").iterdir())
    assert len(kept) == 200, "at most 200 files of one student are written"
