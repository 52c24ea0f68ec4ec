"""A hub user's server, as that user: first every released assignment of their courses not yet in their home is
fetched (nbgrader's own fetch, the one the Assignments panel's Fetch button runs), so the link an LTI launch lands
on (`/user-redirect/lab/tree/<assignment>`) opens; then JupyterHub's single-user JupyterLab, in this process.

Run by path by the spawner (autograder/hub/spawner.py), with the system's Python where the hub's is private: it
imports nbgrader and JupyterHub only, never the `autograder` package. A failed fetch is logged and the server starts
anyway (the student can press Fetch).
"""

import logging
import os
import sys
from pathlib import Path

FETCH_VARIABLE = "AUTOGRADER_FETCH_COURSES"  # set by the spawner (spawner.FETCH_VARIABLE)


def fetch_released(home: Path, course_ids: list[str], log: logging.Logger) -> list[str]:
    """Fetch into `home` each assignment released in `course_ids` that is not there yet; the ones fetched."""
    from nbgrader.server_extensions.assignment_list.handlers import AssignmentList

    manager = AssignmentList()
    manager.root_dir = str(home)
    fetched = []
    for course_id in course_ids:
        listed = manager.list_released_assignments(course_id=course_id)
        if not listed["success"]:
            log.error("could not list the released assignments of %s: %s", course_id, listed["value"])
            continue
        for assignment in listed["value"]:
            name = assignment["assignment_id"]
            if assignment["status"] != "released" or (home / name).exists():
                continue
            done = manager.fetch_assignment(course_id, name)
            if done["success"]:
                fetched.append(name)
            else:
                log.error("could not fetch %s of %s: %s", name, course_id, done["value"])
    return fetched


def main() -> None:
    log = logging.getLogger("autograder.hub.user_server")
    handler = logging.StreamHandler()  # this logger's own: the server's loggers keep their levels
    handler.setFormatter(logging.Formatter("[autograder %(levelname)s %(asctime)s] %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    home = Path(os.environ.get("HOME") or Path.cwd())
    courses = os.environ.get(FETCH_VARIABLE, "").split()
    if courses:
        os.chdir(home)  # nbgrader reads the user's config from the working folder too
        try:
            log.info("fetched %s", ", ".join(fetch_released(home, courses, log)) or "nothing new")
        except Exception:  # never keep a student from their server: the Fetch button is still there
            log.exception("fetching the released assignments failed")
    from jupyterhub.singleuser import main as singleuser

    sys.argv[0] = "jupyterhub-singleuser"
    sys.exit(singleuser())


if __name__ == "__main__":
    main()
