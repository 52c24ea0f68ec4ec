"""The loopback LTI platform (`lti_platform.LoopbackPlatform`) with the rest of LTI Advantage a course needs:
Names and Role Provisioning Services and Deep Linking. The demo LMS is one (demo_platform.py); the tests' platform
with faults (tests/lms/nrps_platform.py) is another.

lti1p3platform gives the platform's side of deep linking (the request's settings claim, `LtiDeepLinking`,
and `validate_deeplinking_resp`, which checks the tool's signature against its JWKS) and NRPS's claim, but no
membership endpoint: the membership container here is written from the NRPS 2.0 spec
(https://www.imsglobal.org/spec/lti-nrps/v2p0: `members`, `context`, paging by `Link: <...>; rel="next"`),
with the access token checked by lti1p3platform (`validate_token`, the NRPS scope). Strictness it lacks,
added here: the deep linking response's `aud` is the platform, `iss` the client id, its deployment and
`data` are the request's, a nonce is present, a line item has a label and scoreMaximum > 0; a content item
with a `lineItem` makes one (as Canvas and Moodle do on a deep link), with its resourceId, tag and
`submission.endDateTime` kept.
"""

from __future__ import annotations

import json
import typing as t
from dataclasses import dataclass
from urllib.parse import parse_qsl

import jwt
from lti1p3platform.deep_linking import LtiDeepLinking

from .lti_platform import LoopbackPlatform, Platform

NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
MEMBERSHIP_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"


@dataclass(frozen=True)
class ResourceLink:
    """A link the tool made by deep linking: what the LMS course page then shows."""

    id: str
    context_id: str
    title: str
    assignment: str  # the content item's custom `assignment` ("" when it names none)
    lineitem: str | None  # the number of the line item it created, if it created one


class AdvantagePlatform(LoopbackPlatform):
    """LoopbackPlatform with NRPS (`GET /members`, the course `context` and its `members`; a subclass may serve
    others by `membership`) and the deep linking return URL (`POST /deep_link_return`)."""

    def __init__(self, *args: t.Any, deployment_id: str = "deployment-1", page_size: int = 100,
                 **kwargs: t.Any) -> None:
        super().__init__(*args, **kwargs)
        self.deployment_id = deployment_id
        self.page_size = page_size
        self.members: list[dict[str, t.Any]] = []
        self.context = {"id": "course-1", "label": "RNN", "title": "RNN hidden state"}
        self.links: list[dict[str, t.Any]] = []  # content items the tool linked, in order
        self.resource_links: list[ResourceLink] = []
        self.sent_data: dict[str, str] = {}  # the deep linking requests' `data` -> their LMS course (context id)

    @property
    def memberships_url(self) -> str:
        return f"{self.base}/members"

    @property
    def return_url(self) -> str:
        return f"{self.base}/deep_link_return"

    def membership(self, path: str) -> tuple[dict[str, t.Any], list[dict[str, t.Any]]] | None:
        """The course context and members served at `path`, or None when no membership is there."""
        return (self.context, self.members) if path == "/members" else None

    def deep_linking_settings(self, context_id: str) -> dict[str, t.Any]:
        """The deep linking settings claim of a new request from the LMS course `context_id`, with an opaque
        `data` the response must echo (lti1p3platform's claim)."""
        data = f"dl-{len(self.sent_data) + 1}"
        self.sent_data[data] = context_id
        return LtiDeepLinking(self.return_url).get_lti_deep_linking_launch_claim(
            title="Add an assignment", accept_types={"ltiResourceLink"}, extra_data=data)

    def deep_linking_request(self, user: str = "instructor-1") -> dict[str, t.Any]:
        """The claims of an LtiDeepLinkingRequest as the tool has them once the launch is validated: the
        deep linking settings, the AGS claim."""
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
        claims.update(self.deep_linking_settings(self.context["id"]))
        return claims

    # ---- HTTP ---------------------------------------------------------------------------------------

    def _route(self, handler, method: str, path: str, query: dict[str, str], raw: str) -> None:
        auth = (handler.headers.get("Authorization") or "").split()
        served = self.membership(path) if method == "GET" else None
        if served is not None:
            return self._members(handler, path, query, auth, *served)
        if path == "/deep_link_return" and method == "POST":
            return self._deep_link_return(handler, raw)
        return super()._route(handler, method, path, query, raw)

    def _members(self, handler, path: str, query: dict[str, str], auth: list[str], context: dict[str, t.Any],
                 members: list[dict[str, t.Any]]) -> None:
        platform = Platform(registration=self.registration)
        platform.get_registration()
        if len(auth) != 2 or not platform.validate_token(auth[1], [NRPS_SCOPE]):
            return self._reject(handler, "membership asked without a valid NRPS token", 401)
        if MEMBERSHIP_TYPE not in (handler.headers.get("Accept") or ""):
            return self._reject(handler, f"membership asked with Accept {handler.headers.get('Accept')!r}")
        page = int(query.get("page", "1"))
        start = (page - 1) * self.page_size
        body = {"id": f"{self.base}{path}", "context": context, "members": members[start:start + self.page_size]}
        headers = {}
        if start + self.page_size < len(members):
            headers["Link"] = f'<{self.next_page_origin()}{path}?page={page + 1}>; rel="next"'
        self._send(handler, 200, body, MEMBERSHIP_TYPE, headers)

    def next_page_origin(self) -> str:
        """Where a membership page's `next` link points (this server)."""
        return self.base

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
        for item in items:
            link_id = f"link-{len(self.links) + 1}"
            number = None
            line = item.get("lineItem")
            if line is not None:
                number = str(max((int(n) for n in self.store.lineitems), default=0) + 1)
                created = {k: line[k] for k in ("label", "scoreMaximum", "resourceId", "tag") if k in line}
                created["id"] = f"{self.base}/lineitems/{number}"
                created["resourceLinkId"] = link_id
                if "endDateTime" in (item.get("submission") or {}):
                    created["endDateTime"] = item["submission"]["endDateTime"]
                self.store.lineitems[number] = created
            custom = item.get("custom") if isinstance(item.get("custom"), dict) else {}
            self.links.append(item)
            self.resource_links.append(ResourceLink(link_id, self.sent_data[data], str(item.get("title") or ""),
                                                    str(custom.get("assignment") or ""), number))
        self.deep_link_answer(handler, len(items))

    def deep_link_answer(self, handler, linked: int) -> None:
        """The platform's answer to the browser that posted the tool's response."""
        self._send(handler, 200, json.dumps({"linked": linked}).encode(), "application/json")
