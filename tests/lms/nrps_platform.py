"""The loopback LTI platform with NRPS and deep linking (`autograder.demo_lms.advantage_platform`, which the demo
LMS shares), and the faults an LMS shows, for the tool's handling of untrusted answers: the whole platform down
until a time, access tokens expired mid-run, answers that are not JSON, and a paging link to another host
(127.0.0.2: the same server, so a request that followed it would be seen in `hosts`).
"""

from __future__ import annotations

import re
import time
import typing as t
from dataclasses import dataclass

from autograder.demo_lms.advantage_platform import AdvantagePlatform as Advantage

LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"


@dataclass
class Garble:
    """Answer requests matching `method` and `path` (a regular expression) with 200 and a body that is not JSON."""

    method: str
    path: str
    times: int = 1


def member(n: int, status: str = "Active", roles: tuple[str, ...] = (LEARNER,)) -> dict[str, t.Any]:
    return {"user_id": f"lti-{n:04d}", "status": status, "name": f"Student {n}", "given_name": "Student",
            "family_name": f"N{n:04d}", "email": f"s{n:04d}@uni.example", "roles": list(roles),
            "lis_person_sourcedid": f"S{n:04d}"}


class AdvantagePlatform(Advantage):
    """The Advantage platform with the faults above."""

    def __init__(self, *args: t.Any, **kwargs: t.Any) -> None:
        super().__init__(*args, **kwargs)
        self.down_until = 0.0  # time.monotonic() before which every request is answered 503
        self.garbles: list[Garble] = []
        self.foreign_next = False
        self.seen_tokens: set[str] = set()
        self.expired_tokens: set[str] = set()
        self.hosts: list[str] = []
        self.refusals: list[tuple[int, t.Any]] = []  # every answer >= 400, with its body

    def expire_tokens(self) -> None:
        """Every access token handed out so far expires now (as after an hour-long run). lti1p3platform's
        tokens hold whole seconds only: the next second is waited for, so the next token differs."""
        self.expired_tokens |= self.seen_tokens
        time.sleep(1 - time.time() % 1)

    def next_page_origin(self) -> str:
        return f"http://127.0.0.2:{self.server.server_address[1]}" if self.foreign_next else self.base

    # ---- HTTP ---------------------------------------------------------------------------------------

    def _send(self, handler, status: int, payload: t.Any, media_type: str | None = None,
              headers: dict[str, str] | None = None) -> None:
        if status >= 400:
            self.refusals.append((status, payload))
        super()._send(handler, status, payload, media_type, headers)

    def _route(self, handler, method: str, path: str, query: dict[str, str], raw: str) -> None:
        self.hosts.append(handler.headers.get("Host", ""))
        if time.monotonic() < self.down_until:
            return self._send(handler, 503, {"error": "down for maintenance"}, headers={"Retry-After": "1"})
        for garble in self.garbles:
            if garble.times and garble.method == method and re.fullmatch(garble.path, path):
                garble.times -= 1
                return self._send(handler, 200, b"<html><body>Service Unavailable</body></html>", "text/html")
        auth = (handler.headers.get("Authorization") or "").split()
        if len(auth) == 2:
            if auth[1] in self.expired_tokens:
                return self._send(handler, 401, {"error": "access token expired"})
            self.seen_tokens.add(auth[1])
        return super()._route(handler, method, path, query, raw)
