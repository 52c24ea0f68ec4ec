"""The hub's spawner: each user's JupyterLab as their own OS user, made on their first spawn.

The hub user name is the OS user name and the nbgrader student id (one name everywhere). A name that is not a valid
POSIX user name, or that is an existing account the hub did not make, is refused (autograder/hub/os_accounts.py).
The user's role in each course comes from their JupyterHub groups (autograder/hub/groups.py): a student's server
reads the students' Jupyter config (nbgrader's instructor tools off) and fetches every released assignment into
their home as it starts; an instructor's runs the formgrader on the course folder, which their OS group owns.
"""

import asyncio
import os
import stat
import sys
import sysconfig
from pathlib import Path
from urllib.parse import quote

from jupyterhub.spawner import LocalProcessSpawner
from tornado import web
from traitlets import Bool, Dict, Instance, Int, List, Unicode, default

from autograder.hub.groups import instructor_group, student_group
from autograder.hub.hub_course import HubCourse
from autograder.hub.open_assignment import FETCH_VARIABLE
from autograder.hub.os_accounts import AccountError, ensure_group, ensure_user, set_membership
from autograder.hub.server_limits import MEMORY_MB, NICE, PROCESSES, ServerCgroups, ServerLimits, limiting
from autograder.hub.user_config import write_user_config

LAUNCHER = Path(__file__).with_name("user_server.py")  # run by path: a student's Python need not import autograder
# Jupyter's settings for students (pyproject data-files): nbgrader's instructor tools switched off.
STUDENT_CONFIG = Path(sys.prefix) / "etc" / "jupyter-student"
ENVIRONMENT_CONFIG = Path(sys.prefix) / "etc" / "jupyter"  # the framework's nbgrader defaults


def others_can_run(executable: Path) -> bool:
    """Whether a user other than its owner can run `executable` (every folder above it must let them through)."""
    real = executable.resolve()
    return bool(real.stat().st_mode & stat.S_IXOTH) and all(p.stat().st_mode & stat.S_IXOTH for p in real.parents)


def user_python() -> tuple[str, list[str]]:
    """The interpreter users' servers run, and the folders it needs on PYTHONPATH: this environment's own when
    other users can run it, else the system's Python of the same version over this environment's packages (a venv
    whose interpreter lives under a private home, as pyenv's does)."""
    if others_can_run(Path(sys.executable)):
        return sys.executable, []
    system = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")
    return str(system), [sysconfig.get_paths()["purelib"]]


