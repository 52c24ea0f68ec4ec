"""Each LMS's "download all submissions" layout: who each file belongs to, which attempt, and when.

nbgrader's `zip_collect` asks for one regular expression per LMS over one file name at a time; these
layouts need more (Moodle's and Brightspace's per-student folders, Blackboard's receipts that name the
student), so each is read here from the whole listing. What nbgrader's rules say is kept: the student and
the file come from the name, a timestamp where the name carries one, the newest attempt wins.

Every name mixes what the LMS wrote (ids, markers, dates) with what a student chose (a display name, a
file name). Each layout reads the LMS's part from where the LMS writes it and nowhere else, so that text a
student chose cannot move a file to another student or change its date; a name the LMS's layout can read
in two ways is refused, never guessed.

- Canvas (`lib/content_zipper.rb`, `get_filename`, `sanitize_user_name` and `add_upload_submission`): a
  flat archive of `{sortable name}_{LATE_}{user id}_{attachment id}_{file name}`. The name part is the
  student's sortable name, lower case, word characters only (`_` kept); the user id and attachment id are
  Canvas's, digits without a leading zero; `anon_{id}` replaces name and user id under anonymous grading,
  and `_text.html` / `_link.html` stand for text and URL entries. Both the name part and the file name are
  the student's, so a name ending in `_<digits>` or a file name starting with `<digits>_<digits>_` can make
  a second reading with other ids (Canvas's own reader of these names takes the first digits it sees):
  such an entry is refused. Only the current submission is in it; a file uploaded again under the same
  name is renamed `name-1.ext` by Canvas. No submission time: only the LATE marker.
- Moodle (`mod/assign/classes/downloader.php`, `get_student_prefix`; `mod/assign/locallib.php` before
  4.1): a folder per student and plugin, `{Full Name}_{participant id}_assignsubmission_file` (a trailing
  `_` before 4.1) with the files under it, or flat files `..._assignsubmission_file_{file}` when "download
  as folders" is off. Moodle writes the name with every `_` turned into a space, so the name ends at the
  first `_`. The participant id is Moodle's per-assignment id, not the user id, so the student is found by
  name; blind marking names everyone `Participant`. Only the latest submission; no time.
- Blackboard Learn (Grade Center, Assignment File Download; as readers of these archives parse it):
  `{Assignment}_{username}_attempt_{YYYY-MM-DD-HH-MM-SS}_{file}` per file and a receipt
  `{Assignment}_{username}_attempt_{date}.txt` per attempt whose first line is `Name: First Last
  (username)`. The attempt is the first `_attempt_{date}` of a name (what follows is the student's file
  name); the receipt's username must be the one its file names carry. Every attempt may be in it; the
  date is the server's local time.
- Brightspace (Assignments, Download; as readers of these archives parse it): a folder per submission,
  `{id}-{id} - {First Last} - {Mon D, YYYY H:MM AM without the colon}`, and `index.html` listing them.
  Several folders per student are several attempts (the second id is the same); the date, written last
  by the LMS, is in the downloading user's time zone. The student is found by name.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo

from .archive import Archive, Entry, EntryError

MAX_RECEIPT_BYTES = 64 * 2**10


@dataclass(frozen=True)
class Claim:
    """Who the LMS says a file belongs to: an identity of some kind, the name the archive shows beside it,
    and the LMS's own id of the submitter in this archive (one per student: two for one student is a doubt)."""

    kind: str  # "lms_user_id", "username", "username_tail", "name" or "anonymous"
    value: str
    name: str = ""
    source: str = ""

    @property
    def shown(self) -> str:
        value = self.value.rpartition("_")[2] if self.kind == "username_tail" else self.value
        return value if self.kind == "name" else f"{value} ({self.name})" if self.name else value


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
    refused: list[tuple[str, str]] = field(default_factory=list)  # (path, why): in it, but not attributable
    lms_files: list[str] = field(default_factory=list)  # the LMS's own files (receipts, index), read or left


# ASCII digits only: `\d` would also take full-width and other scripts' digits, which no LMS writes.
_ID = "[1-9][0-9]{0,19}"
_CANVAS_ANON = re.compile(rf"(?P<late>LATE_)?anon_(?P<anon>[A-Za-z0-9]+)_(?P<attachment>{_ID})_(?P<file>.+)")
# What follows the name part: matched at each `_` the name part may end at.
_CANVAS_TAIL = re.compile(rf"_(?P<late>LATE_)?(?P<user>{_ID})_(?:(?P<attachment>{_ID})_(?=.)|(?=(?:text|link)\.html$))")
_MOODLE_FOLDER = re.compile(r"(?P<name>[^_]*)_(?P<id>[0-9]{1,20})_assignsubmission_(?P<plugin>[a-z]+)_?")
_MOODLE_FLAT = re.compile(r"(?P<name>[^_]*)_(?P<id>[0-9]{1,20})_assignsubmission_(?P<plugin>[a-z]+)_(?P<file>.+)")
_BLACKBOARD_ATTEMPT = re.compile(r"_attempt_(?P<date>[0-9]{4}(?:-[0-9]{2}){5})")
_BLACKBOARD_RECEIPT = re.compile(r"Name: (?P<name>.*) \((?P<user>[^()\r\n]+)\)\r?")
_BRIGHTSPACE = re.compile(r"(?P<ids>[0-9]{1,20}-(?P<user>[0-9]{1,20})) - (?P<name>.+) - "
                          r"(?P<date>[A-Z][a-z]{2} [0-9]{1,2}, [0-9]{4} [0-9]{3,4} [AP]M)")


