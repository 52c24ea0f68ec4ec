"""Each LMS's "download all submissions" layout: who each file belongs to, which attempt, and when.

nbgrader's `zip_collect` asks for one regular expression per LMS over one file name at a time; these
layouts need more (Moodle's and Brightspace's per-student folders, Blackboard's receipts that name the
student), so each is read here from the whole listing. What nbgrader's rules say is kept: the student and
the file come from the name, a timestamp where the name carries one, the newest attempt wins.

- Canvas (`lib/content_zipper.rb`, `get_filename` and `add_upload_submission`): a flat archive of
  `{sortable name, lower case, word characters only}_{LATE_}{user id}_{attachment id}_{file name}`, with
  `anon_{id}` for the user under anonymous grading and `_text.html` / `_link.html` for text and URL entries.
  Only the current submission is in it; a file uploaded again under the same name is renamed `name-1.ext`
  by Canvas. No submission time: only the LATE marker.
- Moodle (`mod/assign/locallib.php`, `download_submissions`): a folder per student and plugin,
  `{Full Name}_{participant id}_assignsubmission_file_/{file}` (flat files `..._assignsubmission_file_{file}`
  when "download as folders" is off). The participant id is Moodle's per-assignment id, not the user id,
  so the student is found by name. Only the latest submission; no time.
- Blackboard Learn (Grade Center, Assignment File Download; as readers of these archives parse it):
  `{Assignment}_{username}_attempt_{YYYY-MM-DD-HH-MM-SS}_{file}` per file and a receipt
  `{Assignment}_{username}_attempt_{date}.txt` per attempt (`Name: First Last (username)`,
  `Date Submitted:`, and `Original filename:` / `Filename:` pairs). Every attempt may be in it; the date
  is the server's local time.
- Brightspace (Assignments, Download; as readers of these archives parse it): a folder per submission,
  `{id}-{id} - {First Last} - {Mon D, YYYY H:MM AM
  without the colon}`, and `index.html` listing them. Several folders per student are several attempts;
  the date is in the downloading user's time zone. The student is found by name.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo

from .archive import Archive, Entry, EntryError

MAX_RECEIPT_BYTES = 64 * 2**10


@dataclass(frozen=True)
class Claim:
    """Who the LMS says a file belongs to: an identity of some kind, and the name the archive shows."""

    kind: str  # "lms_user_id", "username" or "name"
    value: str
    name: str = ""

    @property
    def shown(self) -> str:
        return self.value if self.kind == "name" else f"{self.value} ({self.name})" if self.name else self.value


@dataclass(frozen=True)
class Upload:
    """One file of one attempt of one student, as the LMS names it."""

    entry: Entry
    claim: Claim
    file_name: str  # as the student named it (the LMS's decoration removed)
    attempt: str  # the attempt it belongs to, a label safe in a path
    order: tuple  # later sorts higher: attempts by time or id, files within one by upload
    time: datetime | None = None  # aware, when the archive says
    late: bool = False  # the LMS marks it late (Canvas)


@dataclass
class Parsed:
    uploads: list[Upload] = field(default_factory=list)
    outside: list[tuple[str, str]] = field(default_factory=list)  # (path, why): not in the layout
    lms_files: list[str] = field(default_factory=list)  # the LMS's own files (receipts, index), read or left


_CANVAS = re.compile(r"(?:(?P<name>\w*?)_)??(?:(?P<late>LATE)_)?(?P<user>\d+|anon_[A-Za-z0-9]+)"
                     r"(?:_(?P<attachment>\d+))?_(?P<file>.+)")
_MOODLE = re.compile(r"(?P<name>.+)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file>.*)")
_BLACKBOARD = re.compile(r"(?P<stem>(?P<head>.+)_attempt_(?P<date>\d{4}(?:-\d\d){5}))(?:_(?P<file>.+)|\.txt)")
_BRIGHTSPACE = re.compile(r"(?P<ids>\d+-\d+) - (?P<name>.+) - (?P<date>[A-Z][a-z]{2} \d{1,2}, \d{4} \d{3,4} [AP]M)")


def canvas(archive: Archive, zone: tzinfo) -> Parsed:
    parsed = Parsed()
    for entry in archive.listing.entries:
        match = _CANVAS.fullmatch(entry.name) if len(entry.parts) == 1 else None
        if match is None:
            parsed.outside.append((entry.path, "not named as Canvas names submissions"))
            continue
        user = match["user"]
        kind = "anonymous" if user.startswith("anon_") else "lms_user_id"
        attachment = int(match["attachment"] or 0)
        parsed.uploads.append(Upload(entry, Claim(kind, user, match["name"] or ""), match["file"],
                                     attempt="current", order=(0, attachment), late=bool(match["late"])))
    return parsed


def moodle(archive: Archive, zone: tzinfo) -> Parsed:
    parsed = Parsed()
    for entry in archive.listing.entries:
        match = _MOODLE.fullmatch(entry.parts[0])
        rest = "/".join(entry.parts[1:]) if match and not match["file"] else match["file"] if match else ""
        if match is None or not rest or (match["file"] and len(entry.parts) > 1):
            parsed.outside.append((entry.path, "not in a Moodle submission folder"))
            continue
        claim = Claim("name", match["name"], f"participant {match['id']}")
        if match["plugin"] != "file":
            rest = f"{match['plugin']}: {rest}"  # online text, comments: never a notebook
        parsed.uploads.append(Upload(entry, claim, rest, attempt="latest", order=(0, 0)))
    return parsed


def blackboard(archive: Archive, zone: tzinfo) -> Parsed:
    parsed = Parsed()
    receipts: dict[str, Claim] = {}
    files = []
    for entry in archive.listing.entries:
        match = _BLACKBOARD.fullmatch(entry.name) if len(entry.parts) == 1 else None
        if match is None:
            parsed.outside.append((entry.path, "not named as Blackboard names attempt files"))
        elif match["file"] is None:
            parsed.lms_files.append(entry.path)
            claim = _receipt(archive, entry)
            if claim:
                receipts[match["stem"]] = claim
        else:
            files.append((entry, match))
    for entry, match in files:
        # Without a receipt, the username is the last `_` part before `_attempt_` (a username with `_` in it
        # needs the receipt, which names it in full).
        claim = receipts.get(match["stem"]) or Claim("username", match["head"].rpartition("_")[2])
        date = _time(match["date"], "%Y-%m-%d-%H-%M-%S", zone)
        if date is None:
            parsed.outside.append((entry.path, "an attempt date that is not a date"))
            continue
        parsed.uploads.append(Upload(entry, claim, match["file"], attempt=f"attempt-{match['date']}",
                                     order=(date, 0), time=date))
    return parsed


def _receipt(archive: Archive, entry: Entry) -> Claim | None:
    """`Name: First Last (username)` from a receipt, or None when it has no such line or cannot be read."""
    try:
        text = archive.read(entry)[:MAX_RECEIPT_BYTES].decode("utf-8", errors="replace")
    except EntryError:
        return None
    match = re.search(r"^Name: (?P<name>.*) \((?P<user>[^()\r\n]+)\)\r?$", text, re.MULTILINE)
    return Claim("username", match["user"], match["name"]) if match else None


def brightspace(archive: Archive, zone: tzinfo) -> Parsed:
    parsed = Parsed()
    for entry in archive.listing.entries:
        if entry.parts == ("index.html",):
            parsed.lms_files.append(entry.path)
            continue
        match = _BRIGHTSPACE.fullmatch(entry.parts[0]) if len(entry.parts) > 1 else None
        if match is None:
            parsed.outside.append((entry.path, "not in a Brightspace submission folder"))
            continue
        day, clock, half = match["date"].rsplit(" ", 2)
        date = _time(f"{day} {clock[:-2]}:{clock[-2:]} {half}", "%b %d, %Y %I:%M %p", zone)
        if date is None:
            parsed.outside.append((entry.path, "a submission date that is not a date"))
            continue
        parsed.uploads.append(Upload(entry, Claim("name", match["name"], match["ids"]), "/".join(entry.parts[1:]),
                                     attempt=f"{date:%Y-%m-%dT%H%M}-{match['ids']}", order=(date, 0), time=date))
    return parsed


def _time(text: str, form: str, zone: tzinfo) -> datetime | None:
    try:
        return datetime.strptime(text, form).replace(tzinfo=zone)
    except ValueError:
        return None


LAYOUTS: dict[str, Callable[[Archive, tzinfo], Parsed]] = {
    "canvas": canvas, "moodle": moodle, "blackboard": blackboard, "brightspace": brightspace,
}
# Where each LMS's time comes from, said in the command's output.
TIMES = {
    "canvas": "Canvas's archive carries no submission time (only a LATE marker): timestamp.txt is not written",
    "moodle": "Moodle's archive carries no submission time: timestamp.txt is not written",
    "blackboard": "submission times from Blackboard's file names, read in {zone}",
    "brightspace": "submission times from Brightspace's folder names, read in {zone}",
}
