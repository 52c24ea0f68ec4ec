"""Linux isolation primitives for the zygote and its children: namespaces, a read-only view of the
filesystem that shows only the Python runtime, a private scratch folder, and an unprivileged uid.

Three levels, chosen by what the platform allows (the zygote reports which one it reached):

- "full" (root): new mount, network, IPC and UTS namespaces for the zygote, a PID namespace and a mount
  namespace per submission, uid/gid `nobody`, seccomp, rlimits;
- "userns" (not root, user namespaces allowed): the same namespaces inside a user namespace, but the
  submission keeps the caller's real uid (seen from outside);
- "bare" (no namespaces, or not Linux): its own process and session, rlimits, seccomp where supported,
  a private scratch folder. It can still read whatever the caller can read: said loudly.
"""

import ctypes
import os
import platform
import signal
import sys
from pathlib import Path

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 0x20, 0x1000, 0x4000, 0x40000
MNT_DETACH = 0x2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE = 1, 4
NOBODY = 65534

LEVELS = ("full", "userns", "bare")
PROTECTIONS = {
    # name: (levels that have it, what it means)
    "own process": (LEVELS, "each submission runs in its own process, forked from a clean zygote"),
    "limits": (LEVELS, "CPU time, memory, file size, open files and wall time are limited"),
    "cgroup": (LEVELS, "memory and processes are limited for a submission and all it starts, together"),
    "seccomp": (LEVELS, "no sockets (no network), namespaces, mounts, tracing or kernel loading"),
    "hidden files": (("full", "userns"), "the course, gradebook, graders and home folders are out of sight"),
    "read-only filesystem": (("full", "userns"), "it can write only to its own scratch folder"),
    "network namespace": (("full", "userns"), "no network interfaces but an unconnected loopback"),
    "pid namespace": (("full", "userns"), "it sees no other process, and all it started dies with it"),
    "unprivileged uid": (("full",), "it runs as nobody (65534), so no root rights and a process limit"),
}

# What every command that grades says, plainly, when it grades at the bare level (the course accepted it).
BARE_WARNING = ("the bare sandbox (c.Autograder.accept_bare_sandbox): student code can read the graders, the "
                "solutions in source/ and the gradebook; grade where Linux namespaces are allowed to hide them")

_libc = ctypes.CDLL(None, use_errno=True) if platform.system() == "Linux" else None


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def setns(fd: int, flags: int) -> None:
    _check(_libc.setns(fd, flags), "setns")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    def enc(text: str | None) -> bytes | None:
        return text.encode() if text is not None else None

    _check(_libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
           f"mount {target}")


def prctl(option: int, value: int) -> None:
    _check(_libc.prctl(option, value, 0, 0, 0), "prctl")


def protections(level: str, seccomp_on: bool, cgroup_on: bool) -> dict[str, bool]:
    """Which protections a level gives, by name (see PROTECTIONS), with what the zygote could set up."""
    on = {name: level in levels for name, (levels, _) in PROTECTIONS.items()}
    on["seccomp"] = on["seccomp"] and seccomp_on
    on["cgroup"] = cgroup_on
    return on


# The zygote's view of the filesystem -----------------------------------------------------------------


def runtime_paths() -> list[str]:
    """What a submission may read: the system's libraries, this Python and its installed packages."""
    import site
    import sysconfig  # not loaded at start: only where a zygote is started is it needed

    paths = ["/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc/ld.so.cache", "/etc/localtime",
             sys.base_prefix, sys.prefix, sysconfig.get_paths()["stdlib"], *site.getsitepackages()]
    return sorted({os.path.realpath(p) for p in paths if os.path.exists(p)} | {
        p for p in paths if os.path.islink(p)})


