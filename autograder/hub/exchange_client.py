"""The students' side of the exchange service (exchange_service.py): nbgrader's own exchange classes for submit,
fetch_assignment, fetch_feedback and list, with the exchange folder replaced by the service's API, so `nbgrader
submit`, `nbgrader fetch_assignment`, `nbgrader fetch_feedback`, `nbgrader list` and JupyterLab's Assignments panel
work as before. One setting turns them on, in the students' nbgrader configuration (docs: "The exchange service"):

    {"ExchangeFactory": {"submit": "autograder.hub.exchange_client.ServiceSubmit", ...}}

which `use_exchange_service(config)` writes. The service's address is `c.ServiceExchange.url` (by default
$AUTOGRADER_EXCHANGE_URL) and the student is whoever the hub says owns the token, `c.ServiceExchange.token` (by
default the server's $JUPYTERHUB_API_TOKEN). What the service refuses, and a service that does not answer, is
nbgrader's usual ExchangeError with one line; the student's files are never touched by a failed hand-in.
"""

import base64
import os
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

from nbgrader.exchange.default import Exchange as FolderExchange
from nbgrader.exchange.default import (
    ExchangeFetchAssignment,
    ExchangeFetchFeedback,
    ExchangeList,
    ExchangeSubmit,
)
from traitlets import Float, Unicode, default

from autograder.course.submitted import FolderBounds
from autograder.hub.exchange_wire import WireError, decode, encode, read_folder, relative_path, write_folder

URL_ENV = "AUTOGRADER_EXCHANGE_URL"
TOKEN_ENV = "JUPYTERHUB_API_TOKEN"
# What the client takes from the service: a released assignment or feedback page is held to the same bounds as a
# submission (the service is trusted to be the course's, not to be bug-free).
BOUNDS = FolderBounds()


class ServiceExchange(FolderExchange):
    """What the four classes share: the service's address and the student's token, and one way to call it."""

    url = Unicode(help="The course's exchange service, e.g. http://hub:8081/services/autograder-exchange-cs101/ "
                       f"(default: ${URL_ENV})").tag(config=True)
    token = Unicode(help=f"The student's hub token (default: ${TOKEN_ENV}, their server's)").tag(config=True)
    timeout = Float(120.0, help="Seconds to wait for the service").tag(config=True)

    @default("url")
    def _url_default(self) -> str:
        return os.environ.get(URL_ENV, "")

    @default("token")
    def _token_default(self) -> str:
        return os.environ.get(TOKEN_ENV, "")

    def ensure_root(self) -> None:
        """No exchange folder on the student's side."""

    def workspace(self) -> Path:
        """A folder of this run's own for what comes from the service, removed when the run ends."""
        if getattr(self, "_workspace", None) is None:
            self._workspace = tempfile.TemporaryDirectory(prefix="nbgrader-service-")
        return Path(self._workspace.name)

    def start(self) -> Any:
        try:
            return super().start()
        finally:
            if getattr(self, "_workspace", None) is not None:
                self._workspace.cleanup()
                self._workspace = None

    def call(self, method: str, path: str, doing: str, body: bytes | None = None) -> Any:
        """The service's JSON answer to `method path`; ExchangeError, one line, for a refusal or no answer.
        `doing` says what did not happen (`nothing was handed in`)."""
        import requests

        if not self.url:
            self.fail(f"no exchange service configured (c.ServiceExchange.url or ${URL_ENV}): {doing}")
        if not self.token:
            self.fail(f"no hub token (c.ServiceExchange.token or ${TOKEN_ENV}): {doing}")
        address = f"{self.url.rstrip('/')}/{path}"
        try:
            response = requests.request(method, address, data=body, timeout=self.timeout,
                                         headers={"Authorization": f"token {self.token}",
                                                  "Content-Type": "application/json"})
        except requests.RequestException as exc:
            self.fail(f"the course's exchange service at {self.url} did not answer ({type(exc).__name__}): "
                      f"{doing}; your files are as they were, try again later")
        try:
            answer = response.json()
        except ValueError:
            answer = {}
        if response.status_code != 200:
            why = answer.get("error") if isinstance(answer, dict) else None
            self.fail(f"the course's exchange service refused: {why or f'HTTP {response.status_code}'}"
                      + ("" if why and "nothing" in why else f": {doing}"))
        return answer

    def download(self, files: dict, dest: Path) -> None:
        """Write the service's `files` (exchange_wire's JSON) beneath `dest`, each name checked."""
        import json

        try:
            write_folder(dest, decode(json.dumps({"files": files}).encode(), BOUNDS))
        except (WireError, OSError) as exc:
            self.fail(f"the exchange service sent files that cannot be written here: {exc}")

    def course_needed(self) -> None:
        if not self.coursedir.course_id:
            self.fail("No course id specified. Re-run with --course flag.")


