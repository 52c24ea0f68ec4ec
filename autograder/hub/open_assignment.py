"""Where a student's LTI launch lands: `<their server>/autograder/open/<assignment>`, a Jupyter server extension of
students' servers (enabled by autograder/hub/user_config.py). It fetches the assignment into their home when it is
not there yet (nbgrader's own fetch, the one the Assignments panel's Fetch button runs; a folder already there is
never touched, so no work is overwritten), then sends them to its notebook in JupyterLab: the launch opens the work,
not a folder and the Launcher. Their server fetched every released assignment as it started (user_server.py): this
catches one released while it runs.

It also lists each assignment's submissions newest first in the Assignments panel (nbgrader lists them oldest
first), so the first "(view feedback)" a student meets after handing in again is their latest attempt's page.

Imported by its bare name: the server is `user_server.py` run by path (its folder first on sys.path), with a Python
that need not import `autograder`; this module imports nbgrader and Jupyter's packages only.
"""

import asyncio
import logging
import os
from pathlib import Path
from urllib.parse import quote

FETCH_VARIABLE = "AUTOGRADER_FETCH_COURSES"  # the student's courses, set by the spawner (spawner.py)
OPEN_PATH = "autograder/open"  # <server>/autograder/open/<assignment>: lti_login.get_next_url's target
# nbgrader's assignment names are folder names; refusing anything else keeps the URL from naming another path.
UNSAFE = ("/", "\\", "\0")


def fetch_released(home: Path, course_ids: list[str], log: logging.Logger, only: str | None = None) -> list[str]:
    """Fetch into `home` each assignment released in `course_ids` (or only `only`) that is not there yet; the
    ones fetched."""
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
            if assignment["status"] != "released" or (home / name).exists() or only not in (None, name):
                continue
            done = manager.fetch_assignment(course_id, name)
            if done["success"]:
                fetched.append(name)
            else:
                log.error("could not fetch %s of %s: %s", name, course_id, done["value"])
    return fetched


def landing(home: Path, assignment: str) -> str:
    """The JupyterLab path (under the server's base URL) a launch into `assignment` opens: its notebook (the one
    named for it, else the first by name), else its folder, else JupyterLab's file browser."""
    folder = home / assignment
    if not folder.is_dir():
        return "lab"
    notebooks = sorted(p.name for p in folder.glob("*.ipynb") if p.is_file())
    if not notebooks:
        return f"lab/tree/{quote(assignment)}"
    chosen = f"{assignment}.ipynb" if f"{assignment}.ipynb" in notebooks else notebooks[0]
    return f"lab/tree/{quote(assignment)}/{quote(chosen)}"


def newest_first(listed: dict) -> dict:
    """nbgrader's list of submitted assignments (`AssignmentList.list_submitted_assignments`'s reply) with each
    assignment's submissions newest first (its timestamps are one format, so their text sorts as their time)."""
    if listed.get("success"):
        for assignment in listed["value"]:
            assignment["submissions"] = sorted(assignment["submissions"], key=lambda s: s["timestamp"], reverse=True)
    return listed


def _jupyter_server_extension_points() -> list[dict]:
    return [{"module": "open_assignment"}]


def _load_jupyter_server_extension(serverapp) -> None:
    from jupyter_server.base.handlers import JupyterHandler
    from jupyter_server.utils import url_path_join
    from tornado import web

    home = Path(serverapp.root_dir).expanduser()
    log = logging.getLogger("autograder.hub.open_assignment")

    class OpenAssignment(JupyterHandler):
        @web.authenticated
        async def get(self, assignment: str) -> None:
            if not assignment or assignment in (".", "..") or any(c in assignment for c in UNSAFE):
                raise web.HTTPError(404)
            if not (home / assignment).exists():
                courses = os.environ.get(FETCH_VARIABLE, "").split()
                try:
                    fetched = await asyncio.to_thread(fetch_released, home, courses, log, assignment)
                    log.info("fetched %s on launch", ", ".join(fetched) or "nothing")
                except Exception:  # never keep a student from their server: the Fetch button is still there
                    log.exception("fetching %s failed", assignment)
            self.redirect(url_path_join(self.base_url, landing(home, assignment)))

    # nbgrader's Assignments panel's manager: its extension loads before this one (the server loads them by name).
    manager = serverapp.web_app.settings.get("assignment_list_manager")
    if manager is None:
        log.warning("nbgrader's assignment list is not loaded: submissions stay oldest first")
    else:
        listed = manager.list_submitted_assignments
        manager.list_submitted_assignments = lambda *args, **kwargs: newest_first(listed(*args, **kwargs))
    serverapp.web_app.add_handlers(".*$", [(url_path_join(serverapp.base_url, OPEN_PATH, r"([^/]+)"),
                                            OpenAssignment)])

