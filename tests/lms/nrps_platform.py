"""The loopback LTI platform (`lti_platform.LoopbackPlatform`) with the rest of LTI Advantage a course needs:
Names and Role Provisioning Services and Deep Linking, and the faults an LMS shows.

lti1p3platform gives the platform's side of deep linking (the request's settings claim, `LtiDeepLinking`,
and `validate_deeplinking_resp`, which checks the tool's signature against its JWKS) and NRPS's claim, but no
membership endpoint: the membership container here is written from the NRPS 2.0 spec
(https://www.imsglobal.org/spec/lti-nrps/v2p0: `members`, `context`, paging by `Link: <...>; rel="next"`),
with the access token checked by lti1p3platform (`validate_token`, the NRPS scope). Strictness it lacks,
added here: the deep linking response's `aud` is the platform, `iss` the client id, its deployment and
`data` are the request's, a nonce is present, a line item has a label and scoreMaximum > 0; a content item
with a `lineItem` makes one (as Canvas and Moodle do on a deep link), with its resourceId, tag and
`submission.endDateTime` kept.

Faults, for the tool's handling of untrusted answers: the whole platform down until a time, access tokens
expired mid-run, answers that are not JSON, and a paging link to another host (127.0.0.2: the same server,
so a request that followed it would be seen in `hosts`).
"""

from __future__ import annotations

import json
import re
import time
import typing as t
from dataclasses import dataclass
from urllib.parse import parse_qsl

import jwt
from lti1p3platform.deep_linking import LtiDeepLinking

from autograder.demo_lms.lti_platform import LoopbackPlatform, Platform

NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
MEMBERSHIP_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
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


