"""One cgroup per submission: its memory and its processes are limited for everything it starts, together
(an rlimit is per process: six forked children would each get the whole memory limit).

The zygote (root) makes the cgroup before it forks the submission, the child joins it before it drops its
privileges, and the zygote removes it once the child is reaped. Each cgroup nests in the zygote's own, so
whatever limits that one has still hold. cgroup v2 is used where the unified hierarchy offers the memory
and pids controllers to the zygote's cgroup's children; else v1 (its memory and pids hierarchies). Where
neither can be used (not root, a read-only cgroupfs), `Cgroups.open` says why and the rlimits remain.

Past the memory limit the kernel kills a process of the cgroup; the whole submission is then stopped: by
the kernel with v2 (`memory.oom.group`), by the zygote with v1 (it watches each cgroup's OOM eventfd).
"""

import os
from dataclasses import dataclass, field

from autograder.sandbox.limits import Limits

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


@dataclass
class Group:
    name: str
    limits: Limits
    events: int  # the fd of memory.events (v2) or memory.oom_control (v1), to count OOM kills
    oom_fd: int | None = None  # v1: an eventfd the kernel signals when the cgroup runs out of memory
    procs: list[int] = field(default_factory=list)  # cgroup.procs of each hierarchy, for the child to join
    oom_before: int = 0  # OOM kills counted before this submission (a cgroup is used again when empty)

    def join(self) -> None:
        """In the child, before anything of the submission runs."""
        for fd in self.procs:
            os.write(fd, b"0")

    def forked(self) -> None:
        """In the zygote, once the child has its copies of the files it joins by."""
        for fd in self.procs:
            os.close(fd)
        self.procs = []

    def oom_kills(self) -> int:
        """OOM kills in this cgroup during this submission."""
        return self._count() - self.oom_before

    def _count(self) -> int:
        try:
            text = os.pread(self.events, 4096, 0).decode()
        except OSError:
            return 0
        counts = dict(line.split() for line in text.splitlines() if len(line.split()) == 2)
        return int(counts.get("oom_kill", 0)) + int(counts.get("oom_group_kill", 0))


