"""Names and Role Provisioning Services (LTI Advantage): the LMS course's members, every page of them.

The membership container (`application/vnd.ims.lti-nrps.v2.membershipcontainer+json`) is read through
pylti1p3's service connector, with the token and host-pinned session of `lti` (one implementation of the
tool's credentials). Pages are followed by their `Link: <...>; rel="next"` header, only on the host of the
memberships URL in lms.toml: a link elsewhere is refused, never followed (it would carry our token). Each
member is checked as untrusted input: a malformed page is one line naming what is wrong, and nothing is
written.
"""

from __future__ import annotations

import typing as t
from dataclasses import dataclass

import requests
from pylti1p3.exception import LtiException

from . import lti
from .errors import LmsError
from .lms_settings import Settings
from .retry import RetryPolicy

SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
MEMBERSHIP_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
LEARNER_ROLES = frozenset({"Learner", "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"})
STATUSES = ("Active", "Inactive", "Deleted")
MAX_PAGES = 10_000  # a platform whose pages never end is stopped, not followed forever


@dataclass(frozen=True)
class Member:
    """One member of the LMS course, as NRPS gives it (`user_id` is the LTI `sub`)."""

    user_id: str
    name: str = ""
    given_name: str = ""
    family_name: str = ""
    email: str = ""
    roles: tuple[str, ...] = ()
    status: str = "Active"
    lis_person_sourcedid: str = ""

    @property
    def learner(self) -> bool:
        return any(role in LEARNER_ROLES for role in self.roles)


def _text(member: dict[str, t.Any], key: str, where: str) -> str:
    value = member.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise LmsError(f"{where}: member field {key!r} is not text")
    return str(value).strip()[:255]


def parse_members(body: t.Any, where: str) -> list[Member]:
    """The members of one membership container page; `where` names the page in messages."""
    if not isinstance(body, dict) or not isinstance(body.get("members"), list):
        raise LmsError(f"{where}: not a membership container (no \"members\" list)")
    members = []
    for index, member in enumerate(body["members"]):
        at = f"{where}, member {index + 1}"
        if not isinstance(member, dict):
            raise LmsError(f"{at}: not an object")
        user_id = _text(member, "user_id", at)
        if not user_id:
            raise LmsError(f"{at}: no user_id")
        roles = member.get("roles", [])
        if not isinstance(roles, list) or not all(isinstance(r, str) for r in roles):
            raise LmsError(f"{at}: roles is not a list of text")
        status = _text(member, "status", at) or "Active"  # NRPS: absent means Active
        if status not in STATUSES:
            raise LmsError(f"{at}: status {status!r} is not one of {', '.join(STATUSES)}")
        members.append(Member(user_id, _text(member, "name", at), _text(member, "given_name", at),
                              _text(member, "family_name", at), _text(member, "email", at), tuple(roles), status,
                              _text(member, "lis_person_sourcedid", at)))
    return members


def fetch_members(settings: Settings, private_pem: str, policy: RetryPolicy,
                  session: requests.Session | None = None) -> list[Member]:
    """Every member of the course, following the pages on the platform's host."""
    url: str | None = settings.require("lti", "memberships_url")
    home = lti.origin(url)
    connector = lti.CachingServiceConnector(lti.registration(settings, private_pem),
                                            session or lti.platform_session(settings))
    members: list[Member] = []
    seen: set[str] = set()
    page = 0
    while url:
        page += 1
        if url in seen or page > MAX_PAGES:
            raise LmsError(f"the membership pages do not end (page {page} links back to {url[:120]})")
        if lti.origin(url) != home:
            raise LmsError(f"membership page {page - 1} links to another host ({lti.shown_origin(url)}): refused, "
                           "nothing imported")
        seen.add(url)
        where = f"membership page {page}"
        current = url
        try:
            data = policy.with_retries(
                lambda u=current: connector.make_service_request([SCOPE], u, accept=MEMBERSHIP_TYPE), lti.classify)
        except (LtiException, requests.RequestException) as exc:
            raise LmsError(f"{where}: {lti.describe(exc)}; nothing imported") from None
        members += parse_members(data["body"], where)
        url = data["next_page_url"]
    return members
