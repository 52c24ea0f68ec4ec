"""A real JupyterHub with the LTI 1.3 login on loopback, for the launch tests: its own folder, its proxy
(configurable-http-proxy from npm, package.json), an admin service token to read users and groups through the
REST API, and a login-only spawner (no server is spawned by these tests). Stopped at the fixture's end."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

REPO = Path(__file__).resolve().parent.parent
PROXY = REPO / "node_modules" / ".bin" / "configurable-http-proxy"
ADMIN_TOKEN = "launch-tests-admin-token-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Hub:
    url: str  # the proxy's public URL: http://127.0.0.1:<port>
    process: subprocess.Popen
    log: Path
    direct: str  # the hub's own server, behind the proxy: http://127.0.0.1:<hub port>

    @property
    def hub_url(self) -> str:
        return f"{self.url}/hub/"

    def api(self, path: str) -> Any:
        response = requests.get(f"{self.url}/hub/api/{path}", headers={"Authorization": f"token {ADMIN_TOKEN}"},
                                timeout=30)
        return response.json() if response.status_code == 200 else None

    def user(self, name: str) -> dict | None:
        return self.api(f"users/{name}")

    def users(self) -> list[str]:
        return sorted(u["name"] for u in self.api("users"))

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


def hub_config(folder: Path, courses: list[Path], port: int, hub_port: int, extra: str = "") -> Path:
    config = folder / "jupyterhub_config.py"
    config.write_text(f"""
c = get_config()  # noqa: F821
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{free_port()}"
c.ConfigurableHTTPProxy.command = [{str(PROXY)!r}]
c.JupyterHub.db_url = "sqlite:///{folder / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = {str(folder / 'cookie_secret')!r}
c.JupyterHub.pid_file = {str(folder / 'jupyterhub.pid')!r}
c.JupyterHub.authenticator_class = "autograder.hub.lti_login.CourseLtiAuthenticator"
c.CourseLtiAuthenticator.courses = {[str(c) for c in courses]!r}
c.Authenticator.manage_groups = True
c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
c.JupyterHub.services = [{{"name": "launch-tests", "api_token": {ADMIN_TOKEN!r}}}]
c.JupyterHub.load_roles = [{{"name": "launch-tests", "services": ["launch-tests"],
                            "scopes": ["read:users", "read:groups", "list:users", "list:groups"]}}]
{extra}""")
    return config


def start_hub(folder: Path, courses: list[Path], port: int, extra: str = "") -> Hub:
    """The hub on 127.0.0.1:`port` (chosen by the caller, who registers its URLs with the platform first); `extra`:
    lines of configuration after ours (they win)."""
    assert PROXY.exists(), f"no {PROXY}: run `npm ci` in the repository (make test does)"
    folder.mkdir(parents=True, exist_ok=True)
    hub_port = free_port()
    config = hub_config(folder, courses, port, hub_port, extra)
    log = folder / "jupyterhub.log"
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    with log.open("wb") as out:
        process = subprocess.Popen([str(Path(sys.executable).parent / "jupyterhub"), "-f", str(config)],
                                   cwd=folder, stdout=out, stderr=subprocess.STDOUT, env=env,
                                   start_new_session=True)
    hub = Hub(f"http://127.0.0.1:{port}", process, log, f"http://127.0.0.1:{hub_port}")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"JupyterHub stopped at start:\n{hub.log_text()[-3000:]}")
        try:
            if requests.get(f"{hub.url}/hub/api/", timeout=2).status_code == 200:
                return hub
        except requests.ConnectionError:
            pass
        time.sleep(0.2)
    stop_hub(hub)
    raise RuntimeError(f"JupyterHub did not answer within 120 s:\n{hub.log_text()[-3000:]}")


def stop_hub(hub: Hub) -> None:
    """The hub and its proxy (its own process group)."""
    if hub.process.poll() is None:
        os.killpg(hub.process.pid, signal.SIGTERM)
        try:
            hub.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(hub.process.pid, signal.SIGKILL)
            hub.process.wait()
    try:
        os.killpg(hub.process.pid, signal.SIGKILL)  # the proxy, if the hub left it behind
    except ProcessLookupError:
        pass
