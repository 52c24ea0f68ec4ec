"""Each hub user's nbgrader settings, written by the hub before their server starts into a folder of the hub's
own that goes first on their JUPYTER_CONFIG_PATH: the exchange, the course id, and for an instructor the course
folder (their formgrader's root). Nothing is written into the user's home, and their own ~/.jupyter still wins.

JSON, not Python: the values are data (a course id from the LMS ends up here), never code."""

import json
import os
from pathlib import Path

from autograder.hub.hub_course import HubCourse

CONFIG_NAME = "nbgrader_config.json"


def write_user_config(root: Path, user: str, learns: list[HubCourse], teaches: list[HubCourse]) -> Path:
    """`root/<user>/nbgrader_config.json` for a user who learns in `learns` and teaches `teaches`; its folder.
    One course: its id is set, as nbgrader's Assignments panel wants. Several: no id, and the panel lists every
    course of the exchange (nbgrader's multi-course set-up); an instructor's formgrader runs the first they teach."""
    courses = [*teaches, *learns]
    settings: dict[str, dict[str, str]] = {"Exchange": {"root": str(courses[0].exchange_root)}}
    if len(courses) == 1:
        settings["CourseDirectory"] = {"course_id": courses[0].course_id}
    if teaches:
        settings.setdefault("CourseDirectory", {})["root"] = str(teaches[0].folder)
        settings["CourseDirectory"]["course_id"] = teaches[0].course_id
    folder = root / user
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o755)
    os.chmod(folder, 0o755)  # read by the user's server; nothing in it is secret
    _write(folder / CONFIG_NAME, settings)
    # JupyterLab's first start asks each user whether to fetch Jupyter news from the internet, in a toast that
    # sits over the notebook and the feedback: a course's servers have no use for it (JupyterLab reads page
    # settings from every folder of JUPYTER_CONFIG_PATH).
    (folder / "labconfig").mkdir(exist_ok=True)
    os.chmod(folder / "labconfig", 0o755)
    _write(folder / "labconfig" / "page_config.json", {"disabledExtensions": {NEWS_EXTENSION: True}})
    # Staff read what students wrote (the formgrader's submissions): their server makes it inert (staff_pages.py).
    extensions = folder / "jupyter_server_config.d"
    extensions.mkdir(exist_ok=True)
    os.chmod(extensions, 0o755)
    if teaches:
        _write(extensions / STAFF_PAGES_FILE, {"ServerApp": {"jpserver_extensions": {STAFF_PAGES: True}}})
    else:
        (extensions / STAFF_PAGES_FILE).unlink(missing_ok=True)
    return folder


NEWS_EXTENSION = "@jupyterlab/apputils-extension:announcements"
STAFF_PAGES = "autograder.hub.staff_pages"
STAFF_PAGES_FILE = "autograder-staff-pages.json"


def _write(path: Path, settings: dict) -> None:
    staged = path.with_suffix(".tmp")
    staged.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    os.chmod(staged, 0o644)
    os.replace(staged, path)
