"""nbgrader's exchange for a course on a hub, made when the hub starts: the root every student may write (1777,
as /tmp), the course's outbound/ (read by all) and inbound/ (0733 and setgid: students drop in, cannot list),
made by nbgrader's own release code so the modes are exactly nbgrader's."""

import os
from pathlib import Path

from autograder.hub.hub_course import HubCourse, HubCourseError

ROOT_MODE = 0o1777


def prepare_exchange(course: HubCourse) -> Path:
    """The course's exchange folders, made or given nbgrader's modes; the course's folder in the exchange."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange.abc.exchange import ExchangeError
    from nbgrader.exchange.default.release_assignment import ExchangeReleaseAssignment
    from traitlets.config import Config

    course.exchange_root.mkdir(parents=True, exist_ok=True)
    os.chmod(course.exchange_root, ROOT_MODE)  # nbgrader's fetch refuses a root its user cannot write
    config = Config()
    config.Exchange.root = str(course.exchange_root)
    config.CourseDirectory.course_id = course.course_id
    config.CourseDirectory.root = str(course.folder)
    coursedir = CourseDirectory(config=config)
    release = ExchangeReleaseAssignment(coursedir=coursedir, authenticator=Authenticator(config=config),
                                       config=config)
    try:
        release.init_dest()  # the course's folder, outbound/ and inbound/ (no assignment is copied)
    except ExchangeError as exc:
        raise HubCourseError(f"the exchange {course.exchange_root} for {course.course_id}: {exc}") from None
    return course.exchange_root / course.course_id
