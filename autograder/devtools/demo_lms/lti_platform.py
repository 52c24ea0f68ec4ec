"""A real LTI 1.3 platform on loopback: the `lti1p3platform` library behind a small HTTP server.

lti1p3platform implements the platform side (the client-credentials token endpoint, access token
checks, the Assignment and Grade Services line item, score and result handlers). It is lenient, so
this harness adds the checks a strict platform makes and it does not:
  - the client assertion's `aud` is the token URL, `iss` = `sub` = client id, `exp` is in the future
    and near, and each `jti` is used once (RFC 7523; IMS Security Framework);
  - requests carry the AGS media types (`Content-Type`, `Accept`);
  - a score has the AGS schema: userId, scoreGiven <= number, scoreMaximum > 0, timestamp in ISO 8601
    with a time zone and sub-second precision, activityProgress and gradingProgress from their enums.
A request that breaks a rule is answered 400 and recorded in `violations`.
"""

from __future__ import annotations

import io
import json
import re
import threading
import time
import typing as t
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import parse_qsl, urlsplit

import jwt
from lti1p3platform.exceptions import LineItemNotFoundException, LtiException, LtiServiceException
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request, TRequest
from lti1p3platform.response import Response, generate_next_link
from lti1p3platform.score import ActivityProgress, GradeProgress, UpdateScoreStatus
from lti1p3platform.service_connector import AssignmentsGradesService, TPage

from .loopback_server import LoopbackServer

SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
CONTAINER_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
RESULTS_TYPE = "application/vnd.ims.lis.v2.resultcontainer+json"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
SCORE_KEYS = {"userId", "scoreGiven", "scoreMaximum", "comment", "timestamp", "activityProgress",
              "gradingProgress", "submission"}


@dataclass
class Fault:
    method: str
    path: str
    status: int = 503
    headers: dict[str, str] = field(default_factory=dict)
    times: int = 1


@dataclass
class Store:
    lineitems: dict[str, dict[str, t.Any]] = field(default_factory=dict)  # number -> line item
    scores: dict[tuple[str, str], list[dict[str, t.Any]]] = field(default_factory=dict)  # (number, user)


class Platform(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs: t.Any) -> None:
        self._registration = kwargs["registration"]

    def get_registration_by_params(self, **kwargs: t.Any) -> Registration:
        return self._registration


class PlainRequest(Request):
    def build_metadata(self, request: t.Any) -> TRequest:
        return request  # the HTTP server below has already parsed it


class Ags(AssignmentsGradesService):
    """lti1p3platform's AGS handlers over an in-memory gradebook."""

    def __init__(self, request: Request, platform: Platform, base: str, store: Store) -> None:
        super().__init__(request, platform, f"{base}/lineitems")
        self.base = base
        self.store = store

    def _url(self, number: str) -> str:
        return f"{self.base}/lineitems/{number}"

    def find_lineitems(self, page: int = 1, limit: int | None = None, line_item_id: str | None = None,
                       resource_link_id: str | None = None, resource_id: str | None = None,
                       tag: str | None = None) -> TPage:
        items = [i for i in self.store.lineitems.values()
                 if (tag is None or i.get("tag") == tag)
                 and (resource_id is None or i.get("resourceId") == resource_id)]
        return {"content": items, "has_next": False, "next": None}

    def find_lineitem(self, line_item_id: str) -> dict[str, t.Any]:
        if line_item_id not in self.store.lineitems:
            raise LineItemNotFoundException(line_item_id)
        return self.store.lineitems[line_item_id]

    def create_lineitem(self, creation_data: dict[str, t.Any]) -> dict[str, t.Any]:
        number = str(max((int(n) for n in self.store.lineitems), default=0) + 1)  # numbers are never reused
        item = dict(creation_data, id=self._url(number))
        self.store.lineitems[number] = item
        return item

    def update_lineitem(self, update_data: dict[str, t.Any]) -> dict[str, t.Any]:
        raise NotImplementedError

    def delete_lineitem(self, line_item_id: str) -> None:
        self.find_lineitem(line_item_id)
        del self.store.lineitems[line_item_id]

    def update_score(self, line_item_id: str, score: dict[str, t.Any]) -> UpdateScoreStatus:
        self.find_lineitem(line_item_id)
        history = self.store.scores.setdefault((line_item_id, str(score["userId"])), [])
        # Moodle's rule, the strictest of the LMSs': a score counts only when its timestamp is newer than the one
        # kept, in whole seconds (mod/lti/service/gradebookservices/classes/local/resources/scores.php).
        if history and _whole_seconds(score["timestamp"]) <= _whole_seconds(history[-1]["timestamp"]):
            return UpdateScoreStatus.OLD_TIMESTAMP
        history.append(score)
        return UpdateScoreStatus.SUCCESS

    def get_results(self, line_item_id: str, page: int = 1, limit: int | None = None,
                    user_id: str | None = None) -> TPage:
        self.find_lineitem(line_item_id)
        results = [
            {"id": f"{self._url(line_item_id)}/results/{user}", "scoreOf": self._url(line_item_id),
             "userId": user, "resultScore": history[-1]["scoreGiven"],
             "resultMaximum": history[-1]["scoreMaximum"], "comment": history[-1].get("comment", "")}
            for (number, user), history in sorted(self.store.scores.items()) if number == line_item_id
        ]
        return {"content": results, "has_next": False, "next": None}


