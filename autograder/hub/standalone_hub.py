"""`autograder hub`'s own JupyterHub: one course, on 127.0.0.1, its state in a folder of its own.

The state folder (never the course's tracked files) holds:
    hub/                      0700: jupyterhub_config.py, hub.json (this hub's settings, as data), JupyterHub's
                              database, cookie secret and proxy pid, the admin token
    users/<name>/             0755: each user's nbgrader settings (autograder/hub/user_config.py), read by their server
The generated jupyterhub_config.py only calls `configure`, which reads hub.json: no value is written as code.
"""

import contextlib
import json
import os
import secrets
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from autograder.hub.course_config import USERS_FOLDER, add_course, add_idle_culler
from autograder.hub.hub_course import HubCourseError

ADMIN_SERVICE = "autograder-hub-admin"  # the admin token's service: the tests, `make bench-hub`, the demo LMS
PROXY_NAME = "configurable-http-proxy"
HUB_FOLDER = "hub"
HUB_DATABASE = "jupyterhub.sqlite"  # JupyterHub's own, in HUB_FOLDER
SETTINGS_FILE, CONFIG_FILE, ADMIN_TOKEN_FILE = "hub.json", "jupyterhub_config.py", "admin-token"
CONFIG_TEXT = '''"""Written by `autograder hub` at each start: its settings are in hub.json beside this file."""

from autograder.hub.standalone_hub import configure

configure(c, __file__)  # noqa: F821 - c is given by traitlets when it loads this file
'''


@dataclass(frozen=True)
class StandaloneHub:
    course_folder: str
    state: str
    port: int  # the public one: the proxy, on 127.0.0.1
    hub_port: int
    proxy_api_port: int
    authenticator: str
    proxy: str  # configurable-http-proxy's path
    idle_timeout: int | None  # None: services.IDLE_TIMEOUT_SECONDS

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def hub_folder(self) -> Path:
        return Path(self.state) / HUB_FOLDER

    @property
    def admin_token_file(self) -> Path:
        return self.hub_folder / ADMIN_TOKEN_FILE


def find_proxy(explicit: str | None) -> str | None:
    """configurable-http-proxy: `explicit`, else the clone's node_modules (package.json pins it; `make install`
    runs npm ci), else the one on PATH."""
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    clone = Path(__file__).resolve().parents[2] / "node_modules" / ".bin" / PROXY_NAME
    return str(clone) if os.access(clone, os.X_OK) else shutil.which(PROXY_NAME)


def write_state(hub: StandaloneHub) -> Path:
    """The state folder's files for `hub` (the admin token kept across starts); the config file to run."""
    state = Path(hub.state)
    for folder, mode in ((state, 0o711), (hub.hub_folder, 0o700), (state / USERS_FOLDER, 0o755)):
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, mode)
    if not hub.admin_token_file.exists():
        descriptor = os.open(hub.admin_token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as out:
            out.write(secrets.token_hex(32) + "\n")
    (hub.hub_folder / SETTINGS_FILE).write_text(json.dumps(asdict(hub), indent=2) + "\n", encoding="utf-8")
    config = hub.hub_folder / CONFIG_FILE
    config.write_text(CONFIG_TEXT, encoding="utf-8")
    return config


def hub_user_names(state: Path) -> list[str]:
    """The users of the hub whose state folder is `state`, from its database (read-only); none without one."""
    import sqlite3

    database = Path(state) / HUB_FOLDER / HUB_DATABASE
    if not database.is_file():
        return []
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        return sorted(name for (name,) in db.execute("SELECT name FROM users"))


def read_admin_token(state: Path) -> str:
    return (Path(state) / HUB_FOLDER / ADMIN_TOKEN_FILE).read_text().strip()


def configure(c: Any, config_file: str) -> None:
    """The whole hub, from the hub.json beside `config_file`."""
    folder = Path(config_file).resolve().parent
    hub = StandaloneHub(**json.loads((folder / SETTINGS_FILE).read_text(encoding="utf-8")))
    c.JupyterHub.bind_url = hub.url
    c.JupyterHub.hub_ip = "127.0.0.1"
    c.JupyterHub.hub_port = hub.hub_port
    c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{hub.proxy_api_port}"
    c.ConfigurableHTTPProxy.command = [hub.proxy]
    c.ConfigurableHTTPProxy.pid_file = str(folder / "jupyterhub-proxy.pid")
    c.JupyterHub.db_url = f"sqlite:///{folder / HUB_DATABASE}"
    c.JupyterHub.cookie_secret_file = str(folder / "jupyterhub_cookie_secret")
    c.JupyterHub.authenticator_class = hub.authenticator
    c.JupyterHub.services = [{"name": ADMIN_SERVICE, "api_token": read_admin_token(Path(hub.state))}]
    c.JupyterHub.load_roles = [{"name": "admin", "services": [ADMIN_SERVICE]}]
    if add_course(c, hub.course_folder, Path(hub.state)) is None:
        raise HubCourseError(f"{hub.course_folder}: the hub's one course was refused (the line above says why)")
    add_idle_culler(c, hub.idle_timeout)
