"""nbgrader's exchange as the watcher uses it: submissions arrive in `<root>/<course>/inbound/`, feedback
leaves through `<root>/<course>/feedback/`.

Everything in `inbound/` is the student's: its names, timestamps, secrets and files, and the student may
change a folder while it is read (`nbgrader submit` leaves it writable). Names are parsed as data, files
are read through `autograder.course.submitted` without following any link, and what cannot be used is refused
with one line that concerns that submission alone.
"""

import os
import pwd
import re
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from autograder.course.submitted import (
    TIMESTAMP_FILE,
    FolderBounds,
    UnsafeFile,
    list_files,
    read_dated_beneath,
    shown,
    valid_student_id,
)

SECRET_FILE = "submission_secret.txt"
# `nbgrader submit` writes 64 random bytes in hex; the feedback's file name is derived from it, so a short or
# odd one is refused rather than used.
SECRET = re.compile(r"[0-9a-f]{32,256}")
# nbgrader's optional suffix: 9 random bytes in URL-safe base64.
RANDOM_SUFFIX = re.compile(r"[A-Za-z0-9_-]{1,64}")
# The time in a submission's name is the student's to write; the folder's inode change time is the
# kernel's, and is the time used. A name this far from it or more is quoted in the log.
NAME_TIME_QUOTED = timedelta(seconds=1)
NBGRADER_TIME = "%Y-%m-%d %H:%M:%S.%f UTC"
# nbgrader's modes: students may enter `feedback/` but not list it (a file's name is its secret).
FEEDBACK_MODE = 0o711
FEEDBACK_FILE_MODE = 0o644
BOUNDS = FolderBounds()


class Uncollectable(Exception):
    """A submission that cannot be collected; the message is one line."""


class Unfinished(Exception):
    """A submission `nbgrader submit` is still writing: looked at again later. `since` is its folder's
    change time (epoch seconds), to give up on one that is never finished."""

    def __init__(self, message: str, since: float) -> None:
        super().__init__(message)
        self.since = since


@dataclass(frozen=True)
class Entry:
    """One submission in `inbound/`: its folder's name, the student and assignment it names, its time."""

    name: str
    student: str
    assignment: str
    time: datetime  # naive UTC, as nbgrader's `parse_utc` gives
    time_note: str | None = None  # how the time in the name differs from it
    changed_ns: int = 0  # the folder's change time (ctime) `time` is: nothing collected may be newer


@dataclass
class Collected:
    secret: str | None
    left_out: list[str] = field(default_factory=list)


