"""The demo LMS's course and people (an instructor, three students; and another course of the same account), and the
resource link launch lti1p3platform signs for them: what the platform (demo_platform.py) and its deep linking
request (demo_deep_link.py) both send."""

from __future__ import annotations

import typing as t
from dataclasses import dataclass

from lti1p3platform.message_launch import MessageLaunchAbstract

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
INSTRUCTOR = f"{MEMBERSHIP}#Instructor"
LEARNER = f"{MEMBERSHIP}#Learner"
COURSE_OFFERING = "http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
AGS_SCOPES = ["https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
              "https://purl.imsglobal.org/spec/lti-ags/scope/score",
              "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"]


@dataclass(frozen=True)
class DemoPerson:
    sub: str  # the platform's opaque, stable user id
    given_name: str
    family_name: str
    email: str
    role: str  # a context role URI

    @property
    def name(self) -> str:
        return f"{self.given_name} {self.family_name}"

    @property
    def role_name(self) -> str:
        return "instructor" if self.role == INSTRUCTOR else "student"


@dataclass(frozen=True)
class DemoCourse:
    context_id: str
    title: str
    label: str
    people: tuple[DemoPerson, ...]

    def person(self, sub: str) -> DemoPerson | None:
        return next((p for p in self.people if p.sub == sub), None)


DEMO_COURSE = DemoCourse("demo-rnn-101", "RNN hidden state (demo course)", "RNN101", (
    DemoPerson("demo-user-0001", "Grace", "Hopper", "grace.hopper@demo.invalid", INSTRUCTOR),
    DemoPerson("demo-user-0002", "Ada", "Lovelace", "ada.lovelace@demo.invalid", LEARNER),
    DemoPerson("demo-user-0003", "Alan", "Turing", "alan.turing@demo.invalid", LEARNER),
    DemoPerson("demo-user-0004", "Émilie", "du Châtelet", "emilie.du-chatelet@demo.invalid", LEARNER),
))
# Another course of the same account (and so the same deployment), whose people must be no one in the demo course.
OTHER_COURSE = DemoCourse("demo-other-202", "Another course of the account", "OTHER202", (
    DemoPerson("demo-user-0101", "Barbara", "Liskov", "barbara.liskov@demo.invalid", INSTRUCTOR),
))


class DemoLaunch(MessageLaunchAbstract):
    """lti1p3platform's resource link launch; the form is rendered by demo_pages."""

    def render_launch_form(self, launch_data: dict[str, t.Any], **kwargs: t.Any) -> dict[str, t.Any]:
        return launch_data
