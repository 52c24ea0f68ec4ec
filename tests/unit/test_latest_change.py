"""The time `nbgrader collect` gives a submission (`autograder.collect.exchange_collect`): the latest change time
(ctime) of the inbound entry and of everything in it, which no student can set back; links are not followed;
the walk is bounded; and what is copied is never newer than the time written beside it (no OS users, no
nbgrader run)."""

import os
import time
from pathlib import Path

import pytest

from autograder.collect.exchange_collect import ExchangeTimeCollect, Walked, latest_change, utc
from autograder.course.submitted import FolderBounds, read_timestamp

STEP = 0.05  # past the kernel's clock tick, so that a later change has a later change time


def ctime(path: Path) -> int:
    return os.lstat(path).st_ctime_ns


def entry(tmp_path: Path) -> Path:
    folder = tmp_path / "inbound" / "ada+hw+2020-01-01 00:00:00.000000 UTC"
    (folder / "data" / "deep").mkdir(parents=True)
    (folder / "hw.ipynb").write_text("{}")
    (folder / "data" / "deep" / "x.csv").write_text("1,2")
    (folder / "timestamp.txt").write_text("2020-01-01 00:00:00.000000 UTC")
    return folder


def test_the_newest_change_wins_whatever_the_modification_times_say(tmp_path):
    folder = entry(tmp_path)
    first = latest_change(folder)
    assert first.complete and first.changed_ns == max(ctime(p) for p in [folder, *folder.rglob("*")])
    time.sleep(STEP)
    deep = folder / "data" / "deep" / "x.csv"
    old = deep.stat()
    deep.write_text("3,4")  # rewritten in place: no folder on its way changes
    os.utime(deep, ns=(old.st_atime_ns, old.st_mtime_ns))  # its modification time set back, as a student can
    later = latest_change(folder)
    assert later.changed_ns == ctime(deep) > first.changed_ns


def test_links_are_not_followed(tmp_path):
    folder = entry(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (folder / "notes").symlink_to(outside)
    (folder / "answer.ipynb").symlink_to(outside / "answer.ipynb")
    linked = latest_change(folder).changed_ns
    time.sleep(STEP)
    (outside / "answer.ipynb").write_text("{}")  # what the links point at, written later: not the entry's time
    (outside / "more").mkdir()
    assert latest_change(folder).changed_ns == linked < ctime(outside / "answer.ipynb")


def test_the_walk_is_bounded_and_keeps_the_folders_own_time(tmp_path):
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(30):
        (folder / f"f{i}").write_text("x")
    assert latest_change(folder, FolderBounds(names=30)).complete
    cut = latest_change(folder, FolderBounds(names=10))
    assert not cut.complete and cut.changed_ns >= ctime(folder)
    assert latest_change(folder, FolderBounds(names=0)).changed_ns == ctime(folder)
    # Nested deeper than the bound: the walk stops where the copy does (`list_files` copies 8 folders deep).
    deep = tmp_path / "deep"
    (deep / Path(*["d"] * 12)).mkdir(parents=True)
    time.sleep(STEP)
    (deep / Path(*["d"] * 12) / "late.txt").write_text("x")
    walked = latest_change(deep, FolderBounds(depth=8))
    assert not walked.complete and walked.changed_ns < ctime(deep / Path(*["d"] * 12) / "late.txt")
    assert latest_change(deep, FolderBounds(depth=13)) == Walked(ctime(deep / Path(*["d"] * 12) / "late.txt"), True)


@pytest.fixture()
def collector(tmp_path):
    from nbgrader.coursedir import CourseDirectory

    return ExchangeTimeCollect(coursedir=CourseDirectory(root=str(tmp_path / "course")))


def test_the_time_written_is_no_earlier_than_anything_copied(tmp_path, collector):
    folder = entry(tmp_path)
    outside = tmp_path / "elsewhere.ipynb"
    outside.write_text("{}")
    (folder / "link.ipynb").symlink_to(outside)
    walked = latest_change(folder)
    time.sleep(STEP)
    (folder / "hw.ipynb").write_text('{"cells": []}')  # changed between the walk and the copy
    outside.write_text('{"later": true}')
    dest = tmp_path / "course" / "submitted" / "ada" / "hw"
    dest.parent.mkdir(parents=True)
    written = collector.copy_entry(folder, dest, walked.changed_ns)
    assert written == utc(ctime(folder / "hw.ipynb")) > utc(walked.changed_ns)
    assert read_timestamp(dest).time == written  # nbgrader's format, read back to the microsecond
    assert (dest / "hw.ipynb").read_text() == '{"cells": []}' and (dest / "data" / "deep" / "x.csv").is_file()
    assert not (dest / "link.ipynb").exists()  # a link is left out: its target is neither copied nor timed
    assert (dest.stat().st_mode & 0o777, (dest / "hw.ipynb").stat().st_mode & 0o777) == (0o755, 0o644)
