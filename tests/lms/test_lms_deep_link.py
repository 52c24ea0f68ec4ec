"""Deep linking, the tool's side (`autograder.lms.deep_link`), against the loopback platform, which checks the
response JWT with the tool's JWKS (lti1p3platform) and the claims a strict platform checks (nrps_platform.py)."""

from __future__ import annotations

import re
from datetime import datetime

import pytest
from playwright.sync_api import sync_playwright

from autograder.lms.deep_link import picker_page, respond, response_form
from autograder.lms.errors import LmsError
from autograder.lms.gradebook import Linkable, linkable
from tests.axe import serious_violations
from tests.lms.conftest import HSA, RUE, Course
from tests.lms.nrps_platform import AdvantagePlatform

LAUNCH_URL = "https://hub.example.edu/hub/lti13/launch"


def link(lms: AdvantagePlatform, course: Course, name: str) -> None:
    """The instructor adds the tool and picks `name`: the tool answers, the browser posts the answer back."""
    import requests

    chosen = next(a for a in linkable(course.root) if a.name == name)
    token = respond(lms.settings, lms.tool_key, lms.deep_linking_request(), chosen, LAUNCH_URL)
    answer = requests.post(lms.return_url, data={"JWT": token}, timeout=10)
    assert answer.status_code == 200, answer.text


def test_linking_an_assignment_twice_makes_one_line_item(in_course: Course, advantage: AdvantagePlatform) -> None:
    link(advantage, in_course, HSA)
    link(advantage, in_course, HSA)  # again, as from a copied LMS course
    assert len(advantage.links) == 2
    assert [item["custom"] for item in advantage.links] == [{"assignment": HSA}] * 2
    assert len(advantage.store.lineitems) == 1, "the second link reuses the first's column"
    item = advantage.store.lineitems["1"]
    assert (item["label"], item["scoreMaximum"], item["resourceId"], item["tag"]) == (HSA, 46, HSA, HSA)
    assert item["endDateTime"] == "2025-03-01T17:00:00Z", "the gradebook's due date"
    assert "lineItem" in advantage.links[0] and "lineItem" not in advantage.links[1]


def test_a_push_after_linking_posts_into_the_linked_column(in_course: Course, advantage: AdvantagePlatform) -> None:
    from tests.lms.conftest import run_cli

    link(advantage, in_course, RUE)
    assert run_cli("push", RUE, "--to", "lti") == 0
    assert list(advantage.store.lineitems) == ["1"], "push found the deep-linked line item by its tag"
    assert advantage.scores("1", "lti-ada")[0]["scoreGiven"] == 20


def test_a_request_from_another_deployment_or_without_resource_links_is_refused(
        in_course: Course, advantage: AdvantagePlatform) -> None:
    chosen = Linkable(HSA, 46, None)
    request = advantage.deep_linking_request()
    request["https://purl.imsglobal.org/spec/lti/claim/deployment_id"] = "deployment-other"
    with pytest.raises(LmsError, match="another deployment"):
        respond(advantage.settings, advantage.tool_key, request, chosen, LAUNCH_URL)
    request = advantage.deep_linking_request()
    request["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"]["accept_types"] = ["link"]
    with pytest.raises(LmsError, match="resource link"):
        respond(advantage.settings, advantage.tool_key, request, chosen, LAUNCH_URL)
    request = advantage.deep_linking_request()
    request["https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"]["lineitems"] = "https://evil.example/items"
    with pytest.raises(LmsError, match="another host"):
        respond(advantage.settings, advantage.tool_key, request, chosen, LAUNCH_URL)
    assert advantage.store.lineitems == {} and advantage.hosts.count("evil.example") == 0


def test_the_picker_page_escapes_names_and_passes_axe(tmp_path) -> None:
    hostile = Linkable('<script>alert(1)</script>"', 10, datetime(2025, 3, 1, 17))
    page = picker_page([Linkable(HSA, 46, datetime(2025, 3, 1, 17)), Linkable(RUE, 20, None), hostile],
                       "https://hub.example.edu/hub/lti13/deep-link", 'st"ate<')
    assert "<script>alert" not in page and "&lt;script&gt;" in page and 'value="st&quot;ate&lt;"' in page
    assert "46 points, due 2025-03-01 17:00 UTC" in page and "20 points, no due date" in page
    form = response_form({"https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings": {
        "deep_link_return_url": "https://lms.example/return?a=1&b=2"}}, "a.b.c")
    assert 'action="https://lms.example/return?a=1&amp;b=2"' in form and re.search(r'name="JWT" value="a\.b\.c"', form)
    with sync_playwright() as play:
        browser = play.chromium.launch(executable_path="/usr/bin/chromium")
        try:
            view = browser.new_page()
            view.set_content(page)
            assert serious_violations(view) == []
            view.screenshot(path="/tmp/page-deep-link-picker.png", full_page=True)
        finally:
            browser.close()