class LoopbackPlatform(LoopbackServer):
    """An LTI 1.3 platform with one registered tool, served on 127.0.0.1."""

    METHODS = ("GET", "POST", "DELETE")

    def __init__(self, platform_private_pem: str, platform_public_pem: str, tool_jwks: dict[str, t.Any],
                 client_id: str = "tool-client-1", issuer: str = "https://platform.test", port: int = 0) -> None:
        self.client_id = client_id
        self.issuer = issuer
        self.store = Store()
        self.violations: list[str] = []
        self.faults: list[Fault] = []
        # (method, path pattern, seconds): a reply held back outside the lock, so requests of two runs interleave
        self.delays: list[tuple[str, str, float]] = []
        # A line item another run (on another machine) creates just before this one's, as in a race
        self.rival_on_create: dict[str, t.Any] | None = None
        self.requests: list[tuple[str, str]] = []
        self.used_jti: set[str] = set()
        self.tokens_issued = 0
        self.lock = threading.Lock()
        self.tool_keys = {k["kid"]: jwt.PyJWK(k) for k in tool_jwks["keys"]}
        self.registration = (Registration().set_iss(issuer).set_client_id(client_id)
                             .set_platform_private_key(platform_private_pem)
                             .set_platform_public_key(platform_public_pem)
                             .set_tool_key_set(tool_jwks))
        super().__init__(port)

    @property
    def token_url(self) -> str:
        return f"{self.base}/token"

    def scores(self, number: str, user: str) -> list[dict[str, t.Any]]:
        return self.store.scores.get((number, user), [])

    # ---- HTTP ---------------------------------------------------------------------------------------

    def _reject(self, handler, message: str, status: int = 400) -> None:
        self.violations.append(message)
        self._send(handler, status, {"error": message})

    def _dispatch(self, handler, method: str) -> None:
        parts = urlsplit(handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length).decode() if length else ""
        # A delayed reply is computed now and sent later, outside the lock: what it says is what was true
        # when it was asked, as with a slow platform, while the other run's requests go on.
        hold = sum(s for m, pattern, s in self.delays if m == method and re.fullmatch(pattern, parts.path))
        wire = handler.wfile
        if hold:
            handler.wfile = io.BytesIO()
        try:
            self._locked_dispatch(handler, method, parts, raw)
        finally:
            if hold:
                time.sleep(hold)
                wire.write(handler.wfile.getvalue())
                handler.wfile = wire

    def _locked_dispatch(self, handler, method: str, parts, raw: str) -> None:
        with self.lock:
            self.requests.append((method, parts.path))
            for fault in self.faults:
                if fault.times and fault.method == method and re.fullmatch(fault.path, parts.path):
                    fault.times -= 1
                    return self._send(handler, fault.status, {"error": "injected"}, headers=fault.headers)
            try:
                self._route(handler, method, parts.path, dict(parse_qsl(parts.query)), raw)
            except LtiServiceException as exc:  # lti1p3platform's refusal (missing or bad token, method)
                self._send(handler, exc.status_code, {"error": exc.message})
            except (LtiException, jwt.PyJWTError) as exc:  # an access token it could not accept
                self._send(handler, 401, {"error": str(exc)})
            except Exception as exc:  # a crash in the library is a failed test, not a hung client
                self._reject(handler, f"platform error {type(exc).__name__}: {exc}", 500)

    def _route(self, handler, method: str, path: str, query: dict[str, str], raw: str) -> None:
        content_type = (handler.headers.get("Content-Type") or "").split(";")[0].strip()
        accept = handler.headers.get("Accept") or ""
        if path == "/token" and method == "POST":
            return self._token(handler, content_type, raw)
        request = PlainRequest({
            "method": method, "form_data": {}, "get_data": query, "headers": dict(handler.headers),
            "content_type": content_type, "path": path, "json": None,
        })
        service = Ags(request, Platform(registration=self.registration), self.base, self.store)
        match = re.fullmatch(r"/lineitems(?:/(\d+)(/scores|/results)?)?", path)
        if not match:
            return self._reject(handler, f"unexpected request {method} {path}", 404)
        number, sub = match.group(1), match.group(2)
        if number is None and method == "GET":
            if CONTAINER_TYPE not in accept:
                return self._reject(handler, f"GET line items with Accept {accept!r}")
            response = service.handle_get_lineitems()
        elif number is None and method == "POST":
            if content_type != LINEITEM_TYPE:
                return self._reject(handler, f"line item created as {content_type!r}")
            item = json.loads(raw)
            maximum = item.get("scoreMaximum")
            if not isinstance(maximum, int | float) or maximum <= 0 or not item.get("label"):
                return self._reject(handler, f"line item needs a label and scoreMaximum > 0: {item}")
            request.request["json"] = item
            if self.rival_on_create is not None:
                service.create_lineitem(self.rival_on_create)
                self.rival_on_create = None
            response = service.handle_create_lineitem()
        elif number is not None and sub is None and method == "DELETE":
            response = service.handle_delete_lineitem(number)
        elif sub is None and method == "GET":
            if LINEITEM_TYPE not in accept:
                return self._reject(handler, f"GET line item with Accept {accept!r}")
            response = service.handle_get_lineitem(number)
        elif sub == "/scores" and method == "POST":
            if content_type != SCORE_TYPE:
                return self._reject(handler, f"score posted as {content_type!r}, not {SCORE_TYPE}")
            problem = score_problem(raw)
            if problem:
                return self._reject(handler, f"bad score: {problem}")
            request.request["json"] = json.loads(raw)
            response = service.handle_update_score(number)
        elif sub == "/results" and method == "GET":
            if RESULTS_TYPE not in accept:
                return self._reject(handler, f"GET results with Accept {accept!r}")
            response = service.handle_get_results(number)
        else:
            return self._reject(handler, f"unexpected request {method} {path}", 405)
        self._reply(handler, response)

    def _reply(self, handler, resp: Response) -> None:
        """lti1p3platform's own framework adapters do this: a page's content as the body, next as Link."""
        if 200 <= resp.code < 300:
            data = resp.result["content"] if isinstance(resp.result, dict) and "content" in resp.result else resp.result
            headers = {}
            if isinstance(resp.result, dict) and resp.result.get("next"):
                headers["Link"] = generate_next_link(resp.result["next"])
            self._send(handler, resp.code, data, resp.media_type, headers)
        else:
            self._send(handler, resp.code, {"error": resp.message}, "application/json")

    def _token(self, handler, content_type: str, raw: str) -> None:
        if content_type != "application/x-www-form-urlencoded":
            return self._reject(handler, f"token request sent as {content_type!r}")
        form = dict(parse_qsl(raw))
        if form.get("client_assertion_type") != ASSERTION_TYPE:
            return self._reject(handler, f"client_assertion_type {form.get('client_assertion_type')!r}")
        assertion = form.get("client_assertion", "")
        try:
            kid = jwt.get_unverified_header(assertion).get("kid")
            key = self.tool_keys[kid]
            claims = jwt.decode(assertion, key.key, algorithms=["RS256"], audience=self.token_url,
                                options={"require": ["iss", "sub", "aud", "exp", "iat", "jti"]})
        except KeyError:
            return self._reject(handler, "client assertion signed with an unregistered key", 401)
        except jwt.PyJWTError as exc:
            return self._reject(handler, f"client assertion rejected: {exc}", 401)
        if claims["iss"] != self.client_id or claims["sub"] != self.client_id:
            return self._reject(handler, "client assertion iss/sub is not the client id", 401)
        if claims["exp"] - time.time() > 600:
            return self._reject(handler, "client assertion lives more than 10 minutes", 401)
        if claims["jti"] in self.used_jti:
            return self._reject(handler, f"client assertion jti {claims['jti']} replayed", 401)
        self.used_jti.add(claims["jti"])
        platform = Platform(registration=self.registration)
        platform.get_registration()
        token = platform.get_access_token(form)
        self.tokens_issued += 1
        self._send(handler, 200, token)


