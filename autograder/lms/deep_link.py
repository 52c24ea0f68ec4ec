"""LTI Deep Linking, the tool's side: the instructor adding the tool in the LMS picks an assignment, and the
tool answers with a signed LtiDeepLinkingResponse holding one `ltiResourceLink` and its grade column.

The launch (the LtiDeepLinkingRequest) arrives already validated by the hub's LTI login; the course's
assignments come from the gradebook (`gradebook.linkable`, which `lti` also reads due dates from); this module
renders the picker page (`picker_page`: plain HTML, a labelled list
of choices and one button, no script) and builds the answer (`respond`): pylti1p3's `DeepLink` signs it with
the tool's key (the `kid` of the JWKS the platform holds). The content item carries
`custom: {assignment: <name>}` and, unless the platform already has the assignment's line item, a
`lineItem` (label, scoreMaximum = the assignment's points in the gradebook, resourceId and tag = its name)
and the due date as `submission.endDateTime`. The line item is looked up first, by tag or resourceId,
with the lookup `push` uses: linking the same assignment twice, or again from a copied LMS course, never
makes a second column; the link then names the assignment, and grades go to the column that exists.
"""

from __future__ import annotations

import html
import typing as t
from datetime import datetime

import requests
from pylti1p3.deep_link import DeepLink
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.exception import LtiException
from pylti1p3.lineitem import LineItem

from autograder.grades.points import fmt

from . import lti
from .errors import LmsError
from .gradebook import Linkable
from .lms_settings import Settings, deployment_ids
from .retry import RetryPolicy

SETTINGS_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
DEPLOYMENT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
MESSAGE_TYPE_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/message_type"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"


def _due_text(due: datetime | None) -> str:
    return due.strftime("due %Y-%m-%d %H:%M UTC") if due else "no due date"


def picker_page(assignments: list[Linkable], action_url: str, state: str, course_title: str = "") -> str:
    """The page the instructor picks an assignment on: a form posting `assignment` and `state` (the hub's
    handle on the validated launch) to `action_url`. Every text is escaped; no script, so it works in the
    LMS's frame with scripts blocked."""
    esc = html.escape
    title = f"Link an assignment{': ' + course_title if course_title else ''}"
    if not assignments:
        body = "<p>This course has no assignment in its gradebook yet. Release one, then add the tool again.</p>"
    else:
        choices = "\n".join(
            f'<li><input type="radio" name="assignment" id="a{i}" value="{esc(a.name)}"{" checked" if i == 0 else ""}'
            f' required><label for="a{i}"><strong>{esc(a.name)}</strong> &mdash; {esc(fmt(a.points))} points, '
            f"{esc(_due_text(a.due))}</label></li>"
            for i, a in enumerate(assignments))
        body = (f'<form method="post" action="{esc(action_url)}">'
                f'<input type="hidden" name="state" value="{esc(state)}">'
                f"<fieldset><legend>Which assignment does this link open?</legend>"
                f'<ul class="choices">\n{choices}\n</ul></fieldset>'
                f'<p>The LMS gets one grade column per assignment: linking an assignment again reuses its column.</p>'
                f'<button type="submit">Link this assignment</button></form>')
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>"
            "body{font:16px/1.5 system-ui,sans-serif;margin:1.5rem;max-width:40rem;color:#1a1a1a;background:#fff}"
            "ul.choices{list-style:none;padding:0}ul.choices li{margin:.4rem 0}"
            "label{margin-left:.4rem}fieldset{border:1px solid #767676;padding:.8rem}"
            "button{font:inherit;padding:.4rem 1rem;background:#0b5cad;color:#fff;border:0;border-radius:3px}"
            "button:focus,input:focus{outline:3px solid #f5a623;outline-offset:2px}"
            f"</style></head><body><main><h1>{esc(title)}</h1>{body}</main></body></html>")


