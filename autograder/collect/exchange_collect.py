"""`nbgrader collect`, and the formgrader's Collect button, at the exchange's time (the framework's defaults set
`c.ExchangeFactory.collect` to `ExchangeTimeCollect`).

nbgrader's own collect believes the student twice: it copies the `timestamp.txt` that the student's side wrote
into `submitted/`, and picks a student's newest entry in `inbound/` by the time in the entry's name, which the
student chose too. A student writing into `inbound/` as their own OS user (as `nbgrader submit` does) could so hand
in late work dated on time. Here the time is what the exchange can vouch for: the latest change time (ctime) of
the inbound entry and of everything in it, which the kernel sets whenever a file is written, renamed, linked or
its mode changed, and which no student can set back (`os.utime` sets the modification time, not this one). The
student's `timestamp.txt` is never read; the one written into `submitted/` is this time, in nbgrader's format.

The entry is copied as the watcher copies one (`autograder.watch.exchange`): no link followed, no special file
opened, within the bounds `autograder grade` applies (`FolderBounds`), and what is left out is logged, one line
each. The time written is taken after the copy, from the files as they were read, so that nothing copied is
newer than it. The rest is nbgrader's: `--update`, `--before-duedate`, `--student`, the owner check (a warning),
`CourseDirectory.ignore`/`include`/`max_file_size`, `groupshared` permissions.
"""

import os
import pwd
import shutil
import stat
import tempfile
from collections import defaultdict, deque
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.utils import check_mode

from autograder.course.submitted import (
    TIMESTAMP_FILE,
    FolderBounds,
    UnsafeFile,
    list_files,
    read_dated_beneath,
    read_timestamp,
    shown,
    valid_student_id,
)
from autograder.watch.exchange import BOUNDS, NBGRADER_TIME, Uncollectable, name_parts

EPOCH = datetime(1970, 1, 1)


def course_bounds(coursedir: Any) -> FolderBounds:
    """`FolderBounds`, narrowed by the course's nbgrader `max_file_size` and `max_dir_size` (kilobytes) where
    smaller: what a submission may hold, collected here or handed to the exchange service."""
    return replace(BOUNDS, file_bytes=min(BOUNDS.file_bytes, 1000 * coursedir.max_file_size),
                   total_bytes=min(BOUNDS.total_bytes, 1000 * coursedir.max_dir_size))


@dataclass(frozen=True)
class Walked:
    """What a walk of an inbound entry found: the latest change time (ns) of what it looked at, and whether it
    looked at everything (past its bounds it stops: the latest seen stands)."""

    changed_ns: int
    complete: bool


def latest_change(folder: Path, bounds: FolderBounds = BOUNDS) -> Walked:
    """The latest change time of `folder` and of everything in it, from `lstat` (a link's own time: its target is
    not looked at), breadth first, within `bounds`: at most `names` entries in all, and no deeper than `depth`
    folders, as `list_files` copies (a folder of a million entries, or nested a thousand deep, costs no more;
    what lies past the bounds is not copied either). The folder's own time is always in it."""
    latest = os.lstat(folder).st_ctime_ns
    seen, complete, queue = 0, True, deque([(folder, 0)])
    while queue:
        path, depth = queue.popleft()
        # A folder swapped for a link after it was listed is followed here: that can only add later times.
        try:
            with os.scandir(path) as entries:
                for entry in entries:
                    if seen >= bounds.names:
                        return Walked(latest, False)
                    seen += 1
                    try:
                        latest = max(latest, entry.stat(follow_symlinks=False).st_ctime_ns)
                        if entry.is_dir(follow_symlinks=False):
                            if depth + 1 < bounds.depth:
                                queue.append((Path(entry.path), depth + 1))
                            else:
                                complete = False
                    except OSError:
                        continue  # gone while walked: its folder's own time says it changed
        except OSError:
            complete = False  # not a folder any more: its own time is in, as its folder's
    return Walked(latest, complete)


