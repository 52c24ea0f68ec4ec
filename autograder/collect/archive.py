"""An LMS archive read as data: every entry checked before any byte of it is used.

A zip comes from the LMS, but every name and byte in it was chosen by a student (file names, folder names
Moodle and Brightspace build from display names, contents). Nothing is extracted by the archive's own
names: the importer writes under names it makes, so an entry can at worst be refused. An entry is refused,
with one line, when its name is absolute, climbs (`..`), holds a backslash or a control character, is not
UTF-8, is longer than a path can be, is nested too deep, or appears twice; when it is a link or another
special file, encrypted, or larger than a notebook can be; when it expands far more than data does (a zip
bomb); and past the archive's bounds on entries and total size. Reading an entry is bounded again (the
sizes in the headers are claims). An archive whose directory lists more entries than any class's download
holds is refused as a whole before its directory is read (reading it is what costs memory and time).
"""

from __future__ import annotations

import stat
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from autograder.course.submitted import printable, shown

UTF8_FLAG = 0x800
ENCRYPTED_FLAG = 0x1


class ArchiveError(Exception):
    """The archive as a whole cannot be read (not a zip, unreadable); one line."""


class EntryError(Exception):
    """One entry could not be read after all (corrupt data, a size that was a lie); one line."""


@dataclass(frozen=True)
class ArchiveBounds:
    entries: int = 20_000
    listed: int = 100_000  # entries in the archive's directory, read or not: past it, the archive is refused
    path_bytes: int = 4096  # PATH_MAX: no LMS writes a longer name
    depth: int = 8
    entry_bytes: int = 20 * 2**20  # as submitted.FolderBounds.file_bytes: more is not a notebook
    total_bytes: int = 2 * 2**30
    # Notebooks compress 3 to 20 times; a ratio past this, on an entry large enough to matter, is a bomb.
    ratio: int = 100
    ratio_floor: int = 2**20


@dataclass(frozen=True)
class Entry:
    """A regular file of the archive that passed every check: its path as parts, and its zip header."""

    parts: tuple[str, ...]
    info: zipfile.ZipInfo

    @property
    def path(self) -> str:
        return "/".join(self.parts)

    @property
    def name(self) -> str:
        return self.parts[-1]


@dataclass
class Listing:
    entries: list[Entry] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (name as shown, why)


class Archive:
    """An open LMS archive: its checked listing, and bounded reads of its entries."""

    def __init__(self, path: Path, bounds: ArchiveBounds = ArchiveBounds()) -> None:
        self.bounds = bounds
        try:
            listed = _listed(path)
            if listed > bounds.listed:
                raise ArchiveError(f"{path}: its directory lists {listed} entries, more than {bounds.listed} "
                                   "(no LMS download of a class holds that many): refused before reading it")
            self.zip = zipfile.ZipFile(path)
        except FileNotFoundError:
            raise ArchiveError(f"{path}: no such file") from None
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise ArchiveError(f"{path}: not a zip archive ({exc})") from None
        self.listing = _check(self.zip.infolist(), bounds)

    def read(self, entry: Entry) -> bytes:
        """The entry's bytes, at most `entry_bytes` whatever its header says."""
        limit = self.bounds.entry_bytes
        try:
            with self.zip.open(entry.info) as handle:
                data = handle.read(limit + 1)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError) as exc:
            raise EntryError(f"{shown(entry.path)}: cannot be read ({exc})") from None
        if len(data) > limit:
            raise EntryError(f"{shown(entry.path)}: larger than {limit // 2**20} MB")
        return data

    def close(self) -> None:
        self.zip.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _listed(path: Path) -> int:
    """The number of entries the archive's end record says its directory holds (zip64 included), read
    before `zipfile` reads the whole directory into memory; 0 when there is no end record (zipfile says why)."""
    with open(path, "rb") as handle:
        end = zipfile._EndRecData(handle)  # the standard library's own reader of that record
    return int(end[zipfile._ECD_ENTRIES_TOTAL]) if end else 0


def entry_name(info: zipfile.ZipInfo) -> str | None:
    """The entry's name as text, or None when it is not UTF-8. Python reads a name without the UTF-8 flag as
    cp437, the zip default; LMSs write UTF-8 and do not always set the flag, so those bytes are read as UTF-8."""
    if info.flag_bits & UTF8_FLAG or info.filename.isascii():
        return info.filename
    try:
        return info.filename.encode("cp437").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return None


def _problem(name: str, info: zipfile.ZipInfo, bounds: ArchiveBounds) -> str | None:
    if not printable(name):
        return "a name with control characters"
    if len(name.encode()) > bounds.path_bytes:
        return f"a name longer than {bounds.path_bytes} bytes"
    if "\\" in name:
        return "a name with a backslash (a Windows path)"
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "an absolute path"
    parts = name.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return "a path that climbs out or is not plain ('..', '.', '//')"
    if len(parts) > bounds.depth:
        return f"nested deeper than {bounds.depth} folders"
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        return "a link (not followed)"
    if mode and stat.S_IFMT(mode) and not stat.S_ISREG(mode):
        return "not a regular file"
    if info.flag_bits & ENCRYPTED_FLAG:
        return "encrypted"
    if info.file_size > bounds.entry_bytes:
        return f"larger than {bounds.entry_bytes // 2**20} MB"
    if info.file_size > bounds.ratio_floor and info.file_size > bounds.ratio * max(info.compress_size, 1):
        return f"expands {info.file_size // max(info.compress_size, 1)} times (a zip bomb)"
    return None


def _check(infos: list[zipfile.ZipInfo], bounds: ArchiveBounds) -> Listing:
    listing = Listing()
    names = [entry_name(info) for info in infos]
    counts: dict[str, int] = {}
    for name in names:
        if name is not None:
            counts[name] = counts.get(name, 0) + 1
    total = 0
    files = 0
    for info, name in zip(infos, names, strict=True):
        if name is None:
            listing.refused.append((ascii(info.filename), "a name that is not UTF-8"))
            continue
        if name.endswith("/") and not info.file_size:
            continue  # a folder: its files are listed on their own
        problem = _problem(name, info, bounds)
        if problem is None and counts[name] > 1:
            problem = f"appears {counts[name]} times in the archive (which one is meant cannot be told)"
        if problem is None:
            files += 1
            if files > bounds.entries:
                problem = f"past {bounds.entries} files"
            elif total + info.file_size > bounds.total_bytes:
                problem = f"past {bounds.total_bytes // 2**30} GB in all"
        if problem:
            listing.refused.append((shown(name), problem))
            continue
        total += info.file_size
        listing.entries.append(Entry(tuple(PurePosixPath(name).parts), info))
    return listing