class AdvantagePlatform(LoopbackPlatform):
    """LoopbackPlatform with NRPS, deep linking and the faults above."""

    def __init__(self, *args: t.Any, deployment_id: str = "deployment-1", page_size: int = 100,
                 **kwargs: t.Any) -> None:
        super().__init__(*args, **kwargs)
        self.deployment_id = deployment_id
        self.page_size = page_size
        self.members: list[dict[str, t.Any]] = []
        self.context = {"id": "course-1", "label": "RNN", "title": "RNN hidden state"}
        self.down_until = 0.0  # time.monotonic() before which every request is answered 503
        self.garbles: list[Garble] = []
        self.foreign_next = False
        self.seen_tokens: set[str] = set()
        self.expired_tokens: set[str] = set()
        self.hosts: list[str] = []
        self.links: list[dict[str, t.Any]] = []  # content items the tool linked, in order
        self.sent_data: dict[str, str] = {}
        self.refusals: list[tuple[int, t.Any]] = []  # every answer >= 400, with its body

    @property
    def memberships_url(self) -> str:
        return f"{self.base}/members"

    @property
    def return_url(self) -> str:
        return f"{self.base}/deep_link_return"

    def expire_tokens(self) -> None:
        """Every access token handed out so far expires now (as after an hour-long run). lti1p3platform's
        tokens hold whole seconds only: the next second is waited for, so the next token differs."""
        self.expired_tokens |= self.seen_tokens
        time.sleep(1 - time.time() % 1)

    def deep_linking_request(self, user: str = "instructor-1") -> dict[str, t.Any]:
        """The claims of an LtiDeepLinkingRequest as the tool has them once the launch is validated: the
        deep linking settings from lti1p3platform, an opaque `data` the response must echo, the AGS claim."""
        data = f"dl-{len(self.sent_data) + 1}"
        self.sent_data[data] = data
        claims = {
            "iss": self.issuer, "aud": self.client_id, "sub": user,
            "https://purl.imsglobal.org/spec/lti/claim/message_type": "LtiDeepLinkingRequest",
            "https://purl.imsglobal.org/spec/lti/claim/version": "1.3.0",
            "https://purl.imsglobal.org/spec/lti/claim/deployment_id": self.deployment_id,
            "https://purl.imsglobal.org/spec/lti/claim/context": self.context,
            "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
                "scope": ["https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"],
                "lineitems": f"{self.base}/lineitems"},
        }
        claims.update(LtiDeepLinking(self.return_url).get_lti_deep_linking_launch_claim(
            title="Add an assignment", accept_types={"ltiResourceLink"}, extra_data=data))
        return claims

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
        if path == "/members" and method == "GET":
            return self._members(handler, query, auth)
        if path == "/deep_link_return" and method == "POST":
            return self._deep_link_return(handler, raw)
        return super()._route(handler, method, path, query, raw)

    def _members(self, handler, query: dict[str, str], auth: list[str]) -> None:
        platform = Platform(registration=self.registration)
        platform.get_registration()
        if len(auth) != 2 or not platform.validate_token(auth[1], [NRPS_SCOPE]):
            return self._reject(handler, "membership asked without a valid NRPS token", 401)
        if MEMBERSHIP_TYPE not in (handler.headers.get("Accept") or ""):
            return self._reject(handler, f"membership asked with Accept {handler.headers.get('Accept')!r}")
        page = int(query.get("page", "1"))
        start = (page - 1) * self.page_size
        body = {"id": f"{self.base}/members", "context": self.context,
                "members": self.members[start:start + self.page_size]}
        headers = {}
        if start + self.page_size < len(self.members):
            host = "127.0.0.2" if self.foreign_next else "127.0.0.1"
            headers["Link"] = f'<http://{host}:{self.server.server_address[1]}/members?page={page + 1}>; rel="next"'
        self._send(handler, 200, body, MEMBERSHIP_TYPE, headers)

    def _deep_link_return(self, handler, raw: str) -> None:
        form = dict(parse_qsl(raw))
        token = form.get("JWT", "")
        platform = Platform(registration=self.registration)
        platform.get_registration()
        try:
            platform.validate_deeplinking_resp(form)  # lti1p3platform: the tool's signature, type, content types
            kid = jwt.get_unverified_header(token).get("kid")
            claims = jwt.decode(token, self.tool_keys[kid].key, algorithms=["RS256"], audience=self.issuer,
                                options={"require": ["iss", "aud", "exp", "iat", "nonce"]})
        except Exception as exc:
            return self._reject(handler, f"deep linking response rejected: {type(exc).__name__}: {exc}")
        if claims["iss"] != self.client_id:
            return self._reject(handler, "deep linking response iss is not the client id")
        if claims.get("https://purl.imsglobal.org/spec/lti/claim/deployment_id") != self.deployment_id:
            return self._reject(handler, "deep linking response from another deployment")
        data = claims.get("https://purl.imsglobal.org/spec/lti-dl/claim/data")
        if data not in self.sent_data:
            return self._reject(handler, f"deep linking response data {data!r} was not sent")
        items = claims.get("https://purl.imsglobal.org/spec/lti-dl/claim/content_items") or []
        for item in items:
            if item.get("type") != "ltiResourceLink" or not item.get("url"):
                return self._reject(handler, f"content item without type or url: {item}")
            line = item.get("lineItem")
            if line is not None:
                maximum = line.get("scoreMaximum")
                if not isinstance(maximum, int | float) or maximum <= 0 or not line.get("label"):
                    return self._reject(handler, f"line item needs a label and scoreMaximum > 0: {line}")
                number = str(max((int(n) for n in self.store.lineitems), default=0) + 1)
                created = {k: line[k] for k in ("label", "scoreMaximum", "resourceId", "tag") if k in line}
                created["id"] = f"{self.base}/lineitems/{number}"
                created["resourceLinkId"] = f"link-{len(self.links) + 1}"
                if "endDateTime" in (item.get("submission") or {}):
                    created["endDateTime"] = item["submission"]["endDateTime"]
                self.store.lineitems[number] = created
            self.links.append(item)
        self._send(handler, 200, json.dumps({"linked": len(items)}).encode(), "application/json")
