"""What one user's server may take of the machine the hub and the watcher share: memory and processes for the
server and everything it starts (its kernels, their children), together, in a cgroup of its own; and a lower CPU
priority than the hub's, so that a kernel spinning on every core slows its own user first.

Without them one student's kernel could fork until the machine's process table is full or touch memory until the
kernel's OOM killer picks the watcher. The cgroups are the sandbox's (`sandbox.cgroups`: v2 where the unified
hierarchy offers memory and pids, else v1), nested in the hub's own; where neither can be used (not root, a
read-only cgroupfs) the hub says so once and each server gets the per-user process limit (RLIMIT_NPROC) alone.

Disk is not limited here: the exchange and home folders get no quota (the filesystem's, where an administrator
sets one); what the watcher reads of a submission is bounded by `course.submitted.FolderBounds`.
"""

import logging
import os
import resource
from collections.abc import Callable
from dataclasses import dataclass

from autograder.sandbox.cgroups import Cgroups, Group
from autograder.sandbox.limits import Limits

log = logging.getLogger("autograder.hub.server_limits")

# Room for several kernels beside a student's JupyterLab (which holds ~116 MB: docs, "Sizing"); an instructor's
# formgrader runs its sandboxed grading workers inside its server too.
MEMORY_MB = 2048
PROCESSES = 512  # processes and threads, as the pids controller counts them
NICE = 5  # below the hub, its proxy and the watcher (0)


@dataclass(frozen=True)
class ServerLimits:
    memory_mb: int = MEMORY_MB
    processes: int = PROCESSES
    nice: int = NICE


class ServerCgroups:
    """The hub's cgroups for its users' servers, opened on first use: one cgroup per running server."""

    def __init__(self) -> None:
        self._cgroups: Cgroups | None = None
        self._opened = False

    def _open(self) -> Cgroups | None:
        if not self._opened:
            self._opened = True
            self._cgroups, why = Cgroups.open()
            if self._cgroups is None:
                log.warning("users' servers get no memory limit and a per-user process limit only: %s", why)
        return self._cgroups

    def group(self, limits: ServerLimits) -> Group | None:
        """A cgroup with `limits` for the next server, open for it to join; None where there are none."""
        cgroups = self._open()
        if cgroups is None:
            return None
        try:
            return cgroups.create(Limits(memory_mb=limits.memory_mb, processes=limits.processes))
        except OSError as exc:
            log.warning("no cgroup for a user's server (%s): it gets the per-user process limit only", exc)
            return None

    def started(self, group: Group | None) -> None:
        """In the hub, once the server's process has its copies of the files it joins by."""
        if group is not None:
            group.forked()

    def stopped(self, group: Group | None) -> None:
        """The server has stopped: its cgroup is used again once everything of it is gone."""
        if group is not None and self._cgroups is not None:
            self._cgroups.release(group)


def limiting(limits: ServerLimits, group: Group | None, drop: Callable[[], None]) -> Callable[[], None]:
    """The server process's first steps, as root, before `drop` (JupyterHub's change to the user): into its
    cgroup, its CPU priority lowered, the user's processes bounded (RLIMIT_NPROC counts every process of the user's
    uid: it holds even where there are no cgroups). None of them can be undone by the user."""

    def preexec() -> None:
        if group is not None:
            group.join()
        os.nice(limits.nice)
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
        drop()

    return preexec
