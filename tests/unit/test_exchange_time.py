"""The time of a submission in nbgrader's inbound (`autograder.watch.exchange`): the kernel's change time of
what is collected, never the time its name claims, and nothing changed after it (no watcher run, no
grading: a folder laid out as `nbgrader submit` leaves it, whose last step makes it writable by all)."""

import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from autograder.watch.exchange import NBGRADER_TIME, Exchange, Uncollectable

SECRET = "ab" * 64
STEP = 0.05  # past the kernel's clock tick, so that a later change has a later change time


def submit(root: Path, student: str, claimed: datetime) -> tuple[Exchange, str]:
    exchange = Exchange(root, "course")
    name = f"{student}+hw+{claimed.strftime(NBGRADER_TIME)}"
    folder = exchange.inbound / name
    (folder / "data").mkdir(parents=True)
    (folder / "hw.ipynb").write_text("{}")
    (folder / "data" / "x.csv").write_text("1,2")
    (folder / "timestamp.txt").write_text(claimed.strftime(NBGRADER_TIME))
    (folder / "submission_secret.txt").write_text(SECRET)
    os.chmod(folder, 0o777)
    return exchange, name


def changed(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_ctime_ns / 1e9, UTC).replace(tzinfo=None)


def test_a_name_backdated_by_less_than_five_minutes_is_not_believed(tmp_path):
    # The old rule believed a name up to 5 minutes before the folder's time: a submission 4 minutes late on
    # time. Now the folder's change time is the time, and the name is quoted.
    exchange, name = submit(tmp_path, "ada", datetime.now(UTC) - timedelta(minutes=4))
    entry = exchange.parse(name, ("hw",), check_owner=False)
    assert entry.time == changed(exchange.inbound / name)
    assert "the time in its name is" in entry.time_note
    exchange.collect(entry, tmp_path / "submitted" / "ada" / "hw", [])
    stamp = (tmp_path / "submitted" / "ada" / "hw" / "timestamp.txt").read_text()
    assert stamp == entry.time.strftime(NBGRADER_TIME)


def test_an_honest_submission_is_collected_at_its_folders_time_without_a_note(tmp_path):
    exchange, name = submit(tmp_path, "bob", datetime.now(UTC))
    entry = exchange.parse(name, ("hw",), check_owner=False)
    assert entry.time_note is None and entry.time == changed(exchange.inbound / name)
    exchange.collect(entry, tmp_path / "submitted" / "bob" / "hw", [])
    assert (tmp_path / "submitted" / "bob" / "hw" / "data" / "x.csv").read_text() == "1,2"


@pytest.mark.parametrize("change", ["rewrite the notebook", "rewrite and set its mtime back", "add a file",
                                    "rewrite a file in a subfolder", "move a file", "replace a file"])
def test_a_submission_changed_after_its_time_is_not_collected(tmp_path, change):
    # A submission over the attempt limit waits in inbound/; rewritten there after the due date, it was
    # graded as submitted on time.
    exchange, name = submit(tmp_path, "cyd", datetime.now(UTC))
    entry = exchange.parse(name, ("hw",), check_owner=False)
    folder = exchange.inbound / name
    time.sleep(STEP)
    if change.startswith("rewrite the notebook") or change.startswith("rewrite and"):
        before = (folder / "hw.ipynb").stat()
        (folder / "hw.ipynb").write_text('{"cells": "better"}')
        if "mtime" in change:  # the student's to set; the change time is not
            os.utime(folder / "hw.ipynb", ns=(before.st_atime_ns, before.st_mtime_ns))
    elif change == "add a file":
        (folder / "helper.py").write_text("ANSWER = 42")
    elif change == "rewrite a file in a subfolder":
        (folder / "data" / "x.csv").write_text("3,4")
    elif change == "move a file":  # out of the folder it was in, which is on the way to what is collected
        (folder / "data" / "x.csv").rename(folder / "x.csv")
    else:
        (folder / "data" / "x.csv").unlink()
        (folder / "data" / "y.csv").write_text("")
    dest = tmp_path / "submitted" / "cyd" / "hw"
    with pytest.raises(Uncollectable, match=r"changed at .* UTC, after it was submitted .*: not graded"):
        exchange.collect(entry, dest, [])
    assert not dest.exists(), "nothing of it reaches submitted/"
