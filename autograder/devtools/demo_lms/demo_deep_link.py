"""The demo LMS's "Add the tool": the deep linking request (LTI Deep Linking 2.0) an LMS sends when an instructor
adds the tool to a course, signed by lti1p3platform's message launch with its deep linking settings claim, and
posted to the tool's redirect URI as a launch is. The tool's answer comes back to the platform's return URL
(advantage_platform.py), which makes the line item and the resource link the course page then lists."""

from __future__ import annotations

from .advantage_platform import AdvantagePlatform
from .demo_course import AGS_CLAIM, AGS_SCOPES, COURSE_OFFERING, DemoCourse, DemoLaunch, DemoPerson
from .demo_pages import launch_form_page
from .lti_platform import PlainRequest, Platform

MESSAGE_TYPE = "https://purl.imsglobal.org/spec/lti/claim/message_type"
TOOL_PLATFORM = "https://purl.imsglobal.org/spec/lti/claim/tool_platform"


def deep_linking_launch(lms: AdvantagePlatform, form: dict[str, str], course: DemoCourse, person: DemoPerson) -> str:
    """The page that posts `person`'s signed LtiDeepLinkingRequest from `course` to the tool (`form`: the tool's
    authentication request, already checked by the platform, the demo LMS)."""
    launch = DemoLaunch(PlainRequest({"method": "POST", "form_data": form, "get_data": {}, "headers": {},
                                      "content_type": "", "path": "/authorize", "json": None}),
                        Platform(registration=lms.registration))
    launch.set_user_data(person.sub, [person.role], full_name=person.name, email_address=person.email)
    launch.set_launch_context_claim(course.context_id, [COURSE_OFFERING], course.title, course.label)
    # Canvas and Moodle send these two with a deep linking request, and jupyterhub-ltiauthenticator requires them.
    launch.set_launch_presentation_claim(document_target="iframe", return_url=f"{lms.base}/")
    launch.set_extra_claims({MESSAGE_TYPE: "LtiDeepLinkingRequest", "given_name": person.given_name,
                             TOOL_PLATFORM: {"guid": lms.issuer, "name": "Demo LMS", "version": "1",
                                             "product_family_code": "autograder-demo-lms"},
                             "family_name": person.family_name,
                             AGS_CLAIM: {"scope": AGS_SCOPES, "lineitems": f"{lms.base}/lineitems"},
                             **lms.deep_linking_settings(course.context_id)})
    data = launch.lti_launch()
    return launch_form_page(data["launch_url"], data["id_token"], data["state"])