class CourseSpawner(LocalProcessSpawner):
    """LocalProcessSpawner for the courses of this hub (`courses`, filled by `add_course`)."""

    courses = List(Instance(HubCourse), help="The courses of this hub (autograder.hub.course_config.add_course)"
                   ).tag(config=True)
    user_config_root = Unicode(help="The folder of each user's nbgrader settings (autograder/hub/user_config.py)"
                               ).tag(config=True)
    memory_limit_mb = Int(MEMORY_MB, help="Memory of a user's server and all it starts, together (MB; a cgroup)"
                          ).tag(config=True)
    process_limit = Int(PROCESSES, help="Processes and threads of a user's server and all it starts (a cgroup; and "
                                        "of the user's OS account, RLIMIT_NPROC)").tag(config=True)
    cpu_nice = Int(NICE, help="How much lower a user's server runs than the hub (nice)").tag(config=True)
    _lock = asyncio.Lock()  # one spawn at a time edits /etc/passwd and /etc/group
    _cgroups = ServerCgroups()  # the hub's, shared by every user's spawner
    _group = Instance(object, allow_none=True)  # this server's cgroup while it runs
    # Set at each start, from the user's groups then: whether they teach here, and their server's environment.
    _teaching = Bool(False)
    _launch_env = Dict()

    @default("default_url")
    def _lab(self) -> str:
        return "/lab"

    # A class arriving at once on a small machine: 40 JupyterLab servers starting together on 2 cores take over a
    # minute each (`make bench-hub`), past JupyterHub's 60 s, which would give up on them and leave them to retry.
    @default("start_timeout")
    def _start_timeout(self) -> int:
        return 600

    @default("http_timeout")
    def _http_timeout(self) -> int:
        return 300

    def roles(self) -> tuple[list[HubCourse], list[HubCourse]]:
        """The courses this user learns in and those they teach (teaching wins where they are in both groups)."""
        groups = {group.name for group in self.user.groups}
        teaches = [c for c in self.courses if instructor_group(c.course_id) in groups]
        learns = [c for c in self.courses if student_group(c.course_id) in groups and c not in teaches]
        return learns, teaches

    async def start(self):
        learns, teaches = self.roles()
        if not learns and not teaches:
            raise web.HTTPError(403, f"{self.user.name} is in no course of this hub: no server is started")
        # A named server is named for a course its user teaches (an instructor's launch, lti_login.get_next_url): its
        # formgrader is that course's, as nbgrader's formgrader serves one course per server.
        if self.name:
            chosen = [course for course in teaches if course.course_id == self.name]
            if not chosen:
                raise web.HTTPError(403, f"a server named {self.name!r} is the formgrader of that course, for its "
                                         "instructors: no server is started")
            teaches = [*chosen, *(course for course in teaches if course not in chosen)]
        try:
            async with self._lock:
                await asyncio.to_thread(self._prepare_account, teaches)
        except AccountError as exc:
            self.log.warning("refused to spawn %s: %s", self.user.name, exc)
            raise web.HTTPError(403, str(exc)) from None
        self._teaching = bool(teaches)
        # The hub's own pages are under <base_url>hub/, its services under <base_url>services/.
        services_url = self.hub.base_url.removesuffix("hub/") + "services/"
        # Each server its own settings (a named one, its course's formgrader): a folder per server.
        key = self.user.name if not self.name else f"{self.user.name}+{quote(self.name, safe='')}"
        python, packages = user_python()
        folder = write_user_config(Path(self.user_config_root), key, learns, teaches, services_url, python)
        if teaches:
            import autograder

            packages = [*packages, str(Path(autograder.__file__).resolve().parent.parent)]  # the formgrader grades
            config_path = [folder, ENVIRONMENT_CONFIG]
            # nbgrader's formgrader works only on a course inside the server's root: the course folder is it.
            self.notebook_dir = str(teaches[0].folder)
        else:
            config_path = [folder, STUDENT_CONFIG, ENVIRONMENT_CONFIG]
            self.notebook_dir = ""  # their home
        self.cmd = [python, str(LAUNCHER)]
        environment = {
            "JUPYTER_CONFIG_PATH": os.pathsep.join(map(str, config_path)),
            "JUPYTER_PATH": str(Path(sys.prefix) / "share" / "jupyter"),  # nbgrader's lab extension
            FETCH_VARIABLE: " ".join(course.course_id for course in learns),
        }
        if packages:
            environment["PYTHONPATH"] = os.pathsep.join(packages)
        self._launch_env = environment
        self._group = self._cgroups.group(self.limits)
        try:
            started = await super().start()
        except BaseException:
            self._cgroups.stopped(self._group)
            self._group = None
            raise
        self._cgroups.started(self._group)
        return started

    async def stop(self, now=False):
        try:
            return await super().stop(now=now)
        finally:
            self._cgroups.stopped(self._group)
            self._group = None

    @property
    def limits(self) -> ServerLimits:
        return ServerLimits(self.memory_limit_mb, self.process_limit, self.cpu_nice)

    def make_preexec_fn(self, name):
        """Every server in its cgroup and bounded (`server_limits.limiting`); instructors' servers make files their
        co-instructors can change (umask 007: the course folder's group reads and writes what one of them writes
        there; other users get nothing)."""
        drop = limiting(self.limits, self._group, super().make_preexec_fn(name))
        if not self._teaching:
            return drop

        def preexec() -> None:
            drop()
            os.umask(0o007)
        return preexec

    def get_env(self):
        return {**super().get_env(), **self._launch_env}

    def _prepare_account(self, teaches: list[HubCourse]):
        """The user's OS account, and their membership of each course's instructors' OS group made to match."""
        account = ensure_user(self.user.name)
        for course in self.courses:
            ensure_group(course.instructors_os_group, course.folder)
            set_membership(self.user.name, course.instructors_os_group, course in teaches)
        return account
