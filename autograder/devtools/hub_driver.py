"""`autograder hub` run and driven through JupyterHub's REST API, for its tests and `make bench-hub`: users and
groups made with the hub's admin token, servers spawned, and each user then acting with a token of their own,
through the proxy as a browser would (https://jupyterhub.readthedocs.io/en/stable/reference/rest-api.html)."""

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import requests

from autograder.hub.groups import instructor_group, student_group
from autograder.hub.os_accounts import AccountError, remove_user
from autograder.hub.services import free_port
from autograder.hub.standalone_hub import read_admin_token

CLI = str(Path(sys.executable).parent / "autograder")
HUB = (CLI, "hub")
DEMO_LOOP = (sys.executable, "-m", "autograder.devtools.demo_loop")  # the hub beside the demo LMS


class HubFailed(Exception):
    """The hub did not come up, or a call to it did not do what it should."""


@dataclass
class Api:
    """Calls through the proxy, with one token (the admin's, or a user's own)."""
    url: str  # the hub's public URL
    token: str

    def call(self, method: str, path: str, **kwargs) -> requests.Response:
        headers = {"Authorization": f"token {self.token}", **kwargs.pop("headers", {})}
        kwargs.setdefault("allow_redirects", False)  # a refusal can be a redirect to the login page
        return requests.request(method, f"{self.url}{path}", headers=headers, timeout=60, **kwargs)

    def hub(self, method: str, path: str, **kwargs) -> requests.Response:
        return self.call(method, f"/hub/api{path}", **kwargs)

    def server(self, user: str, method: str, path: str, **kwargs) -> requests.Response:
        """A call to `user`'s server (`path` under /user/<user>/), e.g. its contents API or nbgrader's."""
        return self.call(method, f"/user/{user}{path}", **kwargs)

    def put_notebook(self, user: str, path: str, notebook: dict) -> requests.Response:
        """Save `notebook` at `path` in `user`'s home, as JupyterLab's Save does (the contents API)."""
        return self.server(user, "PUT", f"/api/contents/{path}",
                           json={"type": "notebook", "format": "json", "content": notebook})

    def run_code(self, user: str, code: str, timeout: float = 120) -> str:
        """What `code` prints, run in a new kernel on `user`'s server (as that user), over the kernel's websocket
        through the proxy, as JupyterLab runs a cell; the kernel is shut down after."""
        import asyncio

        kernel = self.server(user, "POST", "/api/kernels", json={"name": "python3"})
        if kernel.status_code != 201:
            raise HubFailed(f"starting a kernel on {user}'s server: HTTP {kernel.status_code} {kernel.text[:300]}")
        kernel_id = kernel.json()["id"]
        try:
            return asyncio.run(asyncio.wait_for(self._execute(user, kernel_id, code), timeout))
        finally:
            self.server(user, "DELETE", f"/api/kernels/{kernel_id}")

    async def _execute(self, user: str, kernel_id: str, code: str) -> str:
        import json
        import uuid

        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        url = f"{self.url.replace('http', 'ws', 1)}/user/{user}/api/kernels/{kernel_id}/channels"
        socket = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {self.token}"}))
        msg_id = uuid.uuid4().hex
        header = {"msg_id": msg_id, "msg_type": "execute_request", "username": user, "session": uuid.uuid4().hex,
                  "version": "5.3", "date": ""}
        socket.write_message(json.dumps({
            "header": header, "parent_header": {}, "metadata": {}, "channel": "shell",
            "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True}}))
        printed = []
        try:
            while True:
                raw = await socket.read_message()
                if raw is None:
                    raise HubFailed(f"the kernel's websocket on {user}'s server closed")
                message = json.loads(raw)
                if message.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                kind, content = message["msg_type"], message["content"]
                if kind == "stream":
                    printed.append(content["text"])
                elif kind == "error":
                    printed.append(f"{content['ename']}: {content['evalue']}")
                elif kind == "status" and content["execution_state"] == "idle":
                    return "".join(printed)
        finally:
            socket.close()

    def assignments(self, user: str, action: str, course_id: str, assignment: str) -> requests.Response:
        """nbgrader's Assignments panel's buttons (`fetch`, `submit`, `fetch_feedback`) on `user`'s server: the
        list of assignments after the action, or nbgrader's error."""
        return self.server(user, "POST", f"/assignments/{action}",
                           json={"course_id": course_id, "assignment_id": assignment})


@dataclass
class RunningHub:
    url: str
    state: Path
    process: subprocess.Popen
    log_path: Path

    @property
    def admin(self) -> Api:
        return Api(self.url, read_admin_token(self.state))

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def add_user(self, name: str, *, course_id: str, instructor: bool = False) -> Api:
        """User `name` in the course's student (or instructor) group; an Api with a token of their own."""
        group = instructor_group(course_id) if instructor else student_group(course_id)
        self._ok(self.admin.hub("POST", f"/users/{name}"), f"create user {name}", (201, 409))
        self._ok(self.admin.hub("POST", f"/groups/{group}"), f"create group {group}", (201, 409))
        self._ok(self.admin.hub("POST", f"/groups/{group}/users", json={"users": [name]}), f"{name} into {group}")
        made = self._ok(self.admin.hub("POST", f"/users/{name}/tokens", json={"note": "driven by hub_driver"}),
                        f"token of {name}")
        return Api(self.url, made.json()["token"])

    def spawn(self, name: str) -> requests.Response:
        """Ask for `name`'s server (the reply: 201 started, 202 on its way, or the refusal)."""
        return self.admin.hub("POST", f"/users/{name}/server")

    def wait_ready(self, name: str, timeout: float = 180) -> float:
        """Seconds until `name`'s server is ready (its spawn asked for already)."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            model = self._ok(self.admin.hub("GET", f"/users/{name}"), f"user {name}").json()
            server = model.get("servers", {}).get("")
            if server and server.get("ready"):
                return time.monotonic() - start
            if not server and not model.get("pending"):
                raise HubFailed(f"{name}'s server stopped while starting; hub log:\n{self.log()[-4000:]}")
            time.sleep(0.25)
        raise HubFailed(f"{name}'s server not ready in {timeout} s; hub log:\n{self.log()[-4000:]}")

    def _ok(self, reply: requests.Response, what: str, codes=(200, 201)) -> requests.Response:
        if reply.status_code not in codes:
            raise HubFailed(f"{what}: HTTP {reply.status_code} {reply.text[:500]}")
        return reply


def wait_for_hub(url: str, process: subprocess.Popen, log_path: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise HubFailed(f"the hub ended (status {process.returncode}):\n{log_path.read_text()[-4000:]}")
        try:
            if requests.get(f"{url}/hub/api/", timeout=5).status_code == 200:
                return
        except requests.ConnectionError:
            pass
        time.sleep(0.3)
    raise HubFailed(f"the hub did not answer in {timeout} s:\n{log_path.read_text()[-4000:]}")


@contextmanager
def running_hub(course: Path, state: Path, *args: str, port: int | None = None,
                command: tuple[str, ...] = HUB) -> Iterator[RunningHub]:
    """`autograder hub course --state state` (or another `command` taking its arguments, `DEMO_LOOP`) on `port`
    (default: a free one), stopped (SIGTERM: its servers and services with it) whatever happens."""
    port = port or free_port()
    log_path = state.parent / f"{state.name}-hub.log"
    with open(log_path, "w") as out:
        process = subprocess.Popen([*command, str(course), "--port", str(port), "--state", str(state), *args],
                                   stdout=out, stderr=subprocess.STDOUT, env=dict(os.environ))
    hub = RunningHub(f"http://127.0.0.1:{port}", state, process, log_path)
    try:
        wait_for_hub(hub.url, process, log_path)
        yield hub
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def remove_users(names: list[str]) -> None:
    """The OS users a hub made (and whatever they still run), with their homes; one not there is passed over."""
    for name in names:
        with contextlib.suppress(AccountError):
            remove_user(name)