def nobody_mapped() -> bool:
    """Whether this process, as root, could become nobody: uid and gid 65534 exist in its user namespace and
    setgroups is allowed there. Not so in a namespace that maps root alone (`unshare --map-root-user`); so in
    a Kubernetes pod with `hostUsers: false`, which maps 65,536 ids."""
    try:
        maps = [Path(f"/proc/self/{name}").read_text() for name in ("uid_map", "gid_map")]
        setgroups = Path("/proc/self/setgroups").read_text().strip()
    except OSError:
        return False

    def holds(text: str) -> bool:
        ranges = [tuple(map(int, line.split())) for line in text.splitlines() if line.strip()]
        return any(inside <= NOBODY < inside + count for inside, _, count in ranges)

    return setgroups == "allow" and all(holds(text) for text in maps)


def enter_namespaces(level: str) -> None:
    """Move the calling process (the zygote, before it forks any submission) into its own user (for
    "userns"), mount, network, IPC, UTS and PID namespaces. The caller's next child is process 1 of the
    new PID namespace; each submission later gets a PID namespace inside that one."""
    uid, gid = os.getuid(), os.getgid()
    if level == "userns":
        unshare(CLONE_NEWUSER)
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"0 {uid} 1")
        Path("/proc/self/gid_map").write_text(f"0 {gid} 1")
    unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWPID)


# Where a submission writes: a fresh tmpfs in every child, mounted over whatever the root shows there.
SCRATCH = "/tmp"
# Where the parts of the runtime that lie under SCRATCH (a venv in /tmp) are kept on the new root, to be bound
# again over each fresh scratch folder.
UNDER_SCRATCH = "/.runtime"
# Empty folders most systems have, any of which can hold the new root while it is built (it exists only in our
# mount namespace); one that holds or lies inside a runtime path would hide it or copy itself.
STAGING = ("/mnt", "/media", "/srv", "/opt", "/var/tmp", "/tmp", "/boot", "/home")


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def staging_point(paths: list[str]) -> str:
    """A folder to build the new root on, that neither lies inside nor holds any of `paths`."""
    for folder in STAGING:
        if os.path.isdir(folder) and not os.path.islink(folder) and not any(
                _under(p, folder) or _under(folder, p) for p in paths):
            return folder
    raise OSError(0, f"no folder to build the sandbox's root on: each of {', '.join(STAGING)} is missing or "
                     "holds the Python environment")


def scratch_runtime(paths: list[str]) -> list[str]:
    """The runtime paths under SCRATCH, outermost first: each child binds them over its fresh scratch."""
    outer: list[str] = []
    for path in sorted(p for p in paths if _under(p, SCRATCH)):
        if not any(_under(path, o) for o in outer):
            outer.append(path)
    return outer


