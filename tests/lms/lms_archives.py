"""Archives built as each LMS's "download all submissions" writes them, for `autograder collect` tests.

Each builder follows the layout the LMS's own code or documentation gives (see autograder/collect/layouts.py):
- Canvas: `lib/content_zipper.rb` in instructure/canvas-lms (`get_filename`, `add_upload_submission`,
  `sanitize_user_name`): `{sortable name, lower case, word characters}_{LATE_}{user id}_{attachment id}_{file}`.
- Moodle: `mod/assign/locallib.php`, `assign::download_submissions`: with "download as folders" (the default
  since Moodle 3.1) `{Full Name}_{participant id}_assignsubmission_file_/{file}`; since 4.1
  (`mod/assign/classes/downloader.php`, `get_student_prefix`) without the `_` before the `/`. Both write
  every `_` of the name as a space.
- Blackboard Learn: Grade Center > Assignment File Download. Not from Blackboard's own pages (not at hand):
  the layout as tools that read these archives parse it, CodeGra.de's `psef/blackboard.py` (the receipt's
  Name / Assignment / Date Submitted / Current Grade / Submission Field / Comments / Files with Original
  filename and Filename lines) and kwurst/bb-file-cleanup (`assignmentname_username_attempt_datetime_file`
  and `..._datetime.txt`).
- Brightspace: Assignments > Download. Also from a reader of these archives, not D2L's pages: a folder per
  submission, `{id}-{id} - {First Last} - {Mon D, YYYY HMM AM}` (a rename script's example,
  `397063-2557369 - Mary-Ann Smith - Sep 24, 2024 926 PM/`), and an `index.html` listing them.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path


def notebook(marker: str) -> bytes:
    """A small notebook whose content says which upload it is."""
    return json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": marker}], "metadata": {},
                       "nbformat": 4, "nbformat_minor": 5}).encode()


def write_zip(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return path


def canvas(path: Path, uploads: list[tuple[str, str, int, str, bytes]], late: set[str] = frozenset()) -> Path:
    """uploads: (sortable name as Canvas writes it, user id, attachment id, file name, bytes)."""
    files = {}
    for name, user, attachment, filename, data in uploads:
        prefix = "_".join(p for p in (name, "LATE" if user in late else "", user) if p)
        files[f"{prefix}_{attachment}_{filename}"] = data
    return write_zip(path, files)


def moodle(path: Path, uploads: list[tuple[str, int, str, bytes]], end: str = "_") -> Path:
    """uploads: (full name, participant id, file name, bytes); `end=""` for Moodle 4.1's folders."""
    return write_zip(path, {f"{name}_{pid}_assignsubmission_file{end}/{filename}": data
                            for name, pid, filename, data in uploads})


def blackboard_receipt(name: str, username: str, assignment: str, submitted: str,
                       files: list[tuple[str, str]]) -> bytes:
    lines = [f"Name: {name} ({username})", f"Assignment: {assignment}", f"Date Submitted: {submitted}",
             "Current Grade: Needs Grading", "", "Submission Field:",
             "There is no student submission text data for this assignment.", "", "Comments:",
             "There are no student comments for this assignment.", "", "Files:"]
    for original, stored in files:
        lines += [f"\tOriginal filename: {original}", f"\tFilename: {stored}"]
    return ("\n".join(lines) + "\n").encode()


def blackboard(path: Path, assignment: str,
               attempts: list[tuple[str, str, str, str, list[tuple[str, bytes]]]]) -> Path:
    """attempts: (full name, username, date YYYY-MM-DD-HH-MM-SS, Date Submitted text, [(file name, bytes)])."""
    files = {}
    for name, username, date, submitted, uploads in attempts:
        stem = f"{assignment}_{username}_attempt_{date}"
        stored = [(original, f"{stem}_{original}") for original, _ in uploads]
        files[f"{stem}.txt"] = blackboard_receipt(name, username, assignment, submitted, stored)
        for (_, data), (_, stored_name) in zip(uploads, stored, strict=True):
            files[stored_name] = data
    return write_zip(path, files)


def brightspace(path: Path, submissions: list[tuple[str, str, str, list[tuple[str, bytes]]]]) -> Path:
    """submissions: (ids `NNN-NNN`, full name, date as `Sep 24, 2024 926 PM`, [(file name, bytes)])."""
    files = {}
    rows = []
    for ids, name, date, uploads in submissions:
        folder = f"{ids} - {name} - {date}"
        rows.append(f"<tr><td>{name}</td><td>{date}</td></tr>")
        for filename, data in uploads:
            files[f"{folder}/{filename}"] = data
    files["index.html"] = f"<html><body><table>{''.join(rows)}</table></body></html>".encode()
    return write_zip(path, files)