def _word(char: str) -> bool:
    """A character Canvas's sanitising keeps in the name part (Ruby's `[[:word:]]`: letters, marks, digits
    and connectors such as `_`)."""
    return unicodedata.category(char)[0] in "LMN" or unicodedata.category(char) == "Pc"


def canvas_readings(name: str) -> list[tuple[str, bool, str, int, str]]:
    """Every way Canvas's layout reads `name`: (name part, LATE, user id, attachment id, file name), at most
    two (two already mean the name cannot be attributed)."""
    readings: list[tuple[str, bool, str, int, str]] = []
    anon = _CANVAS_ANON.fullmatch(name)
    if anon:
        return [("", bool(anon["late"]), f"anon_{anon['anon']}", int(anon["attachment"]), anon["file"])]
    text = "_" + name  # an empty name part (all of it removed by sanitising) leaves the ids first
    seen = set()
    for end in range(len(text)):
        if text[end] == "_":
            match = _CANVAS_TAIL.match(text, end)
            if match:
                attachment = int(match["attachment"] or 0)
                reading = (text[1:end], bool(match["late"]), match["user"], attachment, text[match.end():])
                key = reading[2:]  # a name part ending in `_LATE` reads the same file either way
                if key not in seen:
                    seen.add(key)
                    readings.append(reading)
                    if len(readings) == 2:
                        break
        elif end and not _word(text[end]):
            break  # the name part holds word characters only: it cannot end past this
    return readings


def canvas(archive: Archive, zone: tzinfo) -> Parsed:
    parsed = Parsed()
    for entry in archive.listing.entries:
        readings = canvas_readings(entry.name) if len(entry.parts) == 1 else []
        if not readings:
            parsed.outside.append((entry.path, "not named as Canvas names submissions"))
            continue
        if len(readings) > 1:
            users = " or ".join(f"Canvas user {user} (attachment {attachment})" for _, _, user, attachment, _
                                in readings)
            parsed.refused.append((entry.path, f"the name reads as the file of {users}: a name or file name with "
                                               "`_<digits>_` in it cannot be attributed; uploaded again under a "
                                               "name without, it can"))
            continue
        ((name, late, user, attachment, file),) = readings
        kind = "anonymous" if user.startswith("anon_") else "lms_user_id"
        parsed.uploads.append(Upload(entry, Claim(kind, user, name, source=user), file,
                                     attempt="current", order=(0, attachment), late=late))
    return parsed


def moodle(archive: Archive, zone: tzinfo) -> Parsed:
    parsed = Parsed()
    for entry in archive.listing.entries:
        folder = _MOODLE_FOLDER.fullmatch(entry.parts[0]) if len(entry.parts) > 1 else None
        match = folder or (_MOODLE_FLAT.fullmatch(entry.name) if len(entry.parts) == 1 else None)
        if match is None:
            parsed.outside.append((entry.path, "not in a Moodle submission folder"))
            continue
        rest = "/".join(entry.parts[1:]) if folder else match["file"]
        kind = "anonymous" if match["name"] == "Participant" else "name"
        claim = Claim(kind, match["name"], f"participant {match['id']}", source=match["id"])
        if match["plugin"] != "file":
            rest = f"{match['plugin']}: {rest}"  # online text, comments: never a notebook
        parsed.uploads.append(Upload(entry, claim, rest, attempt="latest", order=(0, 0)))
    return parsed


def blackboard(archive: Archive, zone: tzinfo) -> Parsed:
    parsed = Parsed()
    receipts: dict[str, Claim | None] = {}
    files = []
    for entry in archive.listing.entries:
        attempt = _BLACKBOARD_ATTEMPT.search(entry.name) if len(entry.parts) == 1 else None
        # The first `_attempt_<date>` is the LMS's: the rest of the name, after `_`, is the student's file name.
        rest = entry.name[attempt.end():] if attempt else ""
        if attempt is None or not (rest == ".txt" or (rest.startswith("_") and len(rest) > 1)):
            parsed.outside.append((entry.path, "not named as Blackboard names attempt files"))
            continue
        stem, head = entry.name[:attempt.end()], entry.name[:attempt.start()]
        if rest == ".txt":
            parsed.lms_files.append(entry.path)
            receipts[stem] = _receipt(archive, entry)
        else:
            files.append((entry, stem, head, attempt["date"], rest[1:]))
    for entry, stem, head, date_text, file in files:
        claim = receipts.get(stem)
        if claim is None:
            # No readable receipt: the username is the end of `{Assignment}_{username}`, found in the roster.
            claim = Claim("username_tail", head)
        elif head != claim.value and not head.endswith("_" + claim.value):
            parsed.refused.append((entry.path, f"its receipt names the username {claim.value!r}, which its "
                                               "file names do not carry"))
            continue
        date = _time(date_text, "%Y-%m-%d-%H-%M-%S", zone)
        if date is None:
            parsed.outside.append((entry.path, "an attempt date that is not a date"))
            continue
        parsed.uploads.append(Upload(entry, claim, file, attempt=f"attempt-{date_text}", order=(date, 0), time=date))
    return parsed


def _receipt(archive: Archive, entry: Entry) -> Claim | None:
    """`Name: First Last (username)`, the receipt's first line (the rest holds the student's own text), or
    None when it is not there or cannot be read."""
    try:
        text = archive.read(entry)[:MAX_RECEIPT_BYTES].decode("utf-8", errors="replace")
    except EntryError:
        return None
    match = _BLACKBOARD_RECEIPT.fullmatch(text.lstrip("\ufeff").split("\n", 1)[0])
    return Claim("username", match["user"], match["name"], source=match["user"]) if match else None


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
        claim = Claim("name", match["name"], match["ids"], source=match["user"])
        parsed.uploads.append(Upload(entry, claim, "/".join(entry.parts[1:]),
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