class ServiceSubmit(ServiceExchange, ExchangeSubmit):
    """`nbgrader submit`: the assignment's folder, as nbgrader would copy it (`CourseDirectory.ignore`, `include`,
    `max_file_size`, `max_dir_size`), sent to the service, which files it under the token's student at its time."""

    def init_dest(self) -> None:
        self.course_needed()

    def init_release(self) -> None:
        """The released assignment, for nbgrader's check of missing and extra notebooks."""
        answer = self.call("GET", f"released/{quote(self.coursedir.assignment_id)}", "nothing was handed in")
        self.release_path = str(self.workspace() / "released")
        self.download(answer.get("files", {}), Path(self.release_path))

    def copy_files(self) -> None:
        self.init_release()
        self.check_filename_diff()
        staged = self.workspace() / "submission"
        try:
            self.do_copy(self.src_path, str(staged))
        except RuntimeError as exc:  # nbgrader's own max_dir_size refusal
            self.fail(f"{self.src_path}: {exc}: nothing was handed in")
        try:
            files = read_folder(staged, [], BOUNDS)
        except OSError as exc:
            self.fail(f"{self.src_path}: cannot be read ({exc}): nothing was handed in")
        answer = self.call("POST", f"submissions/{quote(self.coursedir.assignment_id)}", "nothing was handed in",
                           encode(files))
        self.timestamp = answer["timestamp"]
        self.log.info("Submitted as: {} {} {}".format(self.coursedir.course_id, answer["assignment"],
                                                      answer["timestamp"]))


class ServiceFetchAssignment(ServiceExchange, ExchangeFetchAssignment):
    """`nbgrader fetch_assignment`: the released files from the service, then nbgrader's own copy into the
    student's folder (which refuses to overwrite a copy they already have)."""

    def init_src(self) -> None:
        self.course_needed()
        answer = self.call("GET", f"released/{quote(self.coursedir.assignment_id)}", "nothing was fetched")
        self.src_path = str(self.workspace() / self.coursedir.assignment_id)
        self.download(answer.get("files", {}), Path(self.src_path))


class ServiceFetchFeedback(ServiceExchange, ExchangeFetchFeedback):
    """`nbgrader fetch_feedback`: the pages the service finds for the token's student's own submissions, copied
    by nbgrader into `<assignment>/feedback/<time>/<notebook>.html`."""

    def init_src(self) -> None:
        self.course_needed()
        answer = self.call("GET", f"feedback/{quote(self.coursedir.assignment_id)}", "no feedback was fetched")
        self.src_path = self.url
        self.feedback_files = []
        for n, submission in enumerate(answer.get("feedback", [])):
            timestamp = str(submission.get("timestamp", ""))
            for notebook_id, page in submission.get("pages", {}).items():
                try:  # names of a folder and a file in the student's assignment
                    relative_path(timestamp, BOUNDS)
                    relative_path(f"{notebook_id}.html", BOUNDS)
                    data = base64.b64decode(page, validate=True)
                except (WireError, ValueError):
                    self.fail(f"the exchange service sent feedback that cannot be written here: {timestamp!r}, "
                              f"{notebook_id!r}")
                path = self.workspace() / f"{n}-{len(self.feedback_files)}.html"
                path.write_bytes(data)
                self.feedback_files.append((notebook_id, timestamp, str(path)))
                self.log.info(f"Found feedback for '{self.coursedir.course_id}/{self.coursedir.assignment_id}/"
                              f"{notebook_id}' submitted at {timestamp}")


