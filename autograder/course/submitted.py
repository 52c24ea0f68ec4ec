"""Reading what a student submitted, as data: a submission folder is hostile input.

Every read here is bounded in size, never follows a link, never opens a special file (a FIFO would
block, `/dev/zero` would never end) and never recurses without a bound; whatever a folder holds ends as
data or as a one-line reason that concerns that student alone.
"""

import errno
import itertools
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from fnmatch import fnmatch
from pathlib import Path

# nbgrader's exchange joins `student+assignment+timestamp` in one name and keys folders by id, so an id is
# a plain name: a word character first (so never `.`, `..`, `-x`, `=x` or `@x`), then word characters,
# `.`, `-` or `@` (an email-like JupyterHub name), at most 100 in all. Word characters are Unicode letters
# and digits: no separator, control, formatting (bidi) or surrogate character can be in an id.
STUDENT_ID = re.compile(r"\w[\w.@-]{0,99}")
ID_RULE = "letters, digits, '_', '.', '-' and '@', a letter or digit first, at most 100"
TIMESTAMP_FILE = "timestamp.txt"
MAX_TIMESTAMP_BYTES = 256
# A timestamp outside these years is a typing or a hostile value, not a submission time; it would also
# overflow date arithmetic near the ends of the calendar.
TIMESTAMP_YEARS = (1970, 2200)


class UnsafeFile(Exception):
    """A file that is not read: a link, a special file, too large, gone; the message says which."""


def valid_student_id(text: str) -> bool:
    return STUDENT_ID.fullmatch(text) is not None


def printable(text: str) -> bool:
    """Text that shows as itself: no control, format (bidi, zero width), line or paragraph separator,
    surrogate or unassigned character. Spaces are text in every script (Unicode's Zs, such as the
    ideographic space U+3000 of Japanese names), though `str.isprintable` counts only ' ' among them."""
    return text.isprintable() or all(c.isprintable() or unicodedata.category(c) == "Zs" for c in text)


def shown(text: str) -> str:
    """A name as it may be written in a message: unprintable characters as escapes, quoted."""
    return ascii(text) if not text.isprintable() else repr(text)


