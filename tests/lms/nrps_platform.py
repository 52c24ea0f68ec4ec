"""The loopback LTI platform with NRPS and deep linking (`devtools.demo_lms.advantage_platform`, which the demo
LMS shares), and the faults an LMS shows, for the tool's handling of untrusted answers: the whole platform down
until a time, access tokens expired mid-run, answers that are not JSON, and a paging link to another host
(127.0.0.2: the same server, so a request that followed it would be seen in `hosts`). `registered` serves it
with a course folder as its tool (the tests' LMS course, the watcher's course, the benchmark's).
"""

from __future__ import annotations

import contextlib
import re
import time
import typing as t
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from autograder.devtools.demo_lms.advantage_platform import AdvantagePlatform as Advantage
from autograder.lms.lms_settings import load
from autograder.lms.lti import jwks

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


def lti_settings(lms: AdvantagePlatform, poll_seconds: float = 0.05) -> str:
    return f"""
[lti]
issuer = "{lms.issuer}"
client_id = "{lms.client_id}"
deployment_ids = ["{lms.deployment_id}"]
token_url = "{lms.token_url}"
lineitems_url = "{lms.base}/lineitems"
memberships_url = "{lms.memberships_url}"
user_id = "lti_user_id"

[push]
retries = 2
backoff_seconds = 0.01
poll_seconds = {poll_seconds:g}
"""


@contextlib.contextmanager
def registered(root: Path, tool_private: str, platform_keys: tuple[str, str],
               poll_seconds: float = 0.05) -> Iterator[AdvantagePlatform]:
    """The platform on loopback, with the course at `root` as its tool (its `[lti]` added to lms.toml); the
    course's settings as `lms.settings` and the tool's private key as `lms.tool_key`."""
    with AdvantagePlatform(*platform_keys, tool_jwks=jwks(tool_private)) as lms:
        path = root / "lms.toml"
        path.write_text((path.read_text() if path.exists() else "") + lti_settings(lms, poll_seconds))
        lms.settings = load(root, required=True)
        lms.tool_key = tool_private
        yield lms
