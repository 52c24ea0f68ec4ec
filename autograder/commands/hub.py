"""`autograder hub COURSE_FOLDER [--port N]`: run the course on a real JupyterHub, on 127.0.0.1, until Ctrl-C.

Each student gets their own JupyterLab as their own OS user (made on first login, home 0700) with every released
assignment fetched; instructors get the formgrader on the course folder; `autograder watch` grades submissions as a
service of the hub. The hub's files go to a state folder (--state), never into the course's own files. Run as root:
the hub starts servers as other users.

The steps are functions the repository's whole-loop demo (`make hub`: devtools/demo_loop.py, the hub beside a demo
LMS) runs too, with the demo LMS started between reading the course and preparing the hub.
"""

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.cli import UserError, add_command

if TYPE_CHECKING:
    from autograder.hub.hub_course import HubCourse
    from autograder.hub.standalone_hub import StandaloneHub

# The LTI 1.3 login (autograder/hub/lti_login.py); the tests give "null" (users made through the REST API).
DEFAULT_AUTHENTICATOR = "autograder.hub.lti_login.CourseLtiAuthenticator"
STATE_ROOT = Path("/var/lib/autograder-hub")  # the default state folder: STATE_ROOT/<course id>
DEFAULT_PORT = 8000


def register(subparsers) -> None:
    parser = add_command(subparsers, "hub", run, "run the course on JupyterHub (one course, on this machine)",
                         __doc__)
    add_hub_arguments(parser)
    parser.add_argument("--remove-users", action="store_true",
                        help="run no hub: remove the OS users this hub (its --state) made, with their homes and "
                             "whatever they run, and the course's instructors' OS group, once the hub is stopped")


def add_hub_arguments(parser: argparse.ArgumentParser) -> None:
    """The course folder and the hub's options (the command's, and the whole-loop demo's)."""
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


def run(args: argparse.Namespace) -> int:
    if args.remove_users:
        return remove_hub_accounts(Path(args.course_folder), args.state)
    course, state = hub_course(args)
    hub, config = prepare_hub(args, course, state)
    os.chdir(hub.hub_folder)
    # JupyterHub stops its services and servers with SIGINT first: a hub started in the background of a script
    # inherits SIGINT ignored, and so would they, each then waiting out the hub's 30 s before SIGTERM.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.execv(sys.executable, [sys.executable, "-m", "jupyterhub", "-f", str(config)])
    return 0  # not reached: the hub replaces this process (signals go to it)


def remove_hub_accounts(folder: Path, state_option: str | None) -> int:
    """What the hub made on this machine beside its state folder: the OS users of its users that it made (their
    homes go with them: what they submitted stays in the exchange and the gradebook; an account it did not make,
    or another hub's user, is left) and the course's instructors' OS group."""
    from autograder.hub.hub_course import HubCourseError, read_hub_course
    from autograder.hub.os_accounts import AccountError, hub_made_users, remove_course_group, remove_user
    from autograder.hub.standalone_hub import hub_user_names

    if os.geteuid() != 0:
        raise UserError("run it as root: removing OS users takes userdel")
    try:
        course = read_hub_course(folder)
        state = Path(state_option).resolve() if state_option else STATE_ROOT / course.course_id
        users = sorted(set(hub_made_users()) & set(hub_user_names(state)))
        for name in users:
            remove_user(name)
        group = remove_course_group(course.instructors_os_group, course.folder)
    except (HubCourseError, AccountError) as exc:
        raise UserError(str(exc)) from None
    print(f"autograder hub: removed {len(users)} OS user{'s' if len(users) != 1 else ''} the hub made"
          f"{': ' + ', '.join(users) if users else ''}"
          f"{f' and the OS group {course.instructors_os_group}' if group else ''}", flush=True)
    return 0


def hub_course(args: argparse.Namespace) -> tuple["HubCourse", Path]:
    """The options checked, the course read and checked, and the hub's state folder (not made yet)."""
    import importlib.util

    if importlib.util.find_spec("jupyterhub") is None:
        raise UserError("JupyterHub is not installed: pip install 'autograder[hub]' (or `make install` in the clone)")
    from autograder.hub.course_config import check_course
    from autograder.hub.hub_course import HubCourseError, read_hub_course

    if os.geteuid() != 0:
        raise UserError("run it as root: the hub starts each user's server as their own OS user (useradd)")
    if not 0 < args.port < 65536:
        raise UserError(f"--port {args.port} is not a port number")
    if args.idle_timeout is not None and args.idle_timeout < 1:
        raise UserError("--idle-timeout must be at least 1 second")
    try:
        course = read_hub_course(Path(args.course_folder))
        check_course(course, [])
    except HubCourseError as exc:
        raise UserError(str(exc)) from None
    state = Path(args.state).resolve() if args.state else STATE_ROOT / course.course_id
    if state == course.folder or course.folder in state.parents:
        raise UserError(f"--state {state} is inside the course folder, which only its instructors may enter: "
                        "choose a folder outside it")
    return course, state


def prepare_hub(args: argparse.Namespace, course: "HubCourse", state: Path) -> tuple["StandaloneHub", Path]:
    """The hub's login checked (its authenticator loads; the LTI 1.3 login's registration, the course's [lti], is
    there), its proxy found and its state written: the hub and its JupyterHub config, ready to run."""
    import importlib

    from autograder.hub.services import free_port
    from autograder.hub.standalone_hub import StandaloneHub, find_proxy, write_state

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
    return hub, config
