"""Reading a submission folder as hostile input (`autograder.course.submitted`): student ids, timestamps,
links, FIFOs and devices, and the bounds of what is copied (no nbgrader run, no sandbox)."""

import os
from datetime import datetime
from pathlib import Path

import pytest

from autograder.course.submitted import (
    MAX_TIMESTAMP_BYTES,
    FolderBounds,
    UnsafeFile,
    folder_problem,
    list_files,
    read_bytes,
    read_bytes_beneath,
    read_dated_beneath,
    read_timestamp,
    shown,
    time_refusal,
    valid_student_id,
)


@pytest.mark.parametrize("student", ["ada", "a", "ada.lovelace@example.org", "x-1_2", "Ünal", "李", "a" * 100])
def test_plain_names_are_student_ids(student):
    assert valid_student_id(student)


@pytest.mark.parametrize("student", ["", ".", "..", "-x", "=x", "@x", ".hidden", "a/b", "a b", "a+b", "a\nb",
                                     "a\u202eb", "a\x00b", "\udcff", "a" * 101])
def test_anything_else_is_not(student):
    assert not valid_student_id(student)


def test_names_are_shown_quoted_with_unprintable_characters_escaped():
    assert shown("ada") == "'ada'"
    assert shown("a\u202eb\n") == "'a\\u202eb\\n'"


def test_a_regular_file_is_read_up_to_its_limit(tmp_path):
    (tmp_path / "f").write_bytes(b"x" * 10)
    assert read_bytes(tmp_path / "f", 10) == b"x" * 10
    with pytest.raises(UnsafeFile, match="larger than 9 bytes"):
        read_bytes(tmp_path / "f", 9)
    with pytest.raises(UnsafeFile, match="cannot be opened"):
        read_bytes(tmp_path / "gone", 10)


def test_links_fifos_and_devices_are_refused_without_blocking(tmp_path):
    (tmp_path / "secret").write_text("another student's work")
    (tmp_path / "link").symlink_to(tmp_path / "secret")
    os.mkfifo(tmp_path / "fifo")  # opening it to read would wait for a writer, for ever
    with pytest.raises(UnsafeFile, match="a link"):
        read_bytes(tmp_path / "link", 1000)
    with pytest.raises(UnsafeFile, match="not a regular file"):
        read_bytes(tmp_path / "fifo", 1000)
    with pytest.raises(UnsafeFile, match="not a regular file"):
        read_bytes(Path("/dev/zero"), 1000)
    with pytest.raises(UnsafeFile, match="not a regular file"):
        read_bytes(tmp_path, 1000)


def test_beneath_a_folder_no_part_of_the_path_may_be_a_link_nor_the_file_hard_linked(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a.ipynb").write_text("{}")
    (tmp_path / "inbound").mkdir()
    (tmp_path / "inbound" / "sub").symlink_to(tmp_path / "real")
    assert read_bytes_beneath(tmp_path, Path("real/a.ipynb"), 100) == b"{}"
    with pytest.raises(UnsafeFile, match="a link on the way"):
        read_bytes_beneath(tmp_path / "inbound", Path("sub/a.ipynb"), 100)
    os.link(tmp_path / "real" / "a.ipynb", tmp_path / "inbound" / "b.ipynb")
    with pytest.raises(UnsafeFile, match="other hard links"):
        read_bytes_beneath(tmp_path / "inbound", Path("b.ipynb"), 100)


def test_a_file_swapped_for_a_link_as_the_last_component_is_not_followed(tmp_path):
    """The harder case: every folder on the way is real and the link's target is an ordinary file with one link,
    so only O_NOFOLLOW on the last open stands between the reader and the target (dropping it reads `secret`)."""
    (tmp_path / "secret").write_text("hidden tests")
    (tmp_path / "inbound" / "ann" / "hw1").mkdir(parents=True)
    (tmp_path / "inbound" / "ann" / "hw1" / "hw1.ipynb").symlink_to(tmp_path / "secret")
    (tmp_path / "inbound" / "top.ipynb").symlink_to(tmp_path / "secret")
    for rel in ("ann/hw1/hw1.ipynb", "top.ipynb"):
        with pytest.raises(UnsafeFile, match="a link on the way"):
            read_dated_beneath(tmp_path / "inbound", Path(rel), 100)


def stamped(folder: Path, content: bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "timestamp.txt").write_bytes(content)
    return folder


def test_a_timestamp_is_read_as_nbgrader_reads_it(tmp_path):
    assert read_timestamp(tmp_path).found is False
    empty = read_timestamp(stamped(tmp_path, b"  \n"))
    assert empty.found and empty.time is None and empty.problem == "empty"  # nbgrader's "no time": on time
    assert read_timestamp(stamped(tmp_path, b"2025-03-02 14:30:15.123456 UTC\n")).time == \
        datetime(2025, 3, 2, 14, 30, 15, 123456)


@pytest.mark.parametrize("content, problem", [
    (b"yesterday", "is not a date between 1970 and 2200"),
    (b"0001-01-01 00:00:00", "is not a date between 1970 and 2200"),
    (b"9999-12-31 23:59:59", "is not a date between 1970 and 2200"),
    (b"\xff\xfe2025", "not UTF-8 text"),
    (b"2025-03-02 " + b" " * MAX_TIMESTAMP_BYTES, "larger than"),
    (b" \n", "empty"),
])
def test_a_timestamp_that_is_not_usable_is_a_reason_not_an_error(tmp_path, content, problem):
    folder = stamped(tmp_path / "submitted" / "ada" / "hw", content)
    stamp = read_timestamp(folder)
    assert stamp.time is None and problem in stamp.problem and "\n" not in stamp.problem
    # The line `autograder grade` and the watcher give: the student, the file, the problem; not graded at all.
    assert time_refusal(folder) == (f"ada: submitted/ada/hw/timestamp.txt: {stamp.problem}; no usable submission "
                                    "time (collect the submission again)")


def test_only_a_usable_time_or_none_at_all_is_graded(tmp_path):
    assert time_refusal(tmp_path) is None  # an LMS archive that carries no time
    assert time_refusal(stamped(tmp_path, b"2025-03-02 14:30:15.123456 UTC")) is None


def test_a_timestamp_that_is_a_link_or_a_fifo_is_not_read(tmp_path):
    (tmp_path / "elsewhere").write_text("2025-03-02 14:30:15")
    (tmp_path / "timestamp.txt").symlink_to(tmp_path / "elsewhere")
    assert "a link" in read_timestamp(tmp_path).problem
    fifo = tmp_path / "fifo_folder"
    fifo.mkdir()
    os.mkfifo(fifo / "timestamp.txt")
    assert "not a regular file" in read_timestamp(fifo).problem


def test_listing_keeps_regular_files_and_says_what_it_leaves_out(tmp_path):
    (tmp_path / "a.ipynb").write_text("{}")
    (tmp_path / "timestamp.txt").write_text("2025-01-01 00:00:00")  # read by read_timestamp, never copied
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / "a-checkpoint.ipynb").write_text("{}")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "timestamp.txt").write_text("kept: only the top-level one is the submission's time")
    (tmp_path / "link").symlink_to("/etc/passwd")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "tab\there").write_text("")
    listing = list_files(tmp_path, [".ipynb_checkpoints"])
    assert [(str(path), size) for path, size in listing.files] == [
        ("a.ipynb", 2), ("data/timestamp.txt", 53)]
    assert sorted(listing.left_out) == ["'fifo': not a regular file", "'link': a link",
                                        "'tab\\there': a name that is not text"]


