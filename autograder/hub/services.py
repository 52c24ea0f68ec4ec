"""The managed services a course hub runs beside the users' servers: `autograder watch` (one per course, root, in
the course folder), its status page (one per course, in the Services menu of its instructors), JupyterHub's
idle culler, and, for a course whose lms.toml gives the tool's LTI key, `autograder push --follow` (each score to
the LMS as it is made) and the roster sync (roster_service.py). JupyterHub starts them with the hub, stops them
with it (SIGINT first: the watcher finishes the submission in hand), restarts one that dies, and lists them in its
admin page and its REST API (`GET /hub/api/services`)."""

import os
import socket
import sys
from pathlib import Path

from autograder.hub.groups import instructor_group, student_group
from autograder.hub.hub_course import HubCourse, HubCourseError
from autograder.lms.errors import LmsError
from autograder.lms.lms_settings import Settings, load

# Stop a user's server after an hour without activity (JupyterLab open in a browser tab counts as activity): a
# student's server holds ~100 MB (docs, "JupyterHub and LTI 1.3"); their files stay in their home.
IDLE_TIMEOUT_SECONDS = 3600
IDLE_CULLER = "idle-culler"
# What jupyterhub-idle-culler needs of the hub's API (its README): the users, their activity, stopping servers.
IDLE_CULLER_SCOPES = ["list:users", "read:users:activity", "read:servers", "delete:servers"]


def watch_service_name(course_id: str) -> str:
    return f"autograder-watch-{course_id}"


def watch_service(course: HubCourse) -> dict:
    """`autograder watch` for `course`, as JupyterHub's `c.JupyterHub.services` takes a managed service: run as the
    hub's user (root: the sandbox drops each submission to `nobody` in its own namespaces), in the course root."""
    return {
        "name": watch_service_name(course.course_id),
        "command": [str(Path(sys.executable).parent / "autograder"), "watch"],
        "cwd": str(course.folder),
        "info": {"course": course.course_id, "what": "grades submissions as they arrive and releases feedback"},
    }


def status_service_name(course_id: str) -> str:
    return f"autograder-status-{course_id}"


def free_port() -> int:
    """A port free on 127.0.0.1 now (the hub's own, a service's)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def page_service(course: HubCourse, name: str, module: str, role: str, group: str, **more: object) -> tuple[dict, dict]:
    """A service of `course` served by `python -m <module>` on a port of its own in the course folder, and the role
    `<name>-<role>` that lets `group` open it; `more`: its other settings (`display`, `info`, ...)."""
    service = {"name": name, "url": f"http://127.0.0.1:{free_port()}", "cwd": str(course.folder),
               "command": [sys.executable, "-m", module], **more}
    return service, {"name": f"{name}-{role}", "scopes": [f"access:services!service={name}"], "groups": [group]}


def status_service(course: HubCourse) -> tuple[dict, dict]:
    """The watcher's status page (autograder/hub/status_service.py) on a port of its own, and the role that lets
    the course's instructors open it (the hub's admins may open any service)."""
    return page_service(course, status_service_name(course.course_id), "autograder.hub.status_service", "readers",
                        instructor_group(course.course_id), oauth_no_confirm=True, display=True)


def my_assignments_service_name(course_id: str) -> str:
    return f"autograder-my-{course_id}"


def my_assignments_service(course: HubCourse) -> tuple[dict, dict]:
    """Each student's "My assignments" page (autograder/hub/my_assignments_service.py), and the role that lets the
    course's students open it (its instructors have the class report)."""
    return page_service(course, my_assignments_service_name(course.course_id), "autograder.hub.my_assignments_service",
                        "readers", student_group(course.course_id), oauth_no_confirm=True, display=True,
                        info={"course": course.course_id, "what": "each student's assignments"})


def grade_by_question_service_name(course_id: str) -> str:
    return f"autograder-questions-{course_id}"