def read_bytes(path: Path, limit: int) -> bytes:
    """The content of a regular file of at most `limit` bytes, opened without following a link and without
    blocking on a FIFO or device (which are refused)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeFile(f"{path.name}: a link (not followed)") from None
        raise UnsafeFile(f"{path.name}: cannot be opened ({exc.strerror})") from None
    try:
        return _read_open(fd, path.name, limit)
    finally:
        os.close(fd)


def read_bytes_beneath(folder: Path, rel: Path, limit: int) -> bytes:
    """`read_bytes` of `folder / rel` for a folder its owner may change while it is read (nbgrader's inbound,
    written by the student): no component of `rel` may be a link, checked as each one is opened (a folder
    swapped for a link between listing and reading is refused), and a file with other hard links is refused
    (it may be someone else's file)."""
    return read_dated_beneath(folder, rel, limit)[0]


def read_dated_beneath(folder: Path, rel: Path, limit: int) -> tuple[bytes, int]:
    """`read_bytes_beneath`, and the latest change time (ctime, ns) of the file and of every folder on its
    way, taken once it is read: what was read was there at that time, and the kernel, not the student,
    keeps that clock (a student can set a file's mtime, not its ctime)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    fds = []
    try:
        try:
            fds.append(os.open(folder, flags | os.O_DIRECTORY))
            for part in rel.parts[:-1]:
                fds.append(os.open(part, flags | os.O_DIRECTORY, dir_fd=fds[-1]))
            fds.append(os.open(rel.name, flags | os.O_NONBLOCK, dir_fd=fds[-1]))
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise UnsafeFile(f"{rel}: a link on the way (not followed)") from None
            raise UnsafeFile(f"{rel}: cannot be opened ({exc.strerror})") from None
        if os.fstat(fds[-1]).st_nlink > 1:
            raise UnsafeFile(f"{rel}: a file with other hard links")
        data = _read_open(fds[-1], str(rel), limit)
        return data, max(os.fstat(fd).st_ctime_ns for fd in fds)
    finally:
        for fd in fds:
            os.close(fd)


def _read_open(fd: int, name: str, limit: int) -> bytes:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeFile(f"{name}: not a regular file")
    if info.st_size > limit:
        raise UnsafeFile(f"{name}: larger than {_size(limit)}")
    chunks, size = [], 0
    while size <= limit:  # the size said by fstat is not trusted: the file may be growing
        chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        raise UnsafeFile(f"{name}: larger than {_size(limit)}")
    return b"".join(chunks)


def _size(limit: int) -> str:
    return f"{limit // 2**20} MB" if limit >= 2**20 else f"{limit} bytes"


@dataclass
class Timestamp:
    """A submission's `timestamp.txt`: its time (None when there is no file or it is not usable) and, when it
    is not usable, why (without the file's name)."""

    time: datetime | None = None
    problem: str | None = None
    found: bool = True  # there is a timestamp.txt


def read_timestamp(folder: Path) -> Timestamp:
    """nbgrader's reading of `timestamp.txt` (`CourseDirectory.get_existing_timestamp`: stripped, `parse_utc`),
    bounded; a file that is not a usable date is reported instead of raising. An empty file is not usable (nbgrader
    takes it for no time: on time, whatever the due date)."""
    from nbgrader.utils import parse_utc

    path = folder / TIMESTAMP_FILE
    try:
        os.lstat(path)
    except OSError:
        return Timestamp(found=False)
    try:
        text = read_bytes(path, MAX_TIMESTAMP_BYTES).decode("utf-8").strip()
    except UnsafeFile as exc:
        return Timestamp(problem=str(exc).removeprefix(f"{TIMESTAMP_FILE}: "))
    except UnicodeDecodeError:
        return Timestamp(problem="not UTF-8 text")
    if not text:
        return Timestamp(problem="empty")
    try:
        time = parse_utc(text)
        if not TIMESTAMP_YEARS[0] <= time.year <= TIMESTAMP_YEARS[1]:
            raise ValueError("out of range")
    except Exception:  # dateutil raises ValueError, OverflowError, TypeError... for what it cannot read
        return Timestamp(problem=f"{shown(text[:40])} is not a date between {TIMESTAMP_YEARS[0]} and "
                                 f"{TIMESTAMP_YEARS[1]}")
    return Timestamp(time)


def time_refusal(folder: Path, stamp: Timestamp | None = None) -> str | None:
    """Why the submission in `folder` (`submitted/<student>/<assignment>`; `stamp`, its `timestamp.txt` if read
    already) is not graded for want of a usable time, one line naming the student and the file, or None: a usable
    time, or no `timestamp.txt` at all (an LMS archive that carries no time, graded without one). An unusable
    time is never taken for "on time", and what was graded before stays as it was."""
    problem = (stamp or read_timestamp(folder)).problem
    if problem is None:
        return None
    return (f"{folder.parent.name}: {Path(*folder.parts[-3:]) / TIMESTAMP_FILE}: {problem}; no usable submission "
            "time (collect the submission again)")


@dataclass(frozen=True)
class FolderBounds:
    """What is copied from a submission folder into its autograded folder; the rest is left out, said so."""

    depth: int = 8
    files: int = 200
    file_bytes: int = 20 * 2**20
    total_bytes: int = 50 * 2**20
    names: int = 10_000  # entries looked at in all (files, folders, the rest): past it the walk stops
    reasons: int = 20  # left-out entries named one by one; the rest are counted


@dataclass
class FolderListing:
    files: list[tuple[Path, int]] = field(default_factory=list)  # relative path, size
    left_out: list[str] = field(default_factory=list)  # one line each (up to `FolderBounds.reasons`, then a count)
    unnamed: int = 0  # left out past `FolderBounds.reasons`

    def leave_out(self, line: str, bounds: FolderBounds) -> None:
        if len(self.left_out) < bounds.reasons:
            self.left_out.append(line)
        else:
            self.unnamed += 1


def list_files(folder: Path, ignore: list[str], bounds: FolderBounds = FolderBounds()) -> FolderListing:
    """The regular files under `folder` (relative paths), breadth first, skipping ignored names and the
    top-level `timestamp.txt` (`read_timestamp` reads it); links, special files, names that are not text,
    and whatever is past the bounds are left out with a reason."""
    listing = FolderListing()
    total = seen = 0
    queue = [(Path(), 0)]
    while queue and seen < bounds.names:
        rel, depth = queue.pop(0)
        try:
            # The names read are bounded whatever the folder holds (a million empty files must not take the
            # grader's memory); those read are taken in name order, so that a regrade keeps the same files.
            with os.scandir(folder / rel) as entries:
                listed = sorted(itertools.islice(entries, bounds.names - seen), key=lambda e: e.name)
                more = next(entries, None) is not None
        except OSError as exc:
            listing.leave_out(f"{shown(str(rel))}: not read ({exc.strerror})", bounds)
            continue
        seen += len(listed)
        if more:
            where = shown(str(rel) + "/") if rel.parts else "the submission folder"
            listing.leave_out(f"{where}: more than {bounds.names} names in the submission, the rest not looked at",
                              bounds)
        for entry in listed:
            name = entry.name
            if any(fnmatch(name, pattern) for pattern in ignore) or (depth == 0 and name == TIMESTAMP_FILE):
                continue
            path = rel / name
            if not _text_name(name):
                listing.leave_out(f"{shown(str(path))}: a name that is not text", bounds)
            elif entry.is_dir(follow_symlinks=False):
                if depth + 1 >= bounds.depth:
                    listing.leave_out(f"{shown(str(path) + '/')}: nested deeper than {bounds.depth} folders", bounds)
                else:
                    queue.append((path, depth + 1))
            elif not entry.is_file(follow_symlinks=False):
                kind = "a link" if entry.is_symlink() else "not a regular file"
                listing.leave_out(f"{shown(str(path))}: {kind}", bounds)
            else:
                try:
                    size = entry.stat(follow_symlinks=False).st_size
                except OSError:
                    continue
                if size > bounds.file_bytes:
                    listing.leave_out(f"{shown(str(path))}: larger than {_size(bounds.file_bytes)}", bounds)
                elif len(listing.files) >= bounds.files:
                    listing.leave_out(f"{shown(str(path))}: more than {bounds.files} files", bounds)
                elif total + size > bounds.total_bytes:
                    listing.leave_out(f"{shown(str(path))}: past {_size(bounds.total_bytes)} in all", bounds)
                else:
                    listing.files.append((path, size))
                    total += size
    for rel, _ in queue:  # folders the walk stopped before
        listing.leave_out(f"{shown(str(rel) + '/')}: not looked at (more than {bounds.names} names in the "
                          "submission)", bounds)
    if listing.unnamed:
        # Read after "left out: " (the report) or a list of the others (the summary): the count alone.
        listing.left_out.append(f"{listing.unnamed} more, not named one by one")
    return listing


def _text_name(name: str) -> bool:
    """A file name that is valid UTF-8 text without control characters (os.scandir gives undecodable bytes
    as lone surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return printable(name)


def copy_file(source: Path, dest: Path, limit: int) -> None:
    """Copy one listed file, read as `read_bytes` reads (the listing's size is not trusted)."""
    dest.write_bytes(read_bytes(source, limit))


def folder_problem(submitted_root: Path, student: str, assignment: str) -> str | None:
    """Why `submitted/<student>/<assignment>` must not be graded, or None: an id that is not a plain name,
    or a link on the way (nbgrader's collect never makes one; following it would grade another student's
    work, or the course's own files, as this student's)."""
    if not valid_student_id(student):
        return f"{shown(student)}: not a valid student id ({ID_RULE})"
    for path in (submitted_root / student, submitted_root / student / assignment):
        try:
            info = os.lstat(path)
        except OSError:
            return None  # nothing there: the caller says so
        if stat.S_ISLNK(info.st_mode):
            return f"{student}: {path.relative_to(submitted_root)} is a link (not followed)"
        if not stat.S_ISDIR(info.st_mode):
            return f"{student}: {path.relative_to(submitted_root)} is not a folder"
    return None
