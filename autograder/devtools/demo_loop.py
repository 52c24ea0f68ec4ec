"""The whole loop on one machine: `python -m autograder.devtools.demo_loop COURSE_FOLDER [--port N] [--lms-port N]`
(`make hub` runs it on the demo course, devtools/hub_demo.py). The demo LMS (devtools/demo_lms/, a real LTI 1.3
platform) runs on 127.0.0.1 in this process, its demo course registered as the course's LMS course (its `[lti]`
written into the course's lms.toml), and JupyterHub runs as this process's child, prepared as `autograder hub`
prepares it (commands/hub.py), its login the LTI 1.3 one; the person opens the demo LMS's course page and clicks a
launch link. Ctrl-C (or SIGTERM) stops the hub, which stops its servers and services, then the demo LMS."""

import argparse
import json
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from autograder.cli import UserError
from autograder.commands.hub import DEFAULT_AUTHENTICATOR, add_hub_arguments, hub_course, prepare_hub
from autograder.course.nbgrader_cli import tools_on_path
from autograder.devtools.demo_lms.demo_platform import DemoLms
from autograder.hub.hub_course import HubCourse
from autograder.hub.standalone_hub import StandaloneHub, read_admin_token
from autograder.lms.errors import LmsError

READY_TIMEOUT = 600  # seconds the hub may take to answer before the URL is printed anyway (a loaded 2-core machine)
PROG = "demo_loop"  # what its one-line refusals start with
HUB_LOG = "jupyterhub.log"  # in the hub's state folder, when the loop runs on a terminal


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
        raise UserError(f"the demo LMS cannot listen on 127.0.0.1:{port} ({exc.strerror}): choose another port "
                        "with --lms-port") from None
    try:
        path = lms.register_course(course.folder, key_file=state / "demo-lms-tool-key.pem")
    except LmsError as exc:
        lms.server.server_close()
        raise UserError(f"{exc}: the demo LMS needs a course with no [lti] of another LMS") from None
    print(f"{PROG}: the demo LMS's course is registered in {path} [lti] (kept for the next run on the same port; "
          "remove it before registering the course with a real LMS)", flush=True)
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
    # On a terminal the hub's log (some 100 lines before it is ready, then a line per request) goes to a file, so the
    # one URL to open is the last line and alone; elsewhere (a test, a service's journal) it stays in this output.
    log = open(Path(hub.state) / HUB_LOG, "ab") if sys.stdout.isatty() else None  # the child's, closed when it ends
    if log is not None:
        print(f"{PROG}: starting the hub (its log: {log.name}; about a minute)", flush=True)
    with lms:
        # Its own session: a terminal's Ctrl-C reaches this process only, which passes it on once.
        child = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)], cwd=hub.hub_folder,
                                 start_new_session=True, stdout=log, stderr=subprocess.STDOUT if log else None)
        children.append(child)
        deadline = time.monotonic() + READY_TIMEOUT
        while child.poll() is None and time.monotonic() < deadline and not _routed(hub):
            time.sleep(0.5)
        if child.poll() is None:
            print(f"{PROG}: ready; Ctrl-C stops the hub and the demo LMS. Open the demo LMS's course page (a launch "
                  "link per person and assignment: an instructor, three students):", flush=True)
            print(f"\n    {lms.base}/\n", flush=True)
        status = child.wait()
    if log is not None:
        log.close()
    return status if status >= 0 else 128 - status


def run(args: argparse.Namespace) -> int:
    """The course's hub beside the demo LMS, until the hub ends; its exit status."""
    lms_port = args.lms_port if args.lms_port is not None else args.port + 1
    if args.authenticator != DEFAULT_AUTHENTICATOR:
        raise UserError("the demo LMS launches through the LTI 1.3 login: leave out --authenticator")
    if not (0 < lms_port < 65536 and lms_port != args.port):
        raise UserError(f"--lms-port {lms_port} is not a port number other than the hub's")
    course, state = hub_course(args)
    # Before the hub is prepared: its LTI 1.3 login needs the course's [lti], which the demo LMS writes.
    lms = start_demo_lms(course, f"http://127.0.0.1:{args.port}", lms_port, state)
    try:
        hub, config = prepare_hub(args, course, state)
    except UserError:
        lms.server.server_close()
        raise
    return run_beside_demo_lms(lms, hub, config)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m autograder.devtools.{PROG}", description=__doc__.splitlines()[0])
    add_hub_arguments(parser)
    parser.add_argument("--lms-port", type=int, metavar="N",
                        help="the demo LMS's port (default: the hub's port + 1; the same port registers the same "
                             "[lti], so the course can be run again)")
    args = parser.parse_args(argv)
    tools_on_path()
    try:
        return run(args)
    except UserError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