class ServiceList(ServiceExchange, ExchangeList):
    """`nbgrader list` and the Assignments panel: released assignments, and with `--inbound` or `--cached` the
    token's student's own submissions with their feedback's state, in nbgrader's own shapes."""

    def init_dest(self) -> None:
        self.course_needed()

    def parse_assignments(self) -> list[dict]:
        if self.inbound or self.cached:
            return self._submitted()
        course = self.coursedir.course_id
        found = []
        for assignment in self.call("GET", "released", "nothing was listed")["assignments"]:
            if self.coursedir.assignment_id and assignment != self.coursedir.assignment_id:
                continue
            local = self._local(assignment)
            info = {"course_id": course, "assignment_id": assignment}
            if local.exists():
                info.update(status="fetched", path=str(local.resolve()),
                            notebooks=[{"notebook_id": nb.stem, "path": str(nb.resolve())}
                                       for nb in sorted(local.glob("*.ipynb"))])
            else:
                info.update(status="released", path="", notebooks=[])
            found.append(info)
        return found

    def _local(self, assignment: str) -> Path:
        parts = [self.coursedir.course_id] if self.path_includes_course else []
        return Path(self.assignment_dir, *parts, assignment)

    def _submitted(self) -> list[dict]:
        import hashlib

        answer = self.call("GET", "submissions", "nothing was listed")
        course, student = self.coursedir.course_id, answer["student"]
        grouped: dict[str, list[dict]] = {}
        for submission in answer["submissions"]:
            assignment, timestamp = submission["assignment"], submission["timestamp"]
            if self.coursedir.assignment_id and assignment != self.coursedir.assignment_id:
                continue
            feedback_dir = self._local(assignment) / "feedback" / timestamp
            notebooks = []
            for notebook_id, checksum in submission["notebooks"].items():
                local = feedback_dir / f"{notebook_id}.html"
                has_local = local.is_file()
                notebooks.append({
                    "notebook_id": notebook_id, "path": "", "has_local_feedback": has_local,
                    "has_exchange_feedback": checksum is not None,
                    "local_feedback_path": str(local) if has_local else None,
                    "feedback_updated": has_local and checksum is not None
                    and hashlib.md5(local.read_bytes()).hexdigest() != checksum})
            has_local = bool(notebooks) and all(nb["has_local_feedback"] for nb in notebooks)
            grouped.setdefault(assignment, []).append({
                "course_id": course, "student_id": student, "assignment_id": assignment, "timestamp": timestamp,
                "status": "submitted", "path": "", "notebooks": notebooks,
                "has_local_feedback": has_local,
                "has_exchange_feedback": bool(notebooks) and all(nb["has_exchange_feedback"] for nb in notebooks),
                "feedback_updated": any(nb["feedback_updated"] for nb in notebooks),
                "local_feedback_path": str(feedback_dir.resolve()) if has_local else None})
        return [{"course_id": course, "student_id": student, "assignment_id": assignment, "status": "submitted",
                 "submissions": submissions} for assignment, submissions in sorted(grouped.items())]

    def remove_files(self) -> Any:
        self.fail("removing a released assignment or a submission is the instructors', not done through the "
                  "exchange service")


CLASSES = {"submit": ServiceSubmit, "fetch_assignment": ServiceFetchAssignment,
           "fetch_feedback": ServiceFetchFeedback, "list": ServiceList}


def use_exchange_service(config: Any, url: str | None = None) -> None:
    """Set a student's nbgrader `config` (a traitlets Config, `c` in nbgrader_config.py) to hand in and fetch
    through the service at `url` (None: $AUTOGRADER_EXCHANGE_URL when nbgrader runs)."""
    for name, cls in CLASSES.items():
        config.ExchangeFactory[name] = f"{cls.__module__}.{cls.__qualname__}"
    if url:
        config.ServiceExchange.url = url
