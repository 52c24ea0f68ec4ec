"""One course as a hub runs it: its nbgrader course id, its folder, its exchange, and the OS group of its
instructors; read from the course folder's own nbgrader_config.py, the one place a course says these."""

from dataclasses import dataclass
from pathlib import Path

from autograder.hub.groups import instructor_group
from autograder.hub.os_accounts import course_group_name


class HubCourseError(Exception):
    """A course folder a hub cannot run; the message names the folder and the problem."""


class CourseRefused(HubCourseError):
    """A course kept off the hub by what someone else made first (a group or exchange folder the hub did not
    make): that course alone is refused, with one line, and the hub's other courses go on."""


@dataclass(frozen=True)
class HubCourse:
    course_id: str
    folder: Path  # the course root: nbgrader_config.py, source/, release/, the gradebook
    exchange_root: Path  # c.Exchange.root, shared by the courses of one hub

    @property
    def instructors_os_group(self) -> str:
        """The OS group that owns the course folder: the instructors' servers run in it."""
        return course_group_name(instructor_group(self.course_id))


def read_hub_course(folder: Path) -> HubCourse:
    """The course in `folder`, as its nbgrader_config.py sets it (a course id is required)."""
    from autograder.course.settings import SettingsError, read_course
    from autograder.watch.exchange import Exchange

    folder = Path(folder).resolve()
    if not folder.is_dir():
        raise HubCourseError(f"{folder}: no such course folder")
    try:
        settings = read_course(folder, rooted=True)
    except SettingsError as exc:
        raise HubCourseError(str(exc)) from None
    if not settings.course_id:
        raise HubCourseError(f"{folder / 'nbgrader_config.py'} sets no c.CourseDirectory.course_id: a hub tells "
                             "its courses apart by it")
    exchange = Exchange.from_config(settings.coursedir.config, settings.course_id)
    return HubCourse(settings.course_id, folder, exchange.root)