def test_a_name_with_a_space_of_any_script_is_listed_one_with_a_direction_override_is_not(tmp_path):
    (tmp_path / "山田\u3000メモ.txt").write_text("")
    (tmp_path / "a\u202egnp.exe").write_text("")
    listing = list_files(tmp_path, [])
    assert [str(path) for path, _ in listing.files] == ["山田\u3000メモ.txt"]
    assert listing.left_out == ["'a\\u202egnp.exe': a name that is not text"]


def test_listing_stops_at_its_bounds(tmp_path):
    (tmp_path / "big").write_bytes(b"x" * 101)
    for name in "abcd":
        (tmp_path / name).write_bytes(b"x" * 40)
    deep = tmp_path / "d1" / "d2" / "d3"
    deep.mkdir(parents=True)
    (deep / "f").write_text("")
    listing = list_files(tmp_path, [], FolderBounds(depth=3, files=3, file_bytes=100, total_bytes=100))
    assert [str(path) for path, _ in listing.files] == ["a", "b"]
    assert listing.left_out == ["'big': larger than 100 bytes", "'c': past 100 bytes in all",
                                "'d': past 100 bytes in all", "'d1/d2/d3/': nested deeper than 3 folders"]
    assert [str(path) for path, _ in list_files(tmp_path, ["big"], FolderBounds(files=2)).files] == ["a", "b"]
    assert "'c': more than 2 files" in list_files(tmp_path, ["big"], FolderBounds(files=2)).left_out


def test_a_folder_of_very_many_names_is_read_only_up_to_its_bound_and_said_in_a_few_lines(tmp_path):
    for index in range(60):
        (tmp_path / f"f{index:02d}").write_text("")
    (tmp_path / "zz").mkdir()
    (tmp_path / "zz" / "inner").write_text("")
    bounds = FolderBounds(files=10, names=50, reasons=5)
    listing = list_files(tmp_path, [], bounds)
    # 50 names are looked at (which ones is the folder's order; those in name order); 10 files are kept.
    kept = [str(path) for path, _ in listing.files]
    assert len(kept) == 10 and kept == sorted(kept) and all(name.startswith("f") for name in kept)
    assert listing.left_out[0] == "the submission folder: more than 50 names in the submission, the rest not looked at"
    assert all(line.endswith("more than 10 files") or "not looked at" in line for line in listing.left_out[1:5])
    assert listing.left_out[5:] == ["36 more, not named one by one"]  # no line each
    # Under its bound, the folder inside is walked as before.
    whole = list_files(tmp_path, [], FolderBounds(files=100, names=100))
    assert ("zz/inner", 0) in [(str(path), size) for path, size in whole.files] and not whole.left_out


def test_a_submission_folder_is_graded_only_under_a_plain_id_and_without_links(tmp_path):
    submitted = tmp_path / "submitted"
    (submitted / "ada" / "hw1").mkdir(parents=True)
    assert folder_problem(submitted, "ada", "hw1") is None
    assert folder_problem(submitted, "nobody", "hw1") is None  # nothing there: the caller says so
    assert "not a valid student id" in folder_problem(submitted, "..", "hw1")
    (submitted / "eve").symlink_to(submitted / "ada")
    assert folder_problem(submitted, "eve", "hw1") == "eve: eve is a link (not followed)"
    (submitted / "bob").mkdir()
    (submitted / "bob" / "hw1").symlink_to(tmp_path)
    assert folder_problem(submitted, "bob", "hw1") == "bob: bob/hw1 is a link (not followed)"
    (submitted / "cy").write_text("")
    assert folder_problem(submitted, "cy", "hw1") == "cy: cy is not a folder"