def build_root(hide: list[str]) -> list[str]:
    """Replace the root with one that contains only read-only copies of `runtime_paths()`, with `hide`
    masked wherever it lies inside them (a course, or the graders' package, next to the runtime). Returns
    the runtime paths under SCRATCH, for `show_runtime_in_scratch` after each scratch mount."""
    paths = runtime_paths()
    if SCRATCH in paths:
        raise OSError(0, f"the Python environment is {SCRATCH} itself, where each submission gets its own "
                         "empty scratch folder: install it in a folder of its own")
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    root = staging_point(paths)
    in_scratch = scratch_runtime(paths)

    def on_root(path: str) -> str:  # where a runtime path lies on the new root
        return root + (UNDER_SCRATCH + path if _under(path, SCRATCH) else path)

    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=4m,mode=0755")
    for path in paths:
        target = on_root(path)
        if os.path.islink(path) and not os.path.exists(target):
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.symlink(os.readlink(path), target)
            continue
        if os.path.lexists(target):
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.isdir(path):
            os.makedirs(target, exist_ok=True)
        else:
            Path(target).touch()
        mount(path, target, None, MS_BIND | MS_REC)
        _remount_readonly(target)
    for path in hide:  # e.g. a course or the graders' package that happens to lie inside a runtime path
        path = os.path.realpath(path)
        if os.path.isdir(on_root(path)) and any(_under(path, p) and path != p for p in paths):
            mount("tmpfs", on_root(path), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4k,mode=0555")
    for name in ("null", "zero", "full", "random", "urandom"):
        os.makedirs(root + "/dev", exist_ok=True)
        Path(root + "/dev/" + name).touch()
        mount("/dev/" + name, root + "/dev/" + name, None, MS_BIND)
    for folder in ("/proc", SCRATCH, "/.old"):
        os.makedirs(root + folder, exist_ok=True)
    _check(_libc.syscall(155 if platform.machine() == "x86_64" else 41, root.encode(), (root + "/.old").encode()),
           "pivot_root")
    os.chdir("/")
    _check(_libc.umount2(b"/.old", MNT_DETACH), "umount old root")
    os.rmdir("/.old")
    mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    # The zygote's own scratch (a library it preloads may write a cache there, as matplotlib does); each
    # child mounts a fresh one over it and never sees it.
    mount("tmpfs", SCRATCH, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=0700")
    show_runtime_in_scratch(in_scratch)
    return in_scratch


def show_runtime_in_scratch(in_scratch: list[str]) -> None:
    """Bind the runtime paths that lie under SCRATCH (kept at UNDER_SCRATCH) over a scratch folder just
    mounted, read-only, where the Python environment expects them."""
    for path in in_scratch:
        os.makedirs(path, exist_ok=True)
        mount(UNDER_SCRATCH + path, path, None, MS_BIND | MS_REC)
        _remount_readonly(path)


def verify_view(hide: list[str]) -> None:
    """Fail closed: after the root is built, every runtime path must be there and no hidden folder may show
    anything (the grader then refuses to run rather than grade with a wrong view)."""
    for path in runtime_paths():
        if not os.path.exists(path):
            raise OSError(0, f"the sandbox cannot show the Python environment's {path}")
    paths = runtime_paths()
    for path in hide:
        path = os.path.realpath(path)
        if not os.path.isdir(path):
            continue
        for name in os.listdir(path):  # only the way down to a runtime path may show (a venv in the course)
            entry = os.path.join(path, name)
            if not any(_under(p, entry) for p in paths):
                raise OSError(0, f"the sandbox would show {entry}, which it must hide")


def _remount_readonly(target: str) -> None:
    # In a user namespace the flags the parent mount has (nosuid, nodev, ...) are locked and must be kept.
    st = os.statvfs(target)
    keep = 0
    for st_flag, ms_flag in ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC)):
        if st.f_flag & st_flag:
            keep |= ms_flag
    mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | keep)


# One submission ----------------------------------------------------------------------------------------


def fork_in_new_pid_namespace(own_pid_ns: int) -> int:
    """fork() whose child is process 1 of a new PID namespace: when it dies, all it started dies too."""
    unshare(CLONE_NEWPID)
    pid = -1
    try:
        pid = os.fork()
        return pid
    finally:
        if pid != 0:  # only the first child goes to the new namespace: the next one gets its own
            setns(own_pid_ns, CLONE_NEWPID)


def enter_submission_view(scratch_mb: int, owner: int | None, in_scratch: list[str]) -> None:
    """In the child: its own mount namespace, a /proc showing only its processes, a private /tmp (with the
    runtime paths that lie under it, `in_scratch`, bound again, read-only)."""
    unshare(CLONE_NEWNS | CLONE_NEWIPC)
    try:
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError:
        # In a user namespace (the "userns" level, or a grader that runs in one, as in a Kubernetes pod) the
        # kernel refuses a new proc when no full one is visible, as none is on the new root: /proc stays empty.
        pass
    owner_opts = f",uid={owner},gid={owner}" if owner is not None else ""
    mount("tmpfs", SCRATCH, "tmpfs", MS_NOSUID | MS_NODEV,
          f"size={scratch_mb}m,nr_inodes=4096,mode=0700{owner_opts}")
    show_runtime_in_scratch(in_scratch)
    os.chdir(SCRATCH)


def drop_privileges(uid: int = NOBODY, gid: int = NOBODY) -> None:
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)


def die_with_parent() -> None:
    # Set after any uid change: the kernel clears it when credentials change.
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    prctl(PR_SET_DUMPABLE, 0)  # other processes of the same uid cannot trace it or read its memory