def score_problem(raw: str) -> str:
    """What is wrong with a score body by the AGS score schema, or '' when it is right."""
    try:
        score = json.loads(raw)
    except json.JSONDecodeError:
        return "body is not JSON"
    if not isinstance(score, dict):
        return "body is not an object"
    unknown = set(score) - SCORE_KEYS
    if unknown:
        return f"unknown fields {sorted(unknown)}"
    for key in ("userId", "timestamp", "activityProgress", "gradingProgress"):
        if not isinstance(score.get(key), str) or not score[key]:
            return f"{key} missing or not a string"
    if score["activityProgress"] not in {e.value for e in ActivityProgress}:
        return f"activityProgress {score['activityProgress']!r} not in the enum"
    if score["gradingProgress"] not in {e.value for e in GradeProgress}:
        return f"gradingProgress {score['gradingProgress']!r} not in the enum"
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+(Z|[+-]\d\d:\d\d)", score["timestamp"]):
        return f"timestamp {score['timestamp']!r} is not ISO 8601 with sub-second precision and a zone"
    if "scoreGiven" in score:
        given, maximum = score.get("scoreGiven"), score.get("scoreMaximum")
        if not isinstance(given, int | float) or isinstance(given, bool) or given < 0:
            return "scoreGiven must be a number >= 0"
        if not isinstance(maximum, int | float) or isinstance(maximum, bool) or maximum <= 0:
            return "scoreMaximum must be a number > 0 when scoreGiven is given"
    if "comment" in score and not isinstance(score["comment"], str):
        return "comment must be a string"
    return ""


def _whole_seconds(timestamp: str) -> datetime:
    return datetime.fromisoformat(timestamp).replace(microsecond=0)