def utc(ns: int) -> datetime:
    """A change time as nbgrader keeps times (naive UTC), to the microsecond, exactly (no float rounding: the
    time read back from `timestamp.txt` compares equal to the one a later walk gives the same entry)."""
    return EPOCH + timedelta(microseconds=ns // 1000)


class ExchangeTimeCollect(ExchangeCollect):
    """nbgrader's `ExchangeCollect` with the exchange's time instead of the student's (see the module)."""

    def init_src(self) -> None:
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        if not check_mode(self.inbound_path, read=True, execute=True):
            self.fail(f"You don't have read permissions for the directory: {self.inbound_path}")
        by_student = defaultdict(list)
        for record in self._records():
            by_student[record["username"]].append(record)
        self.duedate = self._duedate()
        self.src_records = []
        for records in by_student.values():
            records.sort(key=lambda r: (r["timestamp"], r["filename"]), reverse=True)
            on_time = [r for r in records if self.duedate is not None and r["timestamp"] <= self.duedate]
            self.src_records.append(on_time[0] if self.before_duedate and on_time else records[0])

    def _records(self) -> list[dict]:
        """Each entry of this assignment in `inbound/` (of the students `--student` names), with its time; an
        entry that is not a student's folder is logged and left where it is."""
        assignment, wanted = self.coursedir.assignment_id, self.coursedir.student_id or "*"
        records = []
        for name in sorted(os.listdir(self.inbound_path)):
            try:
                student, entry_assignment, _ = name_parts(name)  # the time in the name is the student's: unused
            except Uncollectable as exc:
                if f"+{assignment}+" in name:
                    self.log.warning("Not collected: %s", exc)
                continue
            if entry_assignment != assignment or not fnmatch(student, wanted):
                continue
            path = Path(self.inbound_path) / name
            try:
                if not valid_student_id(student):
                    raise Uncollectable(f"{shown(name[:120])}: not a valid student id")
                if not stat.S_ISDIR(os.lstat(path).st_mode):
                    raise Uncollectable(f"{shown(name)}: not a folder")
                walked = latest_change(path)
            except (Uncollectable, OSError) as exc:
                self.log.warning("Not collected: %s", exc if isinstance(exc, Uncollectable) else f"{name}: {exc}")
                continue
            if not walked.complete:
                self.log.warning("%s: more than %d entries or deeper than %d folders: timed by the latest change "
                                 "among those looked at, and copied within the same bounds", name, BOUNDS.names,
                                 BOUNDS.depth)
            records.append({"username": student, "filename": name, "timestamp": utc(walked.changed_ns),
                            "changed_ns": walked.changed_ns})
        return records

    def _duedate(self) -> datetime | None:
        from nbgrader.api import Gradebook, MissingEntry

        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            try:
                return gb.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                return None

    def copy_files(self) -> None:
        assignment, course = self.coursedir.assignment_id, self.coursedir.course_id
        if not self.src_records:
            self.log.warning(f"No submissions of '{assignment}' for course '{course}' to collect")
        else:
            self.log.info(f"Processing {len(self.src_records)} submissions of '{assignment}' for course '{course}'")
        for record in self.src_records:
            student = record["username"]
            src = Path(self.inbound_path) / record["filename"]
            self._check_owner(src, student)
            dest = Path(self.coursedir.format_path(self.coursedir.submitted_directory, student, assignment))
            dest.parent.mkdir(parents=True, exist_ok=True)
            if dest.is_dir() and not self._replaces(dest, record["timestamp"]):
                more = "No newer submission to collect" if self.update else \
                    "Submission already exists, use --update to update"
                self.log.info(f"{more}: {student} {assignment}")
                continue
            self.log.info(f"{'Updating' if dest.is_dir() else 'Collecting'} submission: {student} {assignment}")
            try:
                self.copy_entry(src, dest, record["changed_ns"])
            except (UnsafeFile, OSError) as exc:
                self.log.warning("Not collected: %s: %s", record["filename"], exc)

    def _replaces(self, dest: Path, new: datetime) -> bool:
        """nbgrader's rule for a student collected before: `--update` takes a newer submission, `--before-duedate`
        a different one. A `timestamp.txt` there that is not a usable time is replaced."""
        existing = read_timestamp(dest).time
        if self.update and (existing is None or new > existing):
            return True
        return self.before_duedate and existing != new

    def _check_owner(self, src: Path, student: str) -> None:
        if not self.check_owner:
            return
        try:
            owner = pwd.getpwuid(os.lstat(src).st_uid).pw_name
        except (KeyError, OSError):
            owner = "unknown id"
        if owner != student:
            self.log.warning(f"{src} claims to be submitted by {student} but is owned by {owner}; cheating attempt? "
                             "you may disable this warning by unsetting the option CollectApp.check_owner")

    def bounds(self) -> FolderBounds:
        return course_bounds(self.coursedir)

    def copy_entry(self, src: Path, dest: Path, changed_ns: int) -> datetime:
        """Copy the entry `src` to `dest` (built beside it, swapped in whole) with the exchange's time in its
        `timestamp.txt`: the latest of `changed_ns` (its walk), of each file copied and every folder on its way as
        they were read, and of the entry itself afterwards. That time, which is returned, is no earlier than
        anything copied."""
        from autograder.grading.autograded import swap_in

        bounds = self.bounds()
        listing = list_files(src, list(self.coursedir.ignore), bounds)
        include = list(self.coursedir.include)
        latest = changed_ns
        build = Path(tempfile.mkdtemp(prefix=f".{dest.name}-collect-", dir=dest.parent))
        try:
            for rel, _ in listing.files:
                if include and not any(fnmatch(rel.name, pattern) for pattern in include):
                    continue
                try:
                    data, changed = read_dated_beneath(src, rel, bounds.file_bytes)
                except UnsafeFile as exc:
                    listing.left_out.append(str(exc))
                    continue
                latest = max(latest, changed)
                (build / rel).parent.mkdir(parents=True, exist_ok=True)
                (build / rel).write_bytes(data)
            latest = max(latest, os.lstat(src).st_ctime_ns)
            time = utc(latest)
            (build / TIMESTAMP_FILE).write_text(time.strftime(NBGRADER_TIME))
            self._set_modes(build)
        except BaseException:
            shutil.rmtree(build, ignore_errors=True)
            raise
        for line in listing.left_out:
            self.log.warning("%s: left out: %s", src.name, line)
        swap_in(build, dest)
        return time

    def _set_modes(self, build: Path) -> None:
        """Folders 0755 and files 0644 (the staging folder is made 0700), and with `groupshared` the group's
        read and write as nbgrader's collect gives them (folders ug+rwx and setgid, files ug+rw)."""
        shared = self.coursedir.groupshared
        for folder, _, files in os.walk(build):
            os.chmod(folder, 0o2775 if shared else 0o755)
            for name in files:
                os.chmod(os.path.join(folder, name), 0o664 if shared else 0o644)