@dataclass
class Cgroups:
    version: int
    bases: list[int]  # the zygote's own cgroup in each hierarchy used (v2: one; v1: memory, pids)
    # Making a memory cgroup and removing it costs a few tenths of a millisecond: an emptied one (its
    # submission reaped, every process gone) is used again.
    free: list[Group] = field(default_factory=list)
    busy: list[Group] = field(default_factory=list)  # reaped, but a process of it still exiting
    token: str = field(default_factory=lambda: os.urandom(4).hex())  # zygotes may share a pid (1)
    count: int = 0

    @classmethod
    def open(cls, mountinfo: str = "/proc/self/mountinfo", own: str = "/proc/self/cgroup"
             ) -> "tuple[Cgroups | None, str]":
        """The zygote's cgroups to nest in, opened now (before its root changes), or None and why not."""
        if os.geteuid() != 0:
            return None, "per-submission cgroups need root"
        try:
            mounts = _mounts(mountinfo)
            paths = _own_paths(own)
        except (OSError, ValueError) as exc:
            return None, f"cgroups unreadable: {exc}"
        reasons = []
        for version, controllers in ((2, ("",)), (1, ("memory", "pids"))):
            try:
                bases = [_open_own(mounts, paths, c) for c in controllers]
            except OSError as exc:
                reasons.append(f"cgroup v{version}: {exc.strerror or exc}")
                continue
            cgroups = cls(version, bases)
            try:
                cgroups._check()
                return cgroups, ""
            except OSError as exc:
                cgroups.close()
                reasons.append(f"cgroup v{version}: {exc.strerror or exc}")
        return None, "no per-submission cgroups (" + "; ".join(reasons) + ")"

    def _check(self) -> None:
        if self.version == 2:
            enabled = _read(self.bases[0], "cgroup.subtree_control").split()
            if "memory" not in enabled or "pids" not in enabled:
                raise OSError(0, "memory and pids are not enabled for the grader's cgroup's children")
        # Making one proves the folders are writable and the limits take; it is the first one used.
        group = self.create(Limits())
        group.forked()
        self.free.append(group)

    def create(self, limits: Limits) -> Group:
        """A cgroup for the next child, with `limits`, and open for it to join."""
        group = self.free.pop() if self.free else self._make()
        if group.limits != limits:
            self._set(group.name, limits)
            group.limits = limits
        if group.oom_fd is not None:
            try:
                os.eventfd_read(group.oom_fd)  # a signal left from its last submission
            except BlockingIOError:
                pass
        group.oom_before = group._count()
        group.procs = [os.open(f"{group.name}/cgroup.procs", os.O_WRONLY, dir_fd=base) for base in self.bases]
        return group

    def _make(self) -> Group:
        self.count += 1
        name = f"autograder-{self.token}-{self.count}"
        made: list[int] = []
        try:
            for base in self.bases:
                os.mkdir(name, 0o700, dir_fd=base)
                made.append(base)
            limits = Limits()
            self._set(name, limits)
            base = self.bases[0]
            if self.version == 2:
                _write(base, f"{name}/memory.oom.group", "1")
                return Group(name, limits, os.open(f"{name}/memory.events", os.O_RDONLY | os.O_CLOEXEC, dir_fd=base))
            events = os.open(f"{name}/memory.oom_control", os.O_RDONLY | os.O_CLOEXEC, dir_fd=base)
            oom_fd = os.eventfd(0, os.EFD_CLOEXEC | os.EFD_NONBLOCK)
            group = Group(name, limits, events, oom_fd)
            _write(base, f"{name}/cgroup.event_control", f"{oom_fd} {events}")
            return group
        except OSError:
            for base in made:
                _rmdir(base, name)
            raise

    def _set(self, name: str, limits: Limits) -> None:
        memory = str(limits.memory_mb * 1024 * 1024)
        if self.version == 2:
            base = self.bases[0]
            _write(base, f"{name}/memory.max", memory)
            _write(base, f"{name}/memory.swap.max", "0", optional=True)
            _write(base, f"{name}/pids.max", str(limits.processes))
        else:
            memory_base, pids_base = self.bases
            # v1 keeps memory+swap >= memory: a limit raised (a cgroup used again with more) moves memsw first.
            order = ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes")
            if int(memory) > int(_read(memory_base, f"{name}/memory.limit_in_bytes")):
                order = order[::-1]
            for limit in order:
                _write(memory_base, f"{name}/{limit}", memory, optional=limit.startswith("memory.memsw"))
            _write(pids_base, f"{name}/pids.max", str(limits.processes))

    def release(self, group: Group) -> None:
        """Its child is reaped: the cgroup is used again once every process of it is gone."""
        group.forked()
        self.busy.append(group)
        self.tidy()

    def tidy(self) -> None:
        for group in list(self.busy):
            if all(not _read(base, f"{group.name}/cgroup.procs").strip() for base in self.bases):
                self.busy.remove(group)
                if len(self.free) < 4:
                    self.free.append(group)
                else:
                    self._destroy(group)

    def _destroy(self, group: Group) -> None:
        for fd in (group.events, group.oom_fd, *group.procs):
            if fd is not None:
                os.close(fd)
        for base in self.bases:
            _rmdir(base, group.name)

    def close(self) -> None:
        """Remove every cgroup made (as the zygote ends: its children are gone with it)."""
        for group in self.free + self.busy:
            self._destroy(group)
        self.free, self.busy = [], []
        for base in self.bases:
            os.close(base)
        self.bases = []


def _rmdir(base: int, name: str) -> None:
    try:
        os.rmdir(name, dir_fd=base)
    except OSError:  # still busy, or gone: nothing to do
        pass


def _mounts(path: str) -> dict[str, tuple[str, str]]:
    """controller ("" for v2) -> (mount point, the mount's root within its hierarchy)."""
    found: dict[str, tuple[str, str]] = {}
    with open(path) as lines:
        for line in lines:
            fields = line.split()
            dash = fields.index("-")
            fstype, options = fields[dash + 1], fields[dash + 3] if len(fields) > dash + 3 else ""
            root, point = fields[3], fields[4]
            if fstype == "cgroup2":
                found.setdefault("", (point, root))
            elif fstype == "cgroup":
                for option in options.split(","):
                    found.setdefault(option, (point, root))
    return found


def _own_paths(path: str) -> dict[str, str]:
    """controller ("" for v2) -> the cgroup this process is in."""
    paths: dict[str, str] = {}
    with open(path) as lines:
        for line in lines:
            _, controllers, cgroup = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                paths[controller] = cgroup
    return paths


def _open_own(mounts: dict[str, tuple[str, str]], paths: dict[str, str], controller: str) -> int:
    what = controller or "unified"
    if controller not in mounts or controller not in paths:
        raise OSError(0, f"no {what} hierarchy")
    point, root = mounts[controller]
    own = paths[controller]
    if not (own + "/").startswith(root.rstrip("/") + "/"):
        raise OSError(0, f"the grader's {what} cgroup is outside the mounted one")
    folder = os.path.join(point, own[len(root.rstrip("/")):].lstrip("/"))
    return os.open(folder, _DIR)


def _write(base: int, path: str, text: str, optional: bool = False) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC, dir_fd=base)
    except FileNotFoundError:
        if optional:
            return
        raise
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _read(base: int, path: str) -> str:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC, dir_fd=base)
    try:
        return os.read(fd, 4096).decode()
    finally:
        os.close(fd)
