"""Hostile LMS archives: every bad entry refused with one line, nothing written outside `submitted/` and
`lms_attempts/`, and the rest of the class imported as usual. The well-formed entries follow Canvas's
layout (`lib/content_zipper.rb`, see tests/lms/lms_archives.py); the bad ones are what a student or a
tampered archive could put beside them."""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path

import pytest

from autograder.collect.archive import Archive, ArchiveBounds
from tests.lms import lms_archives as lms
from tests.lms.conftest import HSA, Course, run_cli

NB = f"{HSA}.ipynb"
GOOD = f"lovelaceada_1001_5001_{NB}"


def hostile_zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(GOOD, lms.notebook("ada"))
        archive.writestr(f"../babbagebob_1002_5002_{NB}", lms.notebook("climbs out"))
        archive.writestr(f"/tmp/babbagebob_1002_5003_{NB}", lms.notebook("absolute"))
        archive.writestr(f"..\\..\\babbagebob_1002_5004_{NB}", lms.notebook("windows climb"))
        link = zipfile.ZipInfo(f"babbagebob_1002_5005_{NB}")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
        archive.writestr(f"babbagebob_1002_5006_{NB}", b"\0" * (3 * 2**20))  # 3 MB of zeros: ~3 KB packed
        archive.writestr(f"diracdee_1004_5007_{NB}", lms.notebook("dee one"))
        archive.writestr(f"diracdee_1004_5007_{NB}", lms.notebook("dee two"))
        archive.writestr("charissecyd_1003_5008_QQ.ipynb", lms.notebook("cyd"))
        archive.writestr(f"charissecyd_1003_5009_\x1b[2Jgotcha{NB}", lms.notebook("escape"))
    # A name that is not UTF-8 and has no UTF-8 flag (zipfile would encode a str as UTF-8): bytes put in place
    # of an ASCII name of the same length, in the local header and the central directory.
    path.write_bytes(path.read_bytes().replace(b"_QQ.ipynb", b"_\xff\xfe.ipynb"))
    return path


@pytest.mark.filterwarnings("ignore:Duplicate name")  # zipfile warns when the test writes the duplicate
def test_hostile_entries_are_refused_one_line_each_and_nothing_lands_outside(in_course: Course, capsys) -> None:
    outside = in_course.root.parent
    archive = hostile_zip(outside / "hostile.zip")
    before = {p for p in outside.rglob("*")}
    assert run_cli("collect", HSA, str(archive), "--from", "canvas") == 0
    out = capsys.readouterr().out
    written = {p for p in outside.rglob("*")} - before
    allowed = (in_course.root / "submitted", in_course.root / "lms_attempts", in_course.root / "exports")
    assert all(any(p == a or a in p.parents for a in allowed) for p in written), sorted(written)
    assert (in_course.root / "submitted" / "ada" / HSA / NB).read_bytes() == lms.notebook("ada")
    assert not (in_course.root / "submitted" / "bob").exists()
    assert not (in_course.root / "submitted" / "dee").exists(), "a duplicated name: which one is meant is unknown"
    assert not (in_course.root / "submitted" / "cyd").exists()
    refused = [line for line in out.splitlines() if line.startswith("refused")]
    assert len(refused) == 9, out
    for reason in ("climbs out", "absolute path", "backslash", "a link", "zip bomb", "appears 2 times",
                   "not UTF-8", "control characters"):
        assert reason in out, reason
    assert "\x1b" not in out, "the escape in a file name is shown escaped, never sent to the terminal"


def test_bounds_on_entries_and_total_size(tmp_path: Path) -> None:
    path = lms.write_zip(tmp_path / "many.zip", {f"a_1001_{i}_{NB}": b"x" * 100 for i in range(5)})
    with Archive(path, ArchiveBounds(entries=3)) as archive:
        assert len(archive.listing.entries) == 3
        assert [why for _, why in archive.listing.refused] == ["past 3 files"] * 2
    with Archive(path, ArchiveBounds(total_bytes=250)) as archive:
        assert len(archive.listing.entries) == 2
        assert all("in all" in why for _, why in archive.listing.refused)


def test_a_size_the_header_lies_about_is_caught_on_reading(tmp_path: Path) -> None:
    from autograder.collect.archive import EntryError

    path = lms.write_zip(tmp_path / "liar.zip", {"a": b"y" * 5000})
    data = bytearray(path.read_bytes())
    # The central directory says 5000 bytes; claim 10 there and in the local header: the bytes decompress
    # to more than the claim, and the read stops at the bound and fails the CRC instead of trusting it.
    data = data.replace((5000).to_bytes(4, "little"), (10).to_bytes(4, "little"))
    path.write_bytes(bytes(data))
    with Archive(path) as archive:
        (entry,) = archive.listing.entries
        try:
            archive.read(entry)
        except EntryError as exc:
            assert "cannot be read" in str(exc)
        else:
            raise AssertionError("a size the header lies about was read as if true")


def test_csv_holds_no_formula_from_a_hostile_folder_name(in_course: Course) -> None:
    archive = lms.moodle(in_course.root.parent / "m.zip", [('=HYPERLINK("http://x.example","y")', 7, NB,
                                                            lms.notebook("x"))])
    assert run_cli("collect", HSA, str(archive), "--from", "moodle") == 0
    text = (in_course.root / "exports" / f"collect_{HSA}.csv").read_text()
    assert "'=HYPERLINK" in text and ",=HYPERLINK" not in text


def test_an_archive_listing_past_its_bound_is_refused_before_its_directory_is_read(tmp_path: Path) -> None:
    from autograder.collect.archive import ArchiveError

    path = lms.write_zip(tmp_path / "many.zip", {f"a_1001_{i}_{NB}": b"" for i in range(11)})
    try:
        Archive(path, ArchiveBounds(listed=10))
    except ArchiveError as exc:
        assert "lists 11 entries, more than 10" in str(exc) and "\n" not in str(exc)
    else:
        raise AssertionError("an archive past its bound was read")
    with Archive(path, ArchiveBounds(listed=11)) as archive:
        assert len(archive.listing.entries) == 11


def test_a_name_longer_than_a_path_is_refused(tmp_path: Path) -> None:
    path = lms.write_zip(tmp_path / "long.zip", {"a" * 200 + "/" + "漢" * 1400: b"", GOOD: b""})
    with Archive(path) as archive:
        assert [e.path for e in archive.listing.entries] == [GOOD]
        assert [why for _, why in archive.listing.refused] == ["a name longer than 4096 bytes"]
