"""`autograder hub COURSE_FOLDER [--port N]`: run the course on a real JupyterHub, on 127.0.0.1, until Ctrl-C.

Each student gets their own JupyterLab as their own OS user (made on first login, home 0700) with every released
assignment fetched; instructors get the formgrader on the course folder; `autograder watch` grades submissions as a
service of the hub. The hub's files go to a state folder (--state), never into the course's own files. Run as root:
the hub starts servers as other users.

With --demo-lms, the demo LMS (a real LTI 1.3 platform) runs beside it on 127.0.0.1 with the course registered, and
its course page is the one URL to open: a launch link per person and assignment (autograder/hub/demo_loop.py).
"""

import os
import signal
import sys
from pathlib import Path

from autograder.cli import UserError, add_command

# The LTI 1.3 login (autograder/hub/lti_login.py); the tests give "null" (users made through the REST API).
DEFAULT_AUTHENTICATOR = "autograder.hub.lti_login.CourseLtiAuthenticator"
STATE_ROOT = Path("/var/lib/autograder-hub")  # the default state folder: STATE_ROOT/<course id>
DEFAULT_PORT = 8000


def register(subparsers) -> None:
    parser = add_command(subparsers, "hub", run, "run the course on JupyterHub (one course, on this machine)",
                         __doc__)
    parser.add_argument("course_folder", metavar="COURSE_FOLDER")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"the hub's port (default {DEFAULT_PORT})")
    parser.add_argument("--state", metavar="DIR",
                        help=f"the hub's state folder (default {STATE_ROOT}/<course id>)")
    parser.add_argument("--authenticator", default=DEFAULT_AUTHENTICATOR, metavar="CLASS",
                        help=f"JupyterHub's authenticator class (default {DEFAULT_AUTHENTICATOR})")
    parser.add_argument("--proxy", metavar="PATH",
                        help="configurable-http-proxy (default: this clone's node_modules, else PATH)")
    parser.add_argument("--idle-timeout", type=int, metavar="SECONDS",
                        help="stop a user's server idle this long (default: 3600)")
    parser.add_argument("--demo-lms", action="store_true",
                        help="also run the demo LMS (a real LTI 1.3 platform) on 127.0.0.1, its demo course "
                             "registered in the course's lms.toml [lti], and print its course page: the one URL to "
                             "open (the whole loop: launch, JupyterLab, submit, feedback)")
    parser.add_argument("--demo-lms-port", type=int, metavar="N",
                        help="the demo LMS's port (default: the hub's port + 1; the same port registers the same "
                             "[lti], so the course can be run with --demo-lms again)")


def run(args) -> int:
    import importlib.util

    if importlib.util.find_spec("jupyterhub") is None:
        raise UserError("JupyterHub is not installed: pip install 'autograder[hub]' (or `make install` in the clone)")
    from autograder.hub.course_config import check_course
    from autograder.hub.hub_course import HubCourseError, read_hub_course
    from autograder.hub.services import free_port
    from autograder.hub.standalone_hub import StandaloneHub, find_proxy, write_state

    if os.geteuid() != 0:
        raise UserError("run it as root: the hub starts each user's server as their own OS user (useradd)")
    if not 0 < args.port < 65536:
        raise UserError(f"--port {args.port} is not a port number")
    if args.idle_timeout is not None and args.idle_timeout < 1:
        raise UserError("--idle-timeout must be at least 1 second")
    lms_port = args.demo_lms_port if args.demo_lms_port is not None else args.port + 1
    if args.demo_lms and args.authenticator != DEFAULT_AUTHENTICATOR:
        raise UserError("--demo-lms launches through the LTI 1.3 login: leave out --authenticator")
    if args.demo_lms and not (0 < lms_port < 65536 and lms_port != args.port):
        raise UserError(f"--demo-lms-port {lms_port} is not a port number other than the hub's")
    try:
        course = read_hub_course(Path(args.course_folder))
        check_course(course, [])
    except HubCourseError as exc:
        raise UserError(str(exc)) from None
    state = Path(args.state).resolve() if args.state else STATE_ROOT / course.course_id
    if state == course.folder or course.folder in state.parents:
        raise UserError(f"--state {state} is inside the course folder, which only its instructors may enter: "
                        "choose a folder outside it")
    lms = None
    if args.demo_lms:  # before the check of the course's [lti] below: the demo LMS writes it
        from autograder.hub.demo_loop import DemoLmsError, start_demo_lms

        try:
            lms = start_demo_lms(course, f"http://127.0.0.1:{args.port}", lms_port, state)
        except DemoLmsError as exc:
            raise UserError(str(exc)) from None
    if "." in args.authenticator:  # a class by its import path (a bare name is one of JupyterHub's entry points)
        module, _, name = args.authenticator.rpartition(".")
        try:
            getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as exc:
            raise UserError(f"the authenticator {args.authenticator} cannot be loaded ({exc}): install it, or name "
                            "another with --authenticator") from None
    if args.authenticator == DEFAULT_AUTHENTICATOR:  # the LTI login refuses to start without the course's [lti]
        from autograder.hub.course_registration import read_registrations
        from autograder.lms.errors import LmsError

        try:
            read_registrations([course.folder])
        except LmsError as exc:
            raise UserError(f"{exc} (the LTI 1.3 login's registration: docs, \"JupyterHub and LTI 1.3\")") from None
    proxy = find_proxy(args.proxy)
    if proxy is None:
        raise UserError(f"configurable-http-proxy not found{f' at {args.proxy}' if args.proxy else ''}: "
                        "`make install` (npm ci) in the clone, or `npm install -g configurable-http-proxy@5.3.0`")
    hub = StandaloneHub(str(course.folder), str(state), args.port, free_port(), free_port(), args.authenticator,
                        proxy, args.idle_timeout)
    config = write_state(hub)
    print(f"autograder hub: {course.course_id} at {hub.url}/ (state in {state}; admin token in "
          f"{hub.admin_token_file}); Ctrl-C stops", flush=True)
    if lms is not None:
        from autograder.hub.demo_loop import run_beside_demo_lms

        return run_beside_demo_lms(lms, hub, config)
    os.chdir(hub.hub_folder)
    # JupyterHub stops its services and servers with SIGINT first: a hub started in the background of a script
    # inherits SIGINT ignored, and so would they, each then waiting out the hub's 30 s before SIGTERM.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.execv(sys.executable, [sys.executable, "-m", "jupyterhub", "-f", str(config)])
    return 0  # not reached: the hub replaces this process (signals go to it)
