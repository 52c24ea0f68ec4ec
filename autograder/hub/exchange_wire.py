"""What the exchange service (exchange_service.py) and the students' nbgrader (exchange_client.py) send each other:
a folder's files as JSON, `{"files": {"<relative path>": "<base64>"}}`, and an error as `{"error": "<one line>"}`.

Each side reads the other's folder as hostile: a name is a relative path of plain text parts (no `..`, no empty
part, no absolute path), within the bounds of `FolderBounds`, checked before anything is written."""

import base64
import binascii
import json
import os
from pathlib import Path, PurePosixPath

from autograder.course.submitted import FolderBounds, list_files, printable, read_bytes_beneath, shown

MAX_NAME = 255  # a file name's length on the file systems a course runs on


class WireError(Exception):
    """A folder's files that cannot be taken as sent; the message is one line, naming the file."""


class TooLarge(WireError):
    """A folder past its bounds (files, bytes)."""


def relative_path(name: object, bounds: FolderBounds) -> PurePosixPath:
    """`name` as a path beneath a folder, or WireError: text parts, none of them empty, `.` or `..`."""
    if not isinstance(name, str) or not name:
        raise WireError("a file without a name")
    parts = name.split("/")
    if any(part in ("", ".", "..") or len(part) > MAX_NAME or not printable(part) or "\0" in part for part in parts):
        raise WireError(f"{shown(name[:200])}: not a plain relative path")
    if len(parts) > bounds.depth:
        raise WireError(f"{shown(name[:200])}: nested deeper than {bounds.depth} folders")
    return PurePosixPath(*parts)


def decode(body: bytes, bounds: FolderBounds) -> dict[PurePosixPath, bytes]:
    """The files of a JSON body, each path checked and the whole held to `bounds` (files, a file's bytes, all
    bytes); WireError, one line, for the first problem."""
    try:
        files = json.loads(body)["files"]
    except (ValueError, KeyError, TypeError):
        raise WireError('not a folder\'s files (JSON {"files": {path: base64}})') from None
    if not isinstance(files, dict):
        raise WireError('not a folder\'s files (JSON {"files": {path: base64}})')
    if len(files) > bounds.files:
        raise TooLarge(f"{len(files)} files, more than the {bounds.files} a submission may hold")
    decoded: dict[PurePosixPath, bytes] = {}
    total = 0
    for name, text in files.items():
        path = relative_path(name, bounds)
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, TypeError, ValueError):
            raise WireError(f"{shown(name[:200])}: its content is not base64") from None
        if len(data) > bounds.file_bytes:
            raise TooLarge(f"{shown(name[:200])}: larger than {bounds.file_bytes} bytes")
        total += len(data)
        if total > bounds.total_bytes:
            raise TooLarge(f"more than {bounds.total_bytes} bytes in all")
        decoded[path] = data
    return decoded


def as_json(files: dict[str, bytes]) -> dict[str, str]:
    """`files` as the "files" of a body: each content in base64."""
    return {name: base64.b64encode(data).decode("ascii") for name, data in files.items()}


def encode(files: dict[str, bytes]) -> bytes:
    return json.dumps({"files": as_json(files)}).encode()


def read_folder(folder: Path, ignore: list[str], bounds: FolderBounds) -> dict[str, bytes]:
    """The regular files beneath `folder`, read without following a link, as `list_files` lists them."""
    return {rel.as_posix(): read_bytes_beneath(folder, rel, bounds.file_bytes)
            for rel, _ in list_files(folder, ignore, bounds).files}


def write_folder(folder: Path, files: dict[PurePosixPath, bytes], mode: int = 0o644) -> None:
    """Write `files` beneath `folder`, each a new file (a name given twice, or a file where a folder is, is an
    OSError): nothing is followed or replaced."""
    for rel, data in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        with os.fdopen(descriptor, "wb") as out:
            out.write(data)