class _ResourceLink(DeepLinkResource):
    """pylti1p3's content item, with the due date, which it does not carry, as `submission.endDateTime`."""

    def __init__(self, due: datetime | None) -> None:
        self._due = due

    def to_dict(self) -> dict[str, object]:
        item = super().to_dict()
        item = {k: v for k, v in item.items() if v is not None}
        if self._due is not None:
            item["submission"] = {"endDateTime": lti.lti_time(self._due)}
        return item


def _existing_lineitem(settings: Settings, private_pem: str, lineitems_url: str, name: str,
                       session: requests.Session | None) -> dict[str, t.Any] | None:
    """The platform's line item for `name` (by tag or resourceId), if it has one."""
    _, ags = lti.services(settings, private_pem, session, lineitems_url)
    # The instructor waits in the LMS's frame: a few quick tries, not lms.toml's patient ones.
    quick = RetryPolicy(attempts=3, backoff_seconds=0.5)
    try:
        items = quick.with_retries(lambda: list(ags.get_lineitems()), lti.classify)
    except (LtiException, requests.RequestException) as exc:
        raise LmsError(f"could not look up the line items ({lti.describe(exc)}); nothing was linked") from None
    found = sorted((i for i in items if isinstance(i, dict) and (i.get("tag") == name or i.get("resourceId") == name)),
                   key=lti.id_order)
    return found[0] if found else None


def respond(settings: Settings, private_pem: str, launch: dict[str, t.Any], assignment: Linkable, launch_url: str,
            session: requests.Session | None = None) -> str:
    """The signed LtiDeepLinkingResponse JWT for `assignment`, answering the validated deep linking `launch`."""
    if launch.get(MESSAGE_TYPE_CLAIM) != "LtiDeepLinkingRequest":
        raise LmsError("not a deep linking request")
    dl_settings = launch.get(SETTINGS_CLAIM)
    if not isinstance(dl_settings, dict) or not dl_settings.get("deep_link_return_url"):
        raise LmsError("the deep linking request has no deep_link_return_url")
    accept = dl_settings.get("accept_types") or []
    if "ltiResourceLink" not in accept:
        raise LmsError("the LMS does not accept an LTI resource link here")
    deployment = str(launch.get(DEPLOYMENT_CLAIM) or "")
    expected = deployment_ids(settings)
    if not deployment or (expected and deployment not in expected):
        raise LmsError("the deep linking request is from another deployment")
    ags_claim = launch.get(AGS_CLAIM) if isinstance(launch.get(AGS_CLAIM), dict) else {}
    lineitems_url = str(ags_claim.get("lineitems") or settings.require("lti", "lineitems_url"))
    if lti.origin(lineitems_url) != lti.origin(settings.require("lti", "lineitems_url")):
        raise LmsError("the request names line items on another host than lms.toml's; refused")
    resource = (_ResourceLink(assignment.due).set_title(assignment.name).set_url(launch_url)
                .set_custom_params({"assignment": assignment.name}))
    if _existing_lineitem(settings, private_pem, lineitems_url, assignment.name, session) is None:
        resource.set_lineitem(LineItem().set_label(assignment.name).set_score_maximum(assignment.points)
                              .set_resource_id(assignment.name).set_tag(assignment.name))
    link = DeepLink(lti.registration(settings, private_pem), deployment, dl_settings)
    return link.get_response_jwt([resource])


def response_form(launch: dict[str, t.Any], response_jwt: str) -> str:
    """The page that posts the answer back to the LMS (the deep linking return URL), as the spec has it: a
    form the browser submits, with a button for when scripts are blocked."""
    url = html.escape(launch[SETTINGS_CLAIM]["deep_link_return_url"])
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Linking the assignment</title>"
            f"</head><body><main><form id=\"dl\" method=\"post\" action=\"{url}\">"
            f"<input type=\"hidden\" name=\"JWT\" value=\"{html.escape(response_jwt)}\">"
            "<button type=\"submit\">Return to the LMS</button></form>"
            "<script>document.getElementById('dl').submit()</script></main></body></html>")
