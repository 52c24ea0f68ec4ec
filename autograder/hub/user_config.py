"""Each hub user's nbgrader settings, written by the hub before their server starts into a folder of the hub's
own that goes first on their JUPYTER_CONFIG_PATH: the exchange, the course id, and for an instructor the course
folder (their formgrader's root). Nothing is written into the user's home, and their own ~/.jupyter still wins.

JSON, not Python: the values are data (a course id from the LMS ends up here), never code."""

import json
import os
from pathlib import Path

from autograder.hub.hub_course import HubCourse
from autograder.hub.services import my_assignments_service_name

CONFIG_NAME = "nbgrader_config.json"


def write_user_config(root: Path, user: str, learns: list[HubCourse], teaches: list[HubCourse],
                      services_url: str = "/services/", python: str = "python3") -> Path:
    """`root/<user>/nbgrader_config.json` for a user (`user`: their name, or name+server for a named server) who
    learns in `learns` and teaches `teaches`; its folder.
    One course: its id is set, as nbgrader's Assignments panel wants. Several: no id, and the panel lists every
    course of the exchange (nbgrader's multi-course set-up); an instructor's formgrader runs the first of `teaches`
    (the course a named server is for, spawner.py).
    A student's JupyterLab gets a Course menu, a file browser button and a Launcher card opening their My
    assignments page of each course (the hub's services under `services_url`; the card's process runs `python`)."""
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
    # Staff get the inert pages; students the page a launch lands on (open_assignment.py) and the Course menu.
    chosen, dropped = (STAFF_PAGES_FILE, STUDENT_PAGES_FILE) if teaches else (STUDENT_PAGES_FILE, STAFF_PAGES_FILE)
    if teaches:  # no proxy at all on a server that opens what students wrote: it could reach the hub's services
        _write(extensions / chosen, {"ServerApp": {"jpserver_extensions": {STAFF_PAGES: True, SERVER_PROXY: False}}})
        (folder / SERVER_CONFIG).unlink(missing_ok=True)
    else:
        _write(extensions / chosen, {"ServerApp": {"jpserver_extensions": {OPEN_ASSIGNMENT: True}}})
        # Settings other than the extensions' list are read from the server's own file, not from the `.d` folder.
        _write(folder / SERVER_CONFIG, {"ServerProxy": launcher_cards(learns, services_url, python)})
    (extensions / dropped).unlink(missing_ok=True)
    lab_settings = folder / "lab_settings"
    if teaches:
        (folder / LAB_CONFIG).unlink(missing_ok=True)
    else:
        lab_settings.mkdir(exist_ok=True)
        os.chmod(lab_settings, 0o755)
        _write(lab_settings / "overrides.json", course_links(learns, services_url))
        # JupyterLab's own settings folder for this user's server: where it reads the overrides above.
        _write(folder / LAB_CONFIG, {"LabApp": {"app_settings_dir": str(lab_settings)}})
    return folder


def course_links(learns: list[HubCourse], services_url: str) -> dict:
    """JupyterLab's settings overrides opening the student's My assignments page of each course in a browser tab
    (the page links back), with JupyterLab's own help:open command, so no extension is built: a Course menu, and
    a button in the file browser's toolbar, beside the Launcher's "+" (the Launcher's card: `launcher_cards`)."""
    def opens(course: HubCourse) -> dict:
        text = MY_ASSIGNMENTS if len(learns) == 1 else f"{MY_ASSIGNMENTS}: {course.course_id}"
        return {"command": "help:open", "args": {
            "url": f"{services_url}{my_assignments_service_name(course.course_id)}/", "newBrowserTab": True,
            "text": text}}

    items = [opens(course) for course in learns]
    menu = [{**item, "rank": rank} for rank, item in enumerate(items)]
    buttons = [{**item, "name": f"my-assignments-{rank}", "label": item["args"]["text"], "rank": 1000 + rank}
               for rank, item in enumerate(items)]
    return {MAIN_MENU: {"menus": [{"id": COURSE_MENU, "label": "Course", "rank": 900, "items": menu}]},
            FILE_BROWSER: {"toolbar": buttons}}


def launcher_cards(learns: list[HubCourse], services_url: str, python: str) -> dict:
    """jupyter-server-proxy's settings: a Launcher card per course, in a "Course" section, each opening a process
    (my_assignments_redirect.py, started at its first click) that sends the browser on to the My assignments page.
    The proxy's `/proxy/<port>` reaches what the student's own terminal reaches on loopback, through their own
    server only (the hub lets no one else in): nothing more. Staff servers have no proxy (write_user_config)."""
    servers = {}
    for rank, course in enumerate(learns):
        name = CARD if len(learns) == 1 else f"{CARD}-{rank + 1}"
        text = MY_ASSIGNMENTS if len(learns) == 1 else f"{MY_ASSIGNMENTS}: {course.course_id}"
        servers[name] = {
            "command": [python, str(REDIRECT), "{port}", "{base_url}", name,
                        f"{services_url}{my_assignments_service_name(course.course_id)}/"],
            "new_browser_tab": True, "timeout": 30,
            "launcher_entry": {"title": text, "category": "Course", "icon_path": str(CARD_ICON)}}
    return {"servers": servers, "host_allowlist": ["localhost"] if servers else []}


NEWS_EXTENSION = "@jupyterlab/apputils-extension:announcements"
MAIN_MENU = "@jupyterlab/mainmenu-extension:plugin"
FILE_BROWSER = "@jupyterlab/filebrowser-extension:widget"
COURSE_MENU = "jp-mainmenu-course"
MY_ASSIGNMENTS = "My assignments"
LAB_CONFIG = "jupyter_lab_config.json"  # read by JupyterLab (not the server): its LabApp settings
OPEN_ASSIGNMENT = "open_assignment"  # autograder/hub/open_assignment.py, imported by its bare name there
STUDENT_PAGES_FILE = "autograder-student-pages.json"
STAFF_PAGES = "autograder.hub.staff_pages"
STAFF_PAGES_FILE = "autograder-staff-pages.json"
SERVER_PROXY = "jupyter_server_proxy"
SERVER_CONFIG = "jupyter_server_config.json"
CARD = "my-assignments"  # the Launcher card's path under a student's server (jupyter-server-proxy's name)
REDIRECT = Path(__file__).with_name("my_assignments_redirect.py")  # run by path: the student's Python
CARD_ICON = Path(__file__).with_name("my_assignments_icon.svg")


def _write(path: Path, settings: dict) -> None:
    staged = path.with_suffix(".tmp")
    staged.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    os.chmod(staged, 0o644)
    os.replace(staged, path)
