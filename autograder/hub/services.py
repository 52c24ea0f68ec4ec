"""The managed services a course hub runs beside the users' servers: `autograder watch` (one per course, root, in
the course folder), its status page (one per course, in the Services menu of its instructors), and JupyterHub's
idle culler. JupyterHub starts them with the hub, stops them with it (SIGINT
first: the watcher finishes the submission in hand), restarts one that dies, and lists them in its admin page and
its REST API (`GET /hub/api/services`)."""

import socket
import sys
from pathlib import Path

from autograder.hub.groups import instructor_group
from autograder.hub.hub_course import HubCourse

# Stop a user's server after an hour without activity (JupyterLab open in a browser tab counts as activity): a
# student's server holds ~100 MB (README, "Running the course on JupyterHub"); their files stay in their home.
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


def status_service(course: HubCourse) -> tuple[dict, dict]:
    """The watcher's status page (autograder/hub/status_service.py) on a port of its own, and the role that lets
    the course's instructors open it (the hub's admins may open any service)."""
    name = status_service_name(course.course_id)
    service = {"name": name, "url": f"http://127.0.0.1:{free_port()}", "cwd": str(course.folder),
               "command": [sys.executable, "-m", "autograder.hub.status_service"], "oauth_no_confirm": True,
               "display": True}
    role = {"name": f"{name}-readers", "scopes": [f"access:services!service={name}"],
            "groups": [instructor_group(course.course_id)]}
    return service, role


def idle_culler_service(timeout: int = IDLE_TIMEOUT_SECONDS) -> tuple[dict, dict]:
    """jupyterhub-idle-culler as a managed service, and the role that lets it read activity and stop servers."""
    service = {"name": IDLE_CULLER,
               "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={timeout}"]}
    role = {"name": IDLE_CULLER, "scopes": IDLE_CULLER_SCOPES, "services": [IDLE_CULLER]}
    return service, role
