"""What one course adds to a JupyterHub's configuration: call `add_course` from any `jupyterhub_config.py`, once per
course (an institution's multi-course hub as well as `autograder hub`'s own), after its own `c.JupyterHub.services`:

    from autograder.hub.course_config import add_course, add_idle_culler
    add_course(c, "/srv/courses/rnn-hidden-state", state_folder="/srv/jupyterhub/autograder")
    add_idle_culler(c)  # unless the hub already runs one

It runs as the hub loads its config (as root): the course's exchange is made with nbgrader's modes and its gradebook
if it has none, the course folder is given to its instructors' OS group and closed to everyone else, and the hub gets
the spawner, group-managed roles, the course in its LTI 1.3 login's courses, and the course's `autograder watch`
service, its status page and its students' "My assignments" page; with the tool's LTI key in lms.toml, `autograder
push --follow` and the roster sync as services too (services.py).
"""

import sys
from pathlib import Path
from typing import Any

from autograder.hub.course_access import closed_parent, make_gradebook, open_to_instructors
from autograder.hub.course_exchange import prepare_exchange
from autograder.hub.hub_course import CourseRefused, HubCourse, HubCourseError, read_hub_course
from autograder.hub.services import (
    grade_by_question_service,
    idle_culler_service,
    lms_services,
    my_assignments_service,
    status_service,
    watch_service,
)
from autograder.hub.spawner import STUDENT_CONFIG, CourseSpawner

USERS_FOLDER = "users"  # in a hub's state folder: each user's nbgrader settings


def _listed(value: Any) -> list:
    """A list setting of a traitlets Config as it stands (a lazy `append` made earlier in the file included)."""
    from traitlets.config.loader import LazyConfigValue

    return value.get_value([]) if isinstance(value, LazyConfigValue) else list(value)


def check_course(course: HubCourse, others: list[HubCourse]) -> None:
    """Refuse a course a hub with courses `others` cannot run: HubCourseError names the problem."""
    if not STUDENT_CONFIG.is_dir():
        raise HubCourseError(f"{STUDENT_CONFIG} is missing: the students' Jupyter settings come with the autograder "
                             "package (pip install it again, from its clone)")
    environment = Path(sys.prefix).resolve()
    if environment == course.folder or course.folder in environment.parents:
        raise HubCourseError(f"the hub's Python environment {environment} is inside the course folder "
                             f"{course.folder}, which the hub closes to everyone but its instructors: users' servers "
                             "run from that environment, so keep it outside the course")
    closed = closed_parent(course.folder)
    if closed is not None:
        raise HubCourseError(f"{closed} keeps other users out, so instructors' servers cannot reach {course.folder}: "
                             f"chmod o+x {closed}, or move the course")
    if any(other.course_id == course.course_id for other in others):
        raise HubCourseError(f"{course.folder}: course id {course.course_id!r} is already on this hub")
    if others and others[0].exchange_root != course.exchange_root:
        raise HubCourseError(f"{course.folder}: its exchange {course.exchange_root} is not the hub's "
                             f"{others[0].exchange_root} (one exchange per hub: set c.Exchange.root alike)")


def add_course(c: Any, course_folder: str | Path, state_folder: str | Path) -> HubCourse | None:
    """Add the course in `course_folder` to the hub configured by `c`; `state_folder` (the hub's, never inside a
    course's tracked files) holds each user's nbgrader settings. Raises HubCourseError naming the problem in the
    course's settings. A course someone else got to first (an exchange folder or OS group the hub did not make,
    which a student can make before the course is added) is refused alone: one line on stderr, None, and the
    hub's other courses are added as ever."""
    course = read_hub_course(Path(course_folder))
    courses = _listed(c.CourseSpawner.courses)
    check_course(course, courses)
    try:
        prepare_exchange(course)
        make_gradebook(course)
        open_to_instructors(course)
    except CourseRefused as exc:
        print(f"autograder hub: course {course.course_id} ({course.folder}) refused: {exc}", file=sys.stderr)
        return None
    # The LTI 1.3 login serves the hub's courses, each registered by its lms.toml [lti] (docs, "JupyterHub and
    # LTI 1.3"); a hub with another authenticator never reads this.
    c.CourseLtiAuthenticator.courses = [*_listed(c.CourseLtiAuthenticator.courses), str(course.folder)]
    c.JupyterHub.spawner_class = CourseSpawner
    c.CourseSpawner.courses = [*courses, course]
    c.CourseSpawner.user_config_root = str(Path(state_folder).resolve() / USERS_FOLDER)
    # A person's role in a course travels as their JupyterHub groups (autograder/hub/groups.py), which the
    # authenticator sets at each login from the LMS's launch.
    c.Authenticator.manage_groups = True
    # An instructor's launch opens the formgrader in their server named for the launch's course (spawner.py):
    # nbgrader's formgrader serves one course per server, and an instructor may teach several on one hub.
    c.JupyterHub.allow_named_servers = True
    status, readers = status_service(course)
    mine, students = my_assignments_service(course)
    questions, graders = grade_by_question_service(course)
    c.JupyterHub.services = [*_listed(c.JupyterHub.services), watch_service(course), status, mine, questions,
                             *lms_services(course)]
    c.JupyterHub.load_roles = [*_listed(c.JupyterHub.load_roles), readers, students, graders]
    return course


def add_idle_culler(c: Any, timeout: int | None = None) -> None:
    """jupyterhub-idle-culler as a managed service, stopping servers idle for `timeout` seconds (default
    services.IDLE_TIMEOUT_SECONDS)."""
    service, role = idle_culler_service() if timeout is None else idle_culler_service(timeout)
    c.JupyterHub.services = [*_listed(c.JupyterHub.services), service]
    c.JupyterHub.load_roles = [*_listed(c.JupyterHub.load_roles), role]
