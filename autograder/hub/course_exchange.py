"""nbgrader's exchange for a course on a hub, made when the hub starts: the root every student may write (1777,
as /tmp), the course's outbound/ (read by all) and inbound/ (0733 and setgid: students drop in, cannot list),
made by nbgrader's own release code so the modes are exactly nbgrader's."""

import os
import stat
from pathlib import Path

from autograder.hub.hub_course import CourseRefused, HubCourse, HubCourseError

ROOT_MODE = 0o1777
MADE_HERE = ("inbound", "outbound", "feedback")  # the course's folders in the exchange (nbgrader's names)


def check_not_squatted(course: HubCourse) -> None:
    """Refuse (CourseRefused) a course whose folders in the exchange someone else made first: the root is
    writable by every student, so a student can make `<root>/<next course>/inbound` before the course is added,
    own it, and read every submission. Only the hub's (its own user's) folders are used, never adopted."""
    folder = course.exchange_root / course.course_id
    for path in (course.exchange_root, folder, *(folder / name for name in MADE_HERE)):
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(info.st_mode) or info.st_uid != os.geteuid():
            what = "a link" if stat.S_ISLNK(info.st_mode) else f"owned by uid {info.st_uid}"
            raise CourseRefused(f"{path} is {what}, not made by the hub: remove it and start the hub again")


def prepare_exchange(course: HubCourse) -> Path:
    """The course's exchange folders, made or given nbgrader's modes; the course's folder in the exchange."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange.abc.exchange import ExchangeError
    from nbgrader.exchange.default.release_assignment import ExchangeReleaseAssignment
    from traitlets.config import Config

    check_not_squatted(course)
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
