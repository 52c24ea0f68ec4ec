"""nbgrader's exchange as a service of the hub, for students who all run as one OS user (Zero to JupyterHub gives
every pod uid 1000): nothing of the exchange is shared with their servers, and file modes keep no one apart. A
student's nbgrader (exchange_client.py) hands in, fetches and lists through this service with their own hub token;
who they are is the hub's answer for that token, never anything the request says.

The service writes what the watcher and `nbgrader collect` read, in nbgrader's layout, in a folder only it and the
watcher reach: `<exchange root>/<course>/inbound/<student>+<assignment>+<time>+<random>/`, with `timestamp.txt`
and `submission_secret.txt` of its own (its clock, its secret: the student's side sends neither). A submission is
built in `<course>/.incoming/` and renamed into `inbound/` whole, then given nbgrader's last mark (the folder
writable by all, inside a folder closed to all), so the watcher sees it complete or not at all.

Refused, in one line each, with nothing written: a token the hub does not accept (forged, expired, revoked), a
token without access to this course's service (another course's student, a service), a submission past the
course's bounds (`CourseDirectory.max_dir_size`, `max_file_size` and `FolderBounds`), more than `FLOOD_SUBMISSIONS`
from one student within `FLOOD_SECONDS`. Feedback is looked up from the student's own submissions' secrets alone.

Run by the hub in the course folder, as the user the watcher runs as (services.py: `exchange_service`).
"""

import hashlib
import json
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
import time
from collections import defaultdict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from autograder.course.submitted import (
    TIMESTAMP_FILE,
    FolderBounds,
    UnsafeFile,
    read_bytes_beneath,
    shown,
    valid_student_id,
)
from autograder.hub.exchange_wire import TooLarge, WireError, as_json, decode, read_folder, write_folder
from autograder.watch.exchange import NBGRADER_TIME, SECRET_FILE, Uncollectable, name_parts

# A student's submissions accepted within FLOOD_SECONDS, past which the next is refused until the oldest ages out:
# far above any honest pace (the watcher's attempt limit, c.AutograderWatch.attempts, is what counts attempts).
FLOOD_SUBMISSIONS = 10
FLOOD_SECONDS = 60.0
# base64 takes 4 bytes for 3; the JSON around it, the names. A body past this is not read at all.
BODY_SLACK = 256 * 1024
STAGING = ".incoming"
WRITTEN_BY_SERVICE = (TIMESTAMP_FILE, SECRET_FILE)
PRIVATE = 0o007  # the course's folder in the exchange: nothing for other users (the instructors' group may keep)
TOKEN = re.compile(r"(?:token|bearer) +([\x21-\x7e]{1,1024})", re.IGNORECASE)


