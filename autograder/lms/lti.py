"""Send grades to any LTI 1.3 platform through Assignment and Grade Services, with `pylti1p3`.

The tool authenticates with OAuth2 client credentials and a JWT signed by its private key (RFC 7523),
finds the assignment's line item (by the URL in lms.toml, else by tag = assignment name) or creates it
(once, see `find_or_create`), reads the line item's results and posts a score
(`application/vnd.ims.lis.v1.score+json`) for each student whose result differs. A 4xx for one student
is reported and the push goes on; a platform that keeps failing (429/5xx after retries, or unreachable)
stops the push, and the rest are listed as not sent.

`python -m autograder.lms.lti jwks` prints the public key set to register with the platform.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
import time
import typing as t
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import requests
from cryptography.hazmat.primitives import serialization
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem
from pylti1p3.registration import Registration
from pylti1p3.service_connector import ServiceConnector

from autograder.grades.outbox import iso_utc

from .errors import LmsError
from .gradebook import linkable
from .lms_settings import IDENTITY_CHOICES, Settings
from .push_plan import PushItem, PushPlan, PushReport
from .retry import RETRY_STATUSES, RetryPolicy, retry_after_seconds

SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
]
KEY_ENV = "LTI_PRIVATE_KEY"
# Beside lms.toml: two pushes from one course folder create the line item one after the other.
LOCK_FILE = ".lti-lineitem.lock"


class CachingServiceConnector(ServiceConnector):
    """pylti1p3 leaves token caching to the web framework; a command line run keeps tokens in memory."""

    def __init__(self, registration: Registration, session: requests.Session | None = None) -> None:
        super().__init__(registration, session)
        self._tokens: dict[str, tuple[str, float]] = {}

    def _get_cached_access_token(self, scope_key: str) -> str | None:
        token, expires = self._tokens.get(scope_key, ("", 0.0))
        return token if token and time.monotonic() < expires else None

    def _cache_access_token(self, scope_key: str, access_token: str, expires_in: float) -> None:
        # Renew a minute early so a token never expires between two requests of one push.
        self._tokens[scope_key] = (access_token, time.monotonic() + max(0.0, float(expires_in or 0) - 60))


class ForeignHost(requests.RequestException):
    """A URL the platform gave (a line item's id, a page link) points at another host: never followed."""


def origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


class PlatformSession(requests.Session):
    """A session that talks only to the registered platform: every request (redirects included, which
    `requests` sends through `send` too) must go to the origin of a URL in lms.toml. The platform's answers
    are untrusted: a line item id or a paging link naming another host would send our token there."""

    def __init__(self, urls: t.Iterable[str]) -> None:
        super().__init__()
        self.headers["User-Agent"] = "autograder-lti"
        self.allowed = {origin(u) for u in urls if u}

    def send(self, request: requests.PreparedRequest, **kwargs: t.Any) -> requests.Response:
        if origin(request.url or "") not in self.allowed:
            where = shown_origin(request.url or "")
            raise ForeignHost(f"refused to follow {where}: not the registered platform's host")
        return super().send(request, **kwargs)


def shown_origin(url: str) -> str:
    scheme, host = origin(url)
    return f"{scheme}://{host}"[:120]


def platform_session(settings: Settings) -> PlatformSession:
    return PlatformSession([settings.require("lti", "token_url"), settings.require("lti", "lineitems_url"),
                            settings.get("lti", "memberships_url") or ""])


def user_field(settings: Settings) -> str:
    return settings.choice("lti", "user_id", "lms_user_id", IDENTITY_CHOICES)


def destination(settings: Settings, assignment: str) -> str:
    lineitems = settings.require("lti", "lineitems_url")
    target = _target(settings, assignment)
    where = target.get("lineitem") or f"line item tagged {target.get('tag', assignment)!r}"
    return f"LTI platform {settings.require('lti', 'issuer')} ({lineitems}), {where}"


def _target(settings: Settings, assignment: str) -> dict[str, str]:
    value = settings.mapping("lti", "assignments", assignment, required=False)
    if value is None:
        return {"tag": assignment}
    if isinstance(value, str):
        return {"lineitem": value}
    if isinstance(value, dict) and set(value) <= {"lineitem", "tag", "label"}:
        return {k: str(v) for k, v in value.items()}
    raise LmsError(f"{settings.path}: [lti.assignments] {assignment} must be a line item URL or "
                   "{ lineitem = URL } or { tag = ..., label = ... }")


def public_pem(private_pem: str) -> str:
    try:
        key = serialization.load_pem_private_key(private_pem.encode(), password=None)
    except (ValueError, TypeError) as exc:
        # The message names the problem, never the key.
        raise LmsError("the LTI private key is not an unencrypted PEM private key") from exc
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()


def registration(settings: Settings, private_pem: str) -> Registration:
    token_url = settings.require("lti", "token_url")
    reg = Registration()
    reg.set_issuer(settings.require("lti", "issuer"))
    reg.set_client_id(str(settings.require("lti", "client_id")))
    reg.set_auth_token_url(token_url)
    reg.set_auth_audience(settings.get("lti", "audience") or token_url)
    reg.set_tool_private_key(private_pem)
    reg.set_tool_public_key(public_pem(private_pem))  # gives the JWT its `kid`, which the platform looks up
    return reg


def jwks(private_pem: str) -> dict[str, t.Any]:
    """The public key set to give the platform (the tool's JWKS)."""
    return {"keys": [Registration.get_jwk(public_pem(private_pem))]}


def classify(exc: BaseException) -> tuple[bool, float | None]:
    if isinstance(exc, ForeignHost):
        return False, None
    if isinstance(exc, requests.JSONDecodeError):  # a garbled answer: the next may be whole
        return True, None
    if isinstance(exc, LtiServiceException):
        status = exc.response.status_code
        return status in RETRY_STATUSES, retry_after_seconds(exc.response.headers.get("Retry-After"))
    if isinstance(exc, (requests.ConnectionError, requests.Timeout)):
        return True, None
    return False, None


def describe(exc: BaseException) -> str:
    if isinstance(exc, ForeignHost):
        return str(exc)
    if isinstance(exc, requests.JSONDecodeError):
        return "the platform's answer is not JSON"
    if isinstance(exc, LtiServiceException):
        return f"HTTP {exc.response.status_code} from {exc.response.request.method} {exc.response.url}"[:300]
    if isinstance(exc, requests.RequestException):
        return f"{type(exc).__name__} (platform unreachable)"
    return " ".join(str(exc).split())[:160] or type(exc).__name__


def ags_score(user: str, score: float, max_score: float, comment: str, timestamp: str,
              submitted_at: str | None = None) -> Grade:
    """The one AGS score this tool sends, from `push` and from the outbox sender alike: the score rounded as
    `points.fmt` shows it, `timestamp` (a platform ignores a score not newer than its last one, so it is the
    outbox's time of the change wherever there is one) and, when known, when the student handed in."""
    grade = (Grade().set_user_id(user).set_score_given(round(score, 2)).set_score_maximum(max_score)
             .set_comment(comment).set_timestamp(timestamp)
             .set_activity_progress("Completed").set_grading_progress("FullyGraded"))
    if submitted_at:
        grade.set_submitted_at(iso_utc(submitted_at))
    return grade


def _grade(item: PushItem, now: datetime) -> Grade:
    # A push and `push --follow` give one score one timestamp: the outbox's time of the change; now, without one.
    timestamp = iso_utc(item.changed_at) if item.changed_at else now.isoformat(timespec="microseconds")
    return ags_score(item.lms_user, item.score, item.max_score, item.comment, timestamp)


def _matches(item: PushItem, result: dict[str, t.Any]) -> bool:
    given, maximum = result.get("resultScore"), result.get("resultMaximum")
    if given is None:
        return False
    # A platform may report the result on its own scale: compare the fractions.
    maximum = float(maximum) if maximum else item.max_score
    same_score = abs(float(given) / maximum - float(item.posted) / item.max_score) < 1e-6
    # Results need not carry the comment (it is optional in AGS): then the score alone decides.
    return same_score and ("comment" not in result or (result["comment"] or "") == item.comment)


@contextlib.contextmanager
def _course_lock(course: Path) -> Iterator[None]:
    fd = os.open(course / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def id_order(item: dict[str, t.Any]) -> tuple[int, str]:
    """Line items by id, numbers in number order (`.../9` before `.../10`), so every run picks the same one."""
    ident = str(item.get("id", ""))
    return len(ident), ident


def find_or_create(ags: AssignmentsGradesService, connector: CachingServiceConnector, wanted: LineItem,
                   policy: RetryPolicy) -> LineItem:
    """The assignment's line item, created only when there is none: duplicated line items split a class's
    grades between two columns (PrairieLearn/PrairieLearn#15643). Runs from one course folder take turns
    (a lock beside lms.toml); runs from elsewhere, or a create retried after its reply was lost, can still
    make two, so the list is read again after creating, every run keeps the same one (the first by id),
    and a duplicate that holds no result is deleted."""
    tag = wanted.get_tag()

    def tagged() -> list[dict[str, t.Any]]:
        return sorted((i for i in policy.with_retries(lambda: list(ags.get_lineitems()), classify)
                       if isinstance(i, dict) and i.get("tag") == tag), key=id_order)

    items = tagged()
    if not items:
        policy.with_retries(lambda: ags.create_lineitem(wanted), classify)
        items = tagged()
        if not items:
            raise LmsError(f"the platform created no line item tagged {tag!r}")
    foreign = [i for i in items if origin(str(i.get("id", ""))) != origin(ags._service_data["lineitems"])]
    if foreign:
        where = shown_origin(str(foreign[0].get("id")))
        raise ForeignHost(f"the platform listed a line item on another host ({where}); refused")
    keep, duplicates = items[0], items[1:]
    for item in duplicates:
        if not policy.with_retries(lambda i=item: list(ags.get_grades(LineItem(i))), classify):
            policy.with_retries(lambda i=item: _delete(connector, i["id"]), classify)
    return LineItem(keep)


def _delete(connector: CachingServiceConnector, url: str) -> None:
    token = connector.get_access_token(SCOPES)
    response = connector._requests_session.delete(url, headers={"Authorization": f"Bearer {token}"})
    if not response.ok and response.status_code != 404:  # 404: another run deleted it first
        raise LtiServiceException("could not delete a duplicated line item", response)


def services(settings: Settings, private_pem: str, session: requests.Session | None = None,
             lineitems_url: str | None = None) -> tuple[CachingServiceConnector, AssignmentsGradesService]:
    """The token connector and AGS client of the course's platform, over a session pinned to its host;
    `lineitems_url`: the course's line items (lms.toml's unless given, as a launch's AGS claim gives them)."""
    connector = CachingServiceConnector(registration(settings, private_pem), session or platform_session(settings))
    ags = AssignmentsGradesService(connector, {
        "scope": SCOPES, "lineitems": lineitems_url or settings.require("lti", "lineitems_url"),
    })
    return connector, ags


def wanted_lineitem(settings: Settings, assignment: str, max_score: float, due: datetime | None = None) -> LineItem:
    """The line item an assignment's grades go to, as created when the platform has none: tagged with the
    assignment's name (or lms.toml's tag), its resourceId the name, its end the due date where one is set (the
    gradebook's, the one source: sent, never read back)."""
    target = _target(settings, assignment)
    item = (LineItem().set_tag(target.get("tag", assignment)).set_label(target.get("label", assignment))
            .set_resource_id(assignment).set_score_maximum(max_score))
    return item.set_end_date_time(lti_time(due)) if due is not None else item


def lti_time(moment: datetime) -> str:
    """A time as LTI's JSON carries it: ISO 8601 in UTC with a Z (a naive time is UTC, as nbgrader keeps it)."""
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def lineitem_for(settings: Settings, assignment: str, max_score: float, ags: AssignmentsGradesService,
                 connector: CachingServiceConnector, policy: RetryPolicy) -> LineItem:
    """The assignment's line item: the URL in lms.toml, else the one tagged with its name (made once, see
    `find_or_create`). The one lookup every sender uses: `push`, the outbox's sender and deep linking."""
    target = _target(settings, assignment)
    if "lineitem" in target:
        return policy.with_retries(lambda: ags.get_lineitem(target["lineitem"]), classify)
    due = next((a.due for a in linkable(settings.course) if a.name == assignment), None)
    with _course_lock(settings.course):
        return find_or_create(ags, connector, wanted_lineitem(settings, assignment, max_score, due), policy)


def push(settings: Settings, push_plan: PushPlan, private_pem: str, policy: RetryPolicy,
         session: requests.Session | None = None) -> PushReport:
    report = PushReport()
    connector, ags = services(settings, private_pem, session)
    try:
        lineitem = lineitem_for(settings, push_plan.assignment,
                                push_plan.items[0].max_score if push_plan.items else 1, ags, connector, policy)
        results = policy.with_retries(lambda: list(ags.get_grades(lineitem)), classify)
    except (LtiException, requests.RequestException, LmsError, OSError) as exc:
        report.stopped = f"could not reach the line item ({describe(exc)})"
        report.not_attempted = [i.student_id for i in push_plan.items]
        return report
    current = {str(r.get("userId")): r for r in results if isinstance(r, dict)}
    now = datetime.now(UTC)
    for index, item in enumerate(push_plan.items):
        if item.lms_user in current and _matches(item, current[item.lms_user]):
            report.unchanged.append(item.student_id)
            continue
        try:
            policy.with_retries(lambda i=item: ags.put_grade(_grade(i, now), lineitem), classify)
        except (LtiException, requests.RequestException) as exc:
            transient, _ = classify(exc)
            if transient or not isinstance(exc, LtiServiceException) or exc.response.status_code == 401:
                # The platform is down or refuses the tool: the rest would fail the same way.
                report.stopped = describe(exc)
                report.not_attempted += [i.student_id for i in push_plan.items[index:]
                                         if i.student_id not in report.unchanged]
                break
            report.failed[item.student_id] = describe(exc)
            continue
        report.sent.append(item.student_id)
    return report


def main(argv: list[str] | None = None) -> int:
    """`python -m autograder.lms.lti jwks`: print the tool's public JWKS from the configured private key."""
    from pathlib import Path

    from .lms_settings import load

    args = sys.argv[1:] if argv is None else argv
    if args != ["jwks"]:
        print("usage: python -m autograder.lms.lti jwks   (run in the course folder)", file=sys.stderr)
        return 2
    try:
        settings = load(Path.cwd(), required=True)
        key = settings.secret("lti", "private_key_env", "private_key_file", KEY_ENV, "LTI private key")
        print(json.dumps(jwks(key), indent=2))
    except LmsError as exc:
        print(f"jwks: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