@dataclass
class Exchange:
    root: Path
    course_id: str

    @classmethod
    def from_config(cls, config: Any, course_id: str) -> "Exchange":
        """Where nbgrader's own configuration puts the exchange (`c.Exchange.root`, or nbgrader's default)."""
        from nbgrader.exchange.default.exchange import Exchange as NbgraderExchange

        return cls(Path(NbgraderExchange(config=config).root), course_id)

    @property
    def inbound(self) -> Path:
        return self.root / self.course_id / "inbound"

    @property
    def feedback(self) -> Path:
        return self.root / self.course_id / "feedback"

    def names(self) -> list[str]:
        """The names in `inbound/` (a cheap listing: nothing in the folders is read)."""
        return os.listdir(self.inbound)

    def parse(self, name: str, assignments: tuple[str, ...], check_owner: bool) -> Entry | None:
        """The submission `name` stands for; None for another assignment's; `Uncollectable` for a name or a
        folder that is not a student's submission. Whose the folder is comes first: a folder named for another
        student is refused at once, never waited for as unfinished (`watch.inbound` shares its reading by owner)."""
        student, assignment, stamp = name_parts(name)
        if assignment not in assignments:
            return None
        if not valid_student_id(student):
            raise Uncollectable(f"{shown(name[:120])}: not a valid student id")
        try:
            info = os.lstat(self.inbound / name)
        except OSError as exc:
            raise Uncollectable(f"{name}: cannot be read ({exc.strerror})") from None
        if check_owner and (owner := owner_name(info.st_uid)) != student:
            raise Uncollectable(f"{name}: owned by {owner}, not by {student} (c.CollectApp.check_owner)")
        if not stat.S_ISDIR(info.st_mode):
            raise Uncollectable(f"{name}: not a folder")
        # `nbgrader submit` copies the files, writes timestamp.txt and submission_secret.txt, then makes
        # the folder writable by all: its last step. Before it, the folder may be half-copied.
        if not info.st_mode & stat.S_IWOTH or not os.path.lexists(self.inbound / name / SECRET_FILE):
            raise Unfinished(f"{name}: not finished by nbgrader submit", info.st_ctime)
        return Entry(name, student, assignment, *_believed_time(stamp, info.st_ctime_ns), info.st_ctime_ns)

    def secret(self, entry: Entry) -> str:
        return self._dated_secret(entry)[0]

    def _dated_secret(self, entry: Entry) -> tuple[str, int]:
        try:
            data, changed = read_dated_beneath(self.inbound / entry.name, Path(SECRET_FILE), 1024)
            text = data.decode("ascii").strip()
        except (UnsafeFile, UnicodeDecodeError) as exc:
            raise Uncollectable(f"{entry.name}: no usable {SECRET_FILE} ({exc})") from None
        if not SECRET.fullmatch(text):
            raise Uncollectable(f"{entry.name}: {SECRET_FILE} is not nbgrader's (hex, 32 to 256 digits)")
        return text, changed

    def collect(self, entry: Entry, dest: Path, ignore: list[str], bounds: FolderBounds = BOUNDS) -> Collected:
        """Copy the submission to `dest` (`submitted/<student>/<assignment>`) as `nbgrader collect` does, with
        its time in `timestamp.txt`; the folder is built beside `dest` and swapped in whole. A submission
        changed after its time (a file rewritten in a folder waiting in inbound/) is `Uncollectable`: what is
        graded is what was there at the time used."""
        from autograder.grading.autograded import swap_in

        folder = self.inbound / entry.name
        secret, latest = self._dated_secret(entry)
        collected = Collected(secret)
        listing = list_files(folder, ignore, bounds)
        collected.left_out = listing.left_out
        dest.parent.mkdir(parents=True, exist_ok=True)
        build = Path(tempfile.mkdtemp(prefix=f".{dest.name}-collect-", dir=dest.parent))
        try:
            for rel, _ in listing.files:
                if rel == Path(SECRET_FILE):
                    continue
                try:
                    data, changed = read_dated_beneath(folder, rel, bounds.file_bytes)
                except UnsafeFile as exc:
                    collected.left_out.append(str(exc))
                    continue
                latest = max(latest, changed)
                (build / rel).parent.mkdir(parents=True, exist_ok=True)
                (build / rel).write_bytes(data)
            if latest > entry.changed_ns:
                raise Uncollectable(f"{entry.name}: changed at {_utc(latest):%Y-%m-%d %H:%M:%S} UTC, after it was "
                                    f"submitted ({entry.time:%Y-%m-%d %H:%M:%S} UTC): not graded; submit again")
            (build / TIMESTAMP_FILE).write_text(entry.time.strftime(NBGRADER_TIME))
            (build / SECRET_FILE).write_text(collected.secret)
        except BaseException:
            shutil.rmtree(build, ignore_errors=True)
            raise
        swap_in(build, dest)
        return collected

    def release(self, secret: str, notebook_id: str, page: bytes) -> Path:
        """Put a feedback page where `nbgrader fetch_feedback` looks for it (the name nbgrader's
        `release_feedback` gives it: a hash of the submission's secret and the notebook's name), whole."""
        from nbgrader.utils import notebook_hash

        folder = self.feedback
        if not folder.is_dir():
            folder.mkdir(parents=True)
            os.chmod(folder, FEEDBACK_MODE)
        return self.replace(f"{notebook_hash(secret=secret, notebook_id=notebook_id)}.html", page)

    def released(self, name: str) -> bytes:
        """A page released before, by its file name in `feedback/`."""
        return (self.feedback / name).read_bytes()

    def replace(self, name: str, page: bytes) -> Path:
        """Write the page `feedback/<name>`, whole: a student fetching it gets the old page or the new one."""
        path = self.feedback / name
        write_whole(path, page, FEEDBACK_FILE_MODE)
        return path


def write_whole(path: Path, data: bytes, mode: int) -> None:
    """Write `path` through a temporary file beside it and a rename: a reader gets the old file or the new one,
    never half of it."""
    fd, temporary = tempfile.mkstemp(prefix=".release-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


_OWNERS: dict[int, str] = {}


def owner_name(uid: int) -> str:
    """The user name of `uid` (`uid N` for one with no name), looked up once per uid that has one: a flood of
    folders costs no password-database reads, and an account made later (at a student's first spawn) is found."""
    if uid not in _OWNERS:
        try:
            _OWNERS[uid] = pwd.getpwuid(uid).pw_name
        except KeyError:
            return f"uid {uid}"
    return _OWNERS[uid]


def name_parts(name: str) -> tuple[str, str, str]:
    """(student, assignment, time as written) of an entry's name in `inbound/`, as `nbgrader submit` makes it
    (`student+assignment+time`, then an optional random suffix); `Uncollectable` for any other shape."""
    parts = name.split("+")
    if len(parts) not in (3, 4) or (len(parts) == 4 and not RANDOM_SUFFIX.fullmatch(parts[3])):
        raise Uncollectable(f"{shown(name[:120])}: not a submission's name (student+assignment+time)")
    return parts[0], parts[1], parts[2]


def _utc(ns: int) -> datetime:
    return datetime.fromtimestamp(ns / 1e9, UTC).replace(tzinfo=None)


def _believed_time(stamp: str, ctime_ns: int) -> tuple[datetime, str | None]:
    """The submission's time: its folder's change time, the kernel's record of the last step of `nbgrader
    submit` (making the folder writable by all, after the files are copied). The time in the name is
    written by the student's side before the copy, so it is never believed, however close: a slack of any
    size would let a name backdate a submission by that much. It is quoted when a second or more away."""
    changed = _utc(ctime_ns)
    try:
        from nbgrader.utils import parse_utc

        claimed = parse_utc(stamp)
        if claimed.tzinfo is not None:
            claimed = claimed.astimezone(UTC).replace(tzinfo=None)
    except Exception:  # dateutil raises several kinds for text it cannot read
        return changed, "the time in its name is not a date: the folder's time is used"
    if abs(claimed - changed) < NAME_TIME_QUOTED:
        return changed, None
    return changed, f"the time in its name is {claimed:%Y-%m-%d %H:%M:%S} UTC, its folder's: the folder's is used"