class Refused(Exception):
    """A request refused; `status` is its HTTP status, the message one line for the student."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class ServiceError(Exception):
    """The service cannot start; one line."""


@dataclass
class ExchangeFolder:
    """The course's folder in the exchange, as the service reads and writes it."""

    folder: Path  # <exchange root>/<course id>
    course_id: str
    bounds: FolderBounds
    ignore: list[str] = field(default_factory=list)
    accepted: dict[str, deque[float]] = field(default_factory=lambda: defaultdict(deque))

    @property
    def inbound(self) -> Path:
        return self.folder / "inbound"

    @property
    def outbound(self) -> Path:
        return self.folder / "outbound"

    @property
    def feedback(self) -> Path:
        return self.folder / "feedback"

    @property
    def body_limit(self) -> int:
        return self.bounds.total_bytes * 4 // 3 + BODY_SLACK

    def make_private(self) -> None:
        """The course's folder (made when missing) closed to other users (its group, the watcher's, keeps what it
        has), with inbound/ and .incoming/ in it;
        ServiceError for one that is a link or someone else's (a student could have made it to read it)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        info = os.lstat(self.folder)
        if stat.S_ISLNK(info.st_mode) or info.st_uid != os.geteuid():
            what = "a link" if stat.S_ISLNK(info.st_mode) else f"owned by uid {info.st_uid}"
            raise ServiceError(f"{self.folder} is {what}, not this service's: remove it and start the service again")
        os.chmod(self.folder, stat.S_IMODE(info.st_mode) & ~PRIVATE)
        for path in (self.inbound, self.folder / STAGING):
            path.mkdir(mode=0o750, exist_ok=True)  # the group: a watcher of another uid in the same pod

    def check_flood(self, student: str, now: float) -> None:
        recent = self.accepted[student]
        while recent and now - recent[0] >= FLOOD_SECONDS:
            recent.popleft()
        if len(recent) >= FLOOD_SUBMISSIONS:
            wait = int(FLOOD_SECONDS - (now - recent[0])) + 1
            raise Refused(429, f"{student}: {len(recent)} submissions in the last {FLOOD_SECONDS:g} s, the most "
                               f"accepted: nothing written; submit again in {wait} s")

    def released(self) -> list[str]:
        try:
            return sorted(name for name in os.listdir(self.outbound) if valid_student_id(name)
                          and (self.outbound / name).is_dir() and not (self.outbound / name).is_symlink())
        except FileNotFoundError:
            return []

    def released_files(self, assignment: str) -> dict[str, bytes]:
        if assignment not in self.released():
            raise Refused(404, f"{assignment!r} is not released in {self.course_id}")
        return read_folder(self.outbound / assignment, self.ignore, self.bounds)

    def submit(self, student: str, assignment: str, body: bytes, now: datetime) -> dict[str, str]:
        """Write the submission in `body` (exchange_wire's JSON) as `student`'s at `now`; its name and time."""
        if assignment not in self.released():
            raise Refused(404, f"{assignment!r} is not released in {self.course_id}: nothing written")
        try:
            files = decode(body, self.bounds)
        except WireError as exc:
            raise Refused(413 if isinstance(exc, TooLarge) else 400, f"{exc}: nothing written") from None
        for name in WRITTEN_BY_SERVICE:
            if any(path.parts[0] == name for path in files):
                raise Refused(400, f"{name}: written by the exchange service, not sent: nothing written")
        stamp = now.strftime(NBGRADER_TIME)
        name = f"{student}+{assignment}+{stamp}+{secrets.token_urlsafe(9)}"
        build = Path(tempfile.mkdtemp(prefix="submission-", dir=self.folder / STAGING))
        try:
            try:
                write_folder(build, files)
            except OSError as exc:
                raise Refused(400, f"{shown(str(exc.filename or ''))}: cannot be written ({exc.strerror}): "
                                   "nothing written") from None
            (build / TIMESTAMP_FILE).write_text(stamp)
            (build / SECRET_FILE).write_text(secrets.token_hex(64))
            os.chmod(build, 0o755)
            os.rename(build, self.inbound / name)
        except BaseException:
            shutil.rmtree(build, ignore_errors=True)
            raise
        # nbgrader submit's last step, which the watcher waits for; the folder above keeps everyone out.
        os.chmod(self.inbound / name, 0o777)
        self.accepted[student].append(time.monotonic())
        return {"student": student, "assignment": assignment, "timestamp": stamp, "name": name}

    def own(self, student: str, assignment: str | None = None) -> list[tuple[str, str, str]]:
        """(name, assignment, time) of each of `student`'s submissions in inbound/, oldest first."""
        found = []
        for name in os.listdir(self.inbound):
            try:
                owner, made_for, stamp = name_parts(name)
            except Uncollectable:
                continue
            if owner == student and (assignment is None or made_for == assignment):
                found.append((name, made_for, stamp))
        return sorted(found, key=lambda entry: entry[2])

    def pages(self, name: str) -> dict[str, bytes | None]:
        """Each notebook of the submission `name` and its feedback page (None: none released yet), found by the
        submission's own secret as nbgrader's `release_feedback` names it."""
        from nbgrader.utils import notebook_hash

        folder = self.inbound / name
        try:
            secret = read_bytes_beneath(folder, Path(SECRET_FILE), 1024).decode("ascii").strip()
        except (UnsafeFile, UnicodeDecodeError):
            return {}
        found: dict[str, bytes | None] = {}
        for notebook in sorted(os.listdir(folder)):
            if not notebook.endswith(".ipynb"):
                continue
            notebook_id = notebook[: -len(".ipynb")]
            page = f"{notebook_hash(secret=secret, notebook_id=notebook_id)}.html"
            try:
                found[notebook_id] = read_bytes_beneath(self.feedback, Path(page), self.bounds.file_bytes)
            except UnsafeFile:
                found[notebook_id] = None
        return found

    def submissions(self, student: str) -> list[dict]:
        """`student`'s submissions, each notebook with its feedback page's MD5 (nbgrader's `list` compares it with
        the copy the student fetched), None for no page yet."""
        return [{"assignment": assignment, "timestamp": stamp,
                 "notebooks": {notebook: None if page is None else hashlib.md5(page).hexdigest()
                               for notebook, page in self.pages(name).items()}}
                for name, assignment, stamp in self.own(student)]

    def feedback_of(self, student: str, assignment: str) -> dict[str, list[dict]]:
        return {"feedback": [
            {"timestamp": stamp, "pages": as_json({notebook: page for notebook, page in self.pages(name).items()
                                                   if page is not None})}
            for name, _, stamp in self.own(student, assignment)]}


def exchange_folder(course: Path) -> ExchangeFolder:
    """The exchange folder of the course in `course` (its nbgrader_config.py: course id, `c.Exchange.root`,
    the bounds); ServiceError when the course's watcher would refuse what the service writes."""
    from autograder.collect.exchange_collect import course_bounds
    from autograder.course.settings import SettingsError, read_course
    from autograder.watch.attempt_policy import PolicyError, read_policy
    from autograder.watch.exchange import Exchange

    try:
        settings = read_course(course)
        policy = read_policy(settings.coursedir.config)
    except (SettingsError, PolicyError) as exc:
        raise ServiceError(str(exc)) from None
    if not settings.course_id:
        raise ServiceError(f"{course / 'nbgrader_config.py'} sets no c.CourseDirectory.course_id")
    if policy.check_owner:
        # Every folder the service writes is its own user's: the watcher's owner check would refuse them all.
        raise ServiceError(f"{course / 'nbgrader_config.py'}: set c.CollectApp.check_owner = False (the exchange "
                           "service names each submission's student from the hub's token, not from its owner)")
    root = Exchange.from_config(settings.coursedir.config, settings.course_id).root
    return ExchangeFolder(root / settings.course_id, settings.course_id, course_bounds(settings.coursedir),
                          list(settings.coursedir.ignore))


def main() -> None:
    from jupyterhub.services.auth import HubAuth
    from tornado import web

    from autograder.hub.service_app import serve

    try:
        exchange = exchange_folder(Path.cwd())
        exchange.make_private()
    except (ServiceError, OSError) as exc:
        print(f"autograder exchange service: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    # Every request asks the hub (use_cache=False): a token revoked or expired is refused at once, not after the
    # minutes HubAuth would cache its answer.
    auth = HubAuth()
    service = os.environ.get("JUPYTERHUB_SERVICE_NAME", "this service")

    async def student_of(headers: Mapping[str, str]) -> str:
        """The student a request's token is for; Refused (one line) for any other token."""
        match = TOKEN.fullmatch(headers.get("Authorization", ""))
        if match is None:
            raise Refused(401, "no hub token sent (Authorization: token ...)")
        try:
            model = await auth.user_for_token(match[1], use_cache=False, sync=False)
        except web.HTTPError:  # HubAuth's word for a hub it cannot reach or that answered with an error
            raise Refused(503, "the hub did not answer the exchange service: nothing was done; try again later"
                          ) from None
        if model is None:
            raise Refused(403, "the hub does not accept this token (forged, expired or revoked): log in again")
        name = str(model.get("name", ""))
        if model.get("kind", "user") != "user" or not auth.check_scopes(auth.access_scopes, model):
            raise Refused(403, f"{shown(name)} is not a student of {exchange.course_id} (the token gives no access "
                               f"to {service})")
        if not valid_student_id(name):
            raise Refused(403, f"{shown(name)}: not a user name nbgrader can file a submission under")
        return name

    class Api(web.RequestHandler):
        student = ""

        async def prepare(self) -> None:
            try:
                self.student = await student_of(self.request.headers)
            except Refused as exc:
                self.refuse(exc)

        def refuse(self, refusal: Refused) -> None:
            self.set_status(refusal.status)
            self.set_header("Content-Type", "application/json")
            self.finish(json.dumps({"error": str(refusal)}))

        def answer(self, work: Callable[..., object], *args: object) -> None:
            try:
                value = work(*args)
            except Refused as exc:
                self.refuse(exc)
                return
            self.set_header("Content-Type", "application/json")
            self.set_header("Cache-Control", "no-store")
            self.finish(json.dumps(value))

    class Released(Api):
        def get(self, assignment: str = "") -> None:
            if not assignment:
                self.answer(lambda: {"assignments": exchange.released()})
            else:
                self.answer(lambda: {"files": as_json(exchange.released_files(assignment))})

    @web.stream_request_body
    class Submissions(Api):
        """A submission's body is read even when it is refused (and dropped, up to 4 times the bound), so the
        student's side reads the one line saying why rather than a connection cut mid-upload."""

        refusal: Refused | None = None

        async def prepare(self) -> None:
            if self.request.method != "POST":
                await super().prepare()
                return
            self.body = bytearray()
            length = int(self.request.headers.get("Content-Length", "-1") or -1)
            if length > 4 * exchange.body_limit:
                self.refuse(Refused(413, self.past_bound()))  # not even read
                return
            self.request.connection.set_max_body_size(max(length, 0))
            try:
                self.student = await student_of(self.request.headers)
                exchange.check_flood(self.student, time.monotonic())
                if length < 0:
                    raise Refused(411, "a submission must say its length (Content-Length): nothing written")
                if length > exchange.body_limit:
                    raise Refused(413, self.past_bound())
            except Refused as exc:
                self.refusal = exc

        def past_bound(self) -> str:
            return (f"the submission is larger than {exchange.bounds.total_bytes // 1000} kB, the bound of "
                    f"{exchange.course_id}: nothing written")

        def data_received(self, chunk: bytes) -> None:
            if self.refusal is None:
                self.body += chunk

        def get(self) -> None:
            self.answer(lambda: {"student": self.student, "submissions": exchange.submissions(self.student)})

        def post(self, assignment: str = "") -> None:
            if self.refusal is not None:
                self.refuse(self.refusal)
                return
            self.answer(exchange.submit, self.student, assignment, bytes(self.body),
                        datetime.now(UTC).replace(tzinfo=None))

    class Feedback(Api):
        def get(self, assignment: str) -> None:
            self.answer(exchange.feedback_of, self.student, assignment)

    name = r"([\w][\w.@-]{0,99})"
    serve([("released", Released), (f"released/{name}", Released), ("submissions", Submissions),
           (f"submissions/{name}", Submissions), (f"feedback/{name}", Feedback)])


if __name__ == "__main__":
    main()
