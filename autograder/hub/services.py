"""The managed services a course hub runs beside the users' servers: `autograder watch` (one per course, root, in
the course folder) and JupyterHub's idle culler. JupyterHub starts them with the hub, stops them with it (SIGINT
first: the watcher finishes the submission in hand), restarts one that dies, and lists them in its admin page and
its REST API (`GET /hub/api/services`)."""

import sys
from pathlib import Path

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


def idle_culler_service(timeout: int = IDLE_TIMEOUT_SECONDS) -> tuple[dict, dict]:
    """jupyterhub-idle-culler as a managed service, and the role that lets it read activity and stop servers."""
    service = {"name": IDLE_CULLER,
               "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={timeout}"]}
    role = {"name": IDLE_CULLER, "scopes": IDLE_CULLER_SCOPES, "services": [IDLE_CULLER]}
    return service, role
