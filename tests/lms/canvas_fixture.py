"""A local HTTP stand-in for Canvas's documented REST API (Canvas itself cannot run here).

It serves only the endpoints a grade push uses, as Canvas documents them (Submissions API, Progress
API), keeps the submissions it was given, and asserts the method, path, query and form fields of
every request; anything else is recorded as a violation that the tests check is empty. Faults
(status codes, failed jobs) are queued by the tests.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from autograder.devtools.demo_lms.loopback_server import LoopbackServer

GRADE_KEY = re.compile(r"grade_data\[(\d+)\]\[(posted_grade|text_comment)\]")


@dataclass
class Fault:
    method: str
    path: str  # regular expression on the path
    status: int = 500
    body: str = '{"errors": [{"message": "Internal Server Error"}]}'
    headers: dict[str, str] = field(default_factory=dict)
    times: int = 1  # how many matching requests fail


@dataclass
class Job:
    id: int
    grades: dict[str, dict[str, str]]
    fail: bool = False
    apply_only: int | None = None  # a failed job may still have applied the first N grades
    state: str = "queued"


class FakeCanvas(LoopbackServer):
    METHODS = ("GET", "POST", "PUT")
    MEDIA_TYPE = "application/json; charset=utf-8"

    def __init__(self, token: str, course_id: int, assignments: dict[int, float], users: list[str]) -> None:
        self.token = token
        self.course_id = course_id
        self.assignments = assignments
        # (assignment id, user id) -> {"score": float | None, "comments": [str]}
        self.submissions = {(a, u): {"score": None, "comments": []} for a in assignments for u in users}
        self.requests: list[tuple[str, str]] = []
        self.bulk_posts: list[dict[str, dict[str, str]]] = []
        self.violations: list[str] = []
        self.faults: list[Fault] = []
        self.jobs: dict[int, Job] = {}
        self.next_job_fails: list[tuple[bool, int | None]] = []
        self.bulk_fail_after: int | None = None  # accept this many bulk updates, then answer 500 to each
        self.lock = threading.Lock()
        super().__init__()

    def score(self, assignment: int, user: str) -> float | None:
        return self.submissions[(assignment, user)]["score"]

    def comments(self, assignment: int, user: str) -> list[str]:
        return self.submissions[(assignment, user)]["comments"]

    # ---- request handling -------------------------------------------------------------------------

    def _violation(self, handler, message: str) -> None:
        self.violations.append(message)
        self._send(handler, 400, {"errors": [{"message": message}]})

    def _dispatch(self, handler, method: str) -> None:
        parts = urlsplit(handler.path)
        path, query = parts.path, parse_qs(parts.query)
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length).decode() if length else ""
        with self.lock:
            self.requests.append((method, path))
            if handler.headers.get("Authorization") != f"Bearer {self.token}":
                self._send(handler, 401, {"errors": [{"message": "Invalid access token."}]},
                           headers={"WWW-Authenticate": 'Bearer realm="canvas-lms"'})
                return
            for fault in self.faults:
                if fault.times and fault.method == method and re.fullmatch(fault.path, path):
                    fault.times -= 1
                    self._send(handler, fault.status, fault.body.encode(), headers=fault.headers)
                    return
            self._route(handler, method, path, query, raw)

    def _route(self, handler, method: str, path: str, query: dict[str, list[str]], raw: str) -> None:
        base = f"/api/v1/courses/{self.course_id}"
        if method == "GET" and path == base:
            return self._send(handler, 200, {"id": self.course_id, "name": "RNN course"})
        match = re.fullmatch(rf"{base}/assignments/(\d+)(/submissions(/update_grades)?)?", path)
        if match:
            assignment = int(match.group(1))
            if assignment not in self.assignments:
                return self._send(handler, 404, {"errors": [{"message": "The specified resource does not exist."}]})
            if method == "GET" and not match.group(2):
                return self._send(handler, 200, {"id": assignment, "course_id": self.course_id,
                                                 "points_possible": self.assignments[assignment]})
            if method == "GET" and match.group(2) and not match.group(3):
                if query.get("include[]") != ["submission_comments"]:
                    return self._violation(handler, f"no include[]=submission_comments: {query}")
                return self._send(handler, 200, [
                    {"id": index, "assignment_id": assignment, "user_id": int(user), "score": sub["score"],
                     "submission_comments": [{"comment": c} for c in sub["comments"]]}
                    for index, ((a, user), sub) in enumerate(sorted(self.submissions.items())) if a == assignment
                ])
            if method == "POST" and match.group(3):
                return self._bulk(handler, assignment, handler.headers.get("Content-Type", ""), raw)
        match = re.fullmatch(r"/api/v1/progress/(\d+)", path)
        if method == "GET" and match and int(match.group(1)) in self.jobs:
            return self._progress(handler, self.jobs[int(match.group(1))])
        self._violation(handler, f"unexpected request {method} {path}")

    def _bulk(self, handler, assignment: int, content_type: str, raw: str) -> None:
        """POST .../submissions/update_grades with grade_data[<user id>][posted_grade|text_comment]."""
        if self.bulk_fail_after is not None and len(self.bulk_posts) >= self.bulk_fail_after:
            return self._send(handler, 500, {"errors": [{"message": "Internal Server Error"}]})
        if not content_type.startswith("application/x-www-form-urlencoded"):
            return self._violation(handler, f"update_grades sent as {content_type!r}, not form fields")
        grades: dict[str, dict[str, str]] = {}
        for key, values in parse_qs(raw, keep_blank_values=True).items():
            match = GRADE_KEY.fullmatch(key)
            if not match or len(values) != 1:
                return self._violation(handler, f"unexpected form field {key!r}")
            grades.setdefault(match.group(1), {})[match.group(2)] = values[0]
        for user, fields in grades.items():
            if (assignment, user) not in self.submissions:
                return self._violation(handler, f"user {user} is not in the course")
            if "posted_grade" not in fields or not re.fullmatch(r"\d+(\.\d+)?", fields["posted_grade"]):
                return self._violation(handler, f"bad posted_grade for user {user}: {fields}")
        if not grades:
            return self._violation(handler, "update_grades with no grade_data")
        self.bulk_posts.append(grades)
        fail, apply_only = self.next_job_fails.pop(0) if self.next_job_fails else (False, None)
        job = Job(len(self.jobs) + 1, {f"{assignment}:{u}": g for u, g in grades.items()}, fail, apply_only)
        self.jobs[job.id] = job
        self._send(handler, 200, {"id": job.id, "workflow_state": "queued", "tag": "submissions_update",
                                  "url": f"{self.base}/api/v1/progress/{job.id}"})

    def _progress(self, handler, job: Job) -> None:
        if job.state == "queued":  # the job runs between two polls
            todo = list(job.grades.items())
            if job.fail:
                todo = todo[: job.apply_only or 0]
            for key, fields in todo:
                assignment, user = key.split(":")
                sub = self.submissions[(int(assignment), user)]
                sub["score"] = float(fields["posted_grade"])
                if fields.get("text_comment"):
                    sub["comments"].append(fields["text_comment"])
            job.state = "failed" if job.fail else "completed"
        self._send(handler, 200, {"id": job.id, "workflow_state": job.state, "tag": "submissions_update",
                                  "completion": 100 if job.state == "completed" else 50})
