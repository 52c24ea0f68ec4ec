"""Fixtures for the LTI Advantage tests (outbox, NRPS, deep linking): the small LMS test course
(`conftest.course`, a copy of one gradebook built once per session) registered with an `AdvantagePlatform`
on loopback, its key in the environment."""

from __future__ import annotations

import pytest

from tests.lms.conftest import Course
from tests.lms.nrps_platform import registered
from tests.lms.test_lms_lti_push import keys  # noqa: F401 (the session's key pairs, a fixture)


@pytest.fixture
def advantage(in_course: Course, keys, monkeypatch: pytest.MonkeyPatch):  # noqa: F811
    """The platform, with the course registered as its tool; no request it received broke a rule."""
    tool_private, _ = keys["tool"]
    with registered(in_course.root, tool_private, keys["platform"]) as lms:
        monkeypatch.setenv("LTI_PRIVATE_KEY", tool_private)
        yield lms
        assert lms.violations == []
