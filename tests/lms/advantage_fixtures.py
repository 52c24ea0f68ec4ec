"""Fixtures for the LTI Advantage tests (outbox, NRPS, deep linking): the small LMS test course
(`conftest.course`, a copy of one gradebook built once per session) registered with an `AdvantagePlatform`
on loopback, its key in the environment."""

from __future__ import annotations

import pytest

from autograder.lms.lms_settings import load
from autograder.lms.lti import jwks
from tests.lms.conftest import Course
from tests.lms.nrps_platform import AdvantagePlatform
from tests.lms.test_lms_lti_push import keys  # noqa: F401 (the session's key pairs, a fixture)


def lti_settings(lms: AdvantagePlatform) -> str:
    return f"""
[lti]
issuer = "{lms.issuer}"
client_id = "{lms.client_id}"
deployment_id = "{lms.deployment_id}"
token_url = "{lms.token_url}"
lineitems_url = "{lms.base}/lineitems"
memberships_url = "{lms.memberships_url}"
user_id = "lti_user_id"

[push]
retries = 2
backoff_seconds = 0.01
poll_seconds = 0.05
"""


@pytest.fixture
def advantage(in_course: Course, keys, monkeypatch: pytest.MonkeyPatch):  # noqa: F811
    """The platform, with the course registered as its tool; no request it received broke a rule."""
    tool_private, _ = keys["tool"]
    with AdvantagePlatform(*keys["platform"], tool_jwks=jwks(tool_private)) as lms:
        path = in_course.root / "lms.toml"
        path.write_text(path.read_text() + lti_settings(lms))
        monkeypatch.setenv("LTI_PRIVATE_KEY", tool_private)
        lms.settings = load(in_course.root, required=True)
        lms.tool_key = tool_private
        yield lms
        assert lms.violations == []
