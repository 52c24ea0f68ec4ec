"""`autograder hub COURSE --demo-lms`: the whole loop on one machine. The demo LMS (devtools/demo_lms/, a real
LTI 1.3 platform) runs on 127.0.0.1 in this process, its demo course registered as the course's LMS course (its
`[lti]` written into the course's lms.toml), and JupyterHub runs as this process's child, its login the LTI 1.3
one; the person opens the demo LMS's course page and clicks a launch link. Ctrl-C (or SIGTERM) stops the hub,
which stops its servers and services, then the demo LMS."""

import json
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from autograder.devtools.demo_lms.demo_platform import DemoLms
from autograder.hub.hub_course import HubCourse
from autograder.hub.standalone_hub import StandaloneHub, read_admin_token
from autograder.lms.errors import LmsError

READY_TIMEOUT = 600  # seconds the hub may take to answer before the URL is printed anyway (a loaded 2-core machine)


class DemoLmsError(Exception):
    """The demo LMS cannot start beside this course (its port, the course's lms.toml): one line."""


def released_assignments(course: HubCourse) -> list[str]:
    """The assignments released into the course's exchange: the demo LMS links to each."""
    outbound = course.exchange_root / course.course_id / "outbound"
    return sorted(p.name for p in outbound.iterdir() if p.is_dir()) if outbound.is_dir() else []


def start_demo_lms(course: HubCourse, hub_url: str, port: int, state: Path) -> DemoLms:
    """The demo LMS on 127.0.0.1:`port`, listening, the course registered with it; not yet serving (use `with`).
    The tool's key for it goes into the hub's `state` folder (outside the course), so the hub's services send
    each grade to the demo LMS's gradebook and sync its roster, as with a real LMS."""
    try:
        lms = DemoLms(f"{hub_url}/hub/", released_assignments(course), port=port)
    except OSError as exc:
        raise DemoLmsError(f"the demo LMS cannot listen on 127.0.0.1:{port} ({exc.strerror}): choose another "
                           "port with --demo-lms-port") from None
    try:
        path = lms.register_course(course.folder, key_file=state / "demo-lms-tool-key.pem")
    except LmsError as exc:
        lms.server.server_close()
        raise DemoLmsError(f"{exc}: --demo-lms needs a course with no [lti] of another LMS") from None
    print(f"autograder hub: the demo LMS's course is registered in {path} [lti] (kept for the next --demo-lms run "
          "on the same port; remove it before registering the course with a real LMS)", flush=True)
    return lms


def _routed(hub: StandaloneHub) -> bool:
    """Whether the proxy sends the hub's pages to it yet: asked of the hub's own port (with the admin token), as the
    proxy logs every request it cannot route as an error."""
    request = urllib.request.Request(f"http://127.0.0.1:{hub.hub_port}/hub/api/proxy",
                                     headers={"Authorization": f"token {read_admin_token(Path(hub.state))}"})
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return "/" in json.load(reply)
    except (urllib.error.URLError, OSError, ValueError):
        return False


def run_beside_demo_lms(lms: DemoLms, hub: StandaloneHub, config: Path) -> int:
    """JupyterHub on `config` until it ends, the demo LMS serving meanwhile; the hub's exit status."""
    children: list[subprocess.Popen] = []

    def pass_on(signum: int, _frame: object) -> None:
        if children and children[0].poll() is None:
            children[0].send_signal(signum)

    # Set before the hub starts: a Python handler is reset to the default in the child, where SIG_IGN (which a
    # script's background job inherits) would stay, and the hub's servers would ignore its SIGINT.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, pass_on)
    with lms:
        # Its own session: a terminal's Ctrl-C reaches this process only, which passes it on once.
        child = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)], cwd=hub.hub_folder,
                                 start_new_session=True)
        children.append(child)
        deadline = time.monotonic() + READY_TIMEOUT
        while child.poll() is None and time.monotonic() < deadline and not _routed(hub):
            time.sleep(0.5)
        if child.poll() is None:
            print(f"autograder hub: open the demo LMS's course page, {lms.base}/ (a launch link per person and "
                  "assignment: an instructor, three students); Ctrl-C stops the hub and the demo LMS", flush=True)
        status = child.wait()
    return status if status >= 0 else 128 - status