def grade_by_question_service(course: HubCourse) -> tuple[dict, dict]:
    """Grade by question (autograder/hub/grade_by_question_service.py), run in the course folder as the hub's user
    (it writes the gradebook, as the watcher does), and the role that lets the course's instructors and TAs open
    it: who grades is their hub name."""
    return page_service(course, grade_by_question_service_name(course.course_id),
                        "autograder.hub.grade_by_question_service", "graders", instructor_group(course.course_id),
                        oauth_no_confirm=True, display=True,
                        info={"course": course.course_id, "what": "grade one question across the class"})


def exchange_service_name(course_id: str) -> str:
    return f"autograder-exchange-{course_id}"


def exchange_service(course: HubCourse) -> tuple[dict, dict]:
    """The course's exchange service (autograder/hub/exchange_service.py: students hand in and fetch through it
    when they share one uid), and the role that lets the course's students use it. A student's server reaches it
    with its own token: `c.Spawner.server_token_scopes` must include `access:services!service=<its name>`
    (docs/administrators/exchange-service.md)."""
    return page_service(course, exchange_service_name(course.course_id), "autograder.hub.exchange_service", "users",
                        student_group(course.course_id),
                        info={"course": course.course_id, "what": "students hand in and fetch through it"})


def idle_culler_service(timeout: int = IDLE_TIMEOUT_SECONDS) -> tuple[dict, dict]:
    """jupyterhub-idle-culler as a managed service, and the role that lets it read activity and stop servers."""
    service = {"name": IDLE_CULLER,
               "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={timeout}"]}
    role = {"name": IDLE_CULLER, "scopes": IDLE_CULLER_SCOPES, "services": [IDLE_CULLER]}
    return service, role


def push_service_name(course_id: str) -> str:
    return f"autograder-push-{course_id}"


def roster_service_name(course_id: str) -> str:
    return f"autograder-roster-{course_id}"


def lti_key_environment(settings: Settings) -> dict[str, str] | None:
    """What a service needs to read the tool's LTI private key where lms.toml says: {} for a file (the service
    reads it, outside the course), the variable for an environment variable the hub has (a managed service gets
    only the environment it is given); None when lms.toml names no key and no token URL: no service then.
    HubCourseError when lms.toml names a key the hub cannot read."""
    if not settings.get("lti", "token_url") or not (settings.get("lti", "private_key_file")
                                                     or settings.get("lti", "private_key_env")):
        return None
    from autograder.lms import lti

    try:
        key = settings.secret("lti", "private_key_env", "private_key_file", lti.KEY_ENV, "LTI private key")
        lti.public_pem(key)
    except LmsError as exc:
        raise HubCourseError(f"{settings.path}: the LMS services cannot start: {exc}") from None
    name = settings.get("lti", "private_key_env")
    return {name: key} if name and os.environ.get(name, "").strip() else {}


def lms_services(course: HubCourse) -> list[dict]:
    """The course's LMS services, by what its lms.toml [lti] configures with a key: the grades sender when it names
    the line items (AGS), the roster sync when it names the memberships (NRPS)."""
    try:
        settings = load(course.folder)
    except LmsError as exc:
        raise HubCourseError(str(exc)) from None
    environment = lti_key_environment(settings)
    if environment is None:
        return []
    services = []
    if settings.get("lti", "lineitems_url"):
        services.append({
            "name": push_service_name(course.course_id), "cwd": str(course.folder), "environment": environment,
            "command": [str(Path(sys.executable).parent / "autograder"), "push", "--follow"],
            "info": {"course": course.course_id, "what": "sends each score to the LMS as it is made"}})
    if settings.get("lti", "memberships_url"):
        services.append({
            "name": roster_service_name(course.course_id), "cwd": str(course.folder), "environment": environment,
            "command": [sys.executable, "-m", "autograder.hub.roster_service"],
            "info": {"course": course.course_id, "what": "keeps the roster in step with the LMS course (NRPS)"}})
    return services
