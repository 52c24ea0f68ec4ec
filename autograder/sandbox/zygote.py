"""The fork server: a small process that imports NumPy and the student-side runtime, nothing else, then
forks one sandboxed child per submission.

Started as a fresh interpreter (`python -I -m autograder.sandbox.zygote CONFIG`) by the trusted side, so
no grader, reference answer or solution was ever in its memory, and so in no child's. It then moves into
its own namespaces and a read-only root that shows only the Python runtime (see `isolation`), and from
then on cannot read the course either. Forking an already-initialised interpreter is what makes a
submission cost milliseconds instead of the ~100 ms of starting Python and importing NumPy.

Control protocol (SOCK_SEQPACKET, one JSON object per message, file descriptors alongside):
    -> {"op": "spawn", "limits": {...}} + [the child's end of its socket]   <- {"pid": n} + [pidfd]
    -> {"op": "reap", "pid": n}          <- {"status": wait status, "cpu": seconds, "maxrss_kb": n, "oom": n}
    -> {"op": "plan", "calls": [[key, base64 of a call's frame], ...]}   (no answer; see `zygote_cache.preload`)
The zygote says hello first: {"level": "full" | "userns" | "bare", "seccomp": bool, "cgroups": bool,
"notes": [...]}.
Closing the control socket ends the zygote, and with it every child still running.
"""

import gc
import io
import json
import os
import select
import shutil
import signal
import socket
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field

# Before NumPy loads: one BLAS thread, so forking is safe and cheap and a child starts no thread pool.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

# Loaded once here and shared by every child. Also modules students commonly import: after the zygote's
# root changes they would still import (the runtime stays readable), but every child would pay for it.
import collections  # noqa: E402,F401,I001
import copy  # noqa: E402,F401
import functools  # noqa: E402,F401
import itertools  # noqa: E402,F401
import math  # noqa: E402,F401
import random  # noqa: E402,F401
import statistics  # noqa: E402,F401

import numpy  # noqa: E402,F401
import numpy.linalg  # noqa: E402,F401
import numpy.random  # noqa: E402,F401

import autograder.grader_support.activations  # noqa: E402,F401
# The student side, all of it (`runtime` and what it imports, `zygote_cache` among them): imported here, before the
# root changes, so that every child inherits it.
from autograder.sandbox import cgroups, isolation, limits, runtime, seccomp, zygote_cache  # noqa: E402


@dataclass
class View:
    """What the zygote set up once, that every child it forks starts from."""

    level: str
    pid_ns: int = -1  # the zygote's own PID namespace, to return to after each child's fork
    scratch_base: str | None = None  # "bare": where each child gets its scratch folder
    in_scratch: list[str] = field(default_factory=list)  # runtime paths under /tmp, bound again in each child
    # The seccomp filter, built once by `main` (before the root changes), that each child installs on itself.
    install_filter: Callable[[], None] | None = None


def warm_up() -> None:
    """Pay once, here, for what NumPy initialises lazily on first use (array printing, random generators,
    ufunc dispatch caches), instead of in every child."""
    a = numpy.arange(6.0).reshape(2, 3)
    print(a, repr(a), a.astype(int), numpy.float64(1.5), numpy.array([True]), file=io.StringIO())
    numpy.random.default_rng(0).normal(size=(2, 2))
    numpy.random.seed(0)
    numpy.allclose(a, a), numpy.isclose(a, a), numpy.array_equal(a, a)
    numpy.concatenate((a, a), axis=1), numpy.hstack((a, a)), numpy.vstack((a, a)), numpy.block([a, a])
    numpy.exp(-a), numpy.tanh(a), numpy.logaddexp(0, a), numpy.einsum("ij,kj->ik", a, a), a @ a.T
    with numpy.errstate(all="ignore"):
        numpy.divide(a, 0)


def choose_level(requested: str) -> str:
    if requested not in ("auto", "auto-or-bare"):  # launch.AUTO, launch.AUTO_OR_BARE
        return requested
    # Root that cannot become nobody (root alone is mapped in its user namespace) keeps every namespace, not the uid.
    return "full" if os.geteuid() == 0 and isolation.nobody_mapped() else "userns"


def main() -> int:
    config = json.loads(sys.argv[1])
    install_filter = seccomp.prepare() if seccomp.supported() else None
    control = socket.socket(fileno=config["fd"])
    level = choose_level(config.get("level", "auto"))
    notes: list[str] = []
    pid_ns = -1
    in_scratch: list[str] = []  # the runtime paths under the scratch folder, bound again in each child
    groups, why = cgroups.Cgroups.open()  # while the host's /proc and /sys are in view
    if why:
        notes.append(why)
    if level != "bare":
        if sys.platform != "linux":
            return _refuse(control, level, OSError(0, f"{sys.platform} has no Linux namespaces"))
        if level == "full" and not isolation.nobody_mapped():
            return _refuse(control, level, OSError(0, f"uid and gid {isolation.NOBODY} (nobody) cannot be taken in "
                                                      "this user namespace"))
        try:
            isolation.enter_namespaces(level)
        except OSError as exc:
            return _refuse(control, level, exc)
        pid = os.fork()  # the zygote proper is process 1 of its own PID namespace
        if pid:
            control.close()
            _, status = os.waitpid(pid, 0)
            return os.waitstatus_to_exitcode(status)
        try:
            pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY)  # before the old root (and /proc) goes
            in_scratch = isolation.build_root(config.get("hide", []))
            isolation.verify_view(config.get("hide", []))
        except OSError as exc:
            return _refuse(control, level, exc)
    warm_up()
    # Objects that exist now are shared with every child; frozen, the collector never walks (and so
    # never copies) their pages in a child.
    gc.freeze()
    view = View(level, pid_ns, tempfile.mkdtemp(prefix="autograder-scratch-") if level == "bare" else None,
                in_scratch, install_filter)
    control.send(json.dumps({"level": level, "seccomp": seccomp.supported(), "cgroups": groups is not None,
                             "notes": notes}).encode())
    try:
        serve(control, view, groups)
    finally:
        if view.scratch_base:
            shutil.rmtree(view.scratch_base, ignore_errors=True)
        if groups:
            groups.close()
    return 0


def _refuse(control: socket.socket, level: str, exc: OSError) -> int:
    # Half-made namespaces cannot be undone: say why, and the grader starts a bare zygote instead.
    control.send(json.dumps({"error": f"{level} isolation unavailable: {exc}"}).encode())
    return 3


def serve(control: socket.socket, view: View, groups: cgroups.Cgroups | None) -> None:
    reaped: dict[int, tuple[int, float, int, int]] = {}
    scratch: dict[int, str] = {}
    children: dict[int, cgroups.Group] = {}  # each child's cgroup, until it is reaped
    try:
        _serve(control, view, groups, reaped, scratch, children)
    finally:
        _end_children(children, groups, view.level)


def _serve(control: socket.socket, view: View, groups: cgroups.Cgroups | None,
           reaped: dict[int, tuple[int, float, int, int]], scratch: dict[int, str],
           children: dict[int, cgroups.Group]) -> None:
    level = view.level
    while True:
        # With cgroup v1 a child out of memory is stopped here (v2's kernel stops the whole cgroup itself).
        watched = {group.oom_fd: pid for pid, group in children.items() if group.oom_fd is not None}
        if watched:
            ready = select.select([control, *watched], [], [])[0]
            for fd in ready:
                if fd in watched:
                    try:
                        os.eventfd_read(fd)
                    except OSError:
                        pass
                    _stop(watched[fd], level)
            if control not in ready:
                _reap_strays(reaped, level, scratch, children, groups)
                continue
        try:
            data, fds, _, _ = socket.recv_fds(control, 1 << 18, 1)
        except (ConnectionError, OSError):
            return
        if not data:
            return
        request = json.loads(data)
        if request["op"] == "spawn":
            if request.get("warm"):
                zygote_cache.warm(request["warm"])
                gc.freeze()  # as at start: what children inherit is never walked (and copied) by their collector
            folder = tempfile.mkdtemp(dir=view.scratch_base) if view.scratch_base else None
            lim = limits.Limits.from_dict(request["limits"])
            try:
                group = groups.create(lim) if groups else None
            except OSError:  # this child has the rlimits only, as where there are no cgroups
                group = None
            pid = spawn(fds[0], lim, view, folder, control, group)
            os.close(fds[0])
            if group:
                group.forked()
                children[pid] = group
            if folder:
                scratch[pid] = folder
            try:
                pidfd = [os.pidfd_open(pid)]
            except (AttributeError, OSError):
                pidfd = []
            socket.send_fds(control, [json.dumps({"pid": pid}).encode()], pidfd)
            for fd in pidfd:
                os.close(fd)
        elif request["op"] == "plan":
            zygote_cache.preload(request["calls"])
            gc.freeze()
        elif request["op"] == "reap":
            pid = request["pid"]
            if pid not in reaped:
                if level == "bare":
                    _kill_session(pid)
                _, status, usage = os.wait4(pid, 0)
                reaped[pid] = (status, usage.ru_utime + usage.ru_stime, usage.ru_maxrss,
                               _release(children, groups, pid))
            status, cpu, maxrss, oom = reaped.pop(pid)
            control.send(json.dumps({"status": status, "cpu": cpu, "maxrss_kb": maxrss, "oom": oom}).encode())
        _reap_strays(reaped, level, scratch, children, groups)


def _kill_session(pid: int) -> None:
    # Without a PID namespace, what the child started is found through the session it leads. The child
    # is not reaped yet, so its pid (and so this group id) cannot have been reused.
    try:
        os.killpg(pid, 9)
    except OSError:
        pass


def _stop(pid: int, level: str) -> None:
    # The child is not reaped yet, so its pid is still its own; in its PID namespace, all it started dies
    # with it.
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    if level == "bare":
        _kill_session(pid)


def _release(children: dict[int, cgroups.Group], groups: cgroups.Cgroups | None, pid: int) -> int:
    """A reaped child's cgroup goes back to the pool; the OOM kills it saw."""
    group = children.pop(pid, None)
    if group is None or groups is None:
        return 0
    oom = group.oom_kills()
    groups.release(group)
    return oom


def _end_children(children: dict[int, cgroups.Group], groups: cgroups.Cgroups | None, level: str) -> None:
    """As the zygote ends: its children (which would die with it) are stopped and reaped now, so that their
    cgroups can be removed."""
    for pid in list(children):
        _stop(pid, level)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        _release(children, groups, pid)


def _reap_strays(reaped: dict[int, tuple[int, float, int, int]], level: str, scratch: dict[int, str],
                 children: dict[int, cgroups.Group], groups: cgroups.Cgroups | None) -> None:
    # Children the grader killed, and orphans re-parented to us (process 1), must not pile up as zombies;
    # their statuses are kept for a later "reap" that asks.
    while True:
        try:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if level == "bare":
            _kill_session(pid)  # too late to be race-free for its group, but what is left is ours to end
        if pid in scratch:
            shutil.rmtree(scratch.pop(pid), ignore_errors=True)
        reaped[pid] = (status, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, _release(children, groups, pid))
        if len(reaped) > 10_000:  # never asked for: they were strays
            reaped.pop(next(iter(reaped)))


def spawn(fd: int, lim: limits.Limits, view: View, folder: str | None,
          control: socket.socket, group: cgroups.Group | None) -> int:
    level = view.level
    if level == "bare":
        pid = os.fork()
    else:
        pid = isolation.fork_in_new_pid_namespace(view.pid_ns)
    if pid:
        return pid
    # The child. Anything failing here must not return into the zygote's loop.
    try:
        if group:
            group.join()  # first: from here on, all it uses and starts is counted together
        control.close()
        os.setsid()
        sock = socket.socket(fileno=os.dup(fd))
        if level == "bare":
            os.chdir(folder)
            os.environ["HOME"] = os.environ["TMPDIR"] = folder
        else:
            owner = isolation.NOBODY if level == "full" else None
            isolation.enter_submission_view(lim.file_mb, owner, view.in_scratch)
            os.environ["HOME"] = os.environ["TMPDIR"] = "/tmp"
        _only_fds(sock.fileno())
        # A pids cgroup counts this submission's processes alone; RLIMIT_NPROC would count those of every
        # submission running as the same user.
        limits.apply_rlimits(lim, processes=group is None and (level == "full" or os.geteuid() != 0))
        if level == "full":
            isolation.drop_privileges()
        isolation.die_with_parent()
        if view.install_filter:
            view.install_filter()
        sys.path[:] = [p for p in sys.path if p and os.path.isabs(p)]
        sys.dont_write_bytecode = True
        runtime.Runtime(sock, lim.output_chars, lim.reply_bytes()).serve()
    except BaseException:  # noqa: B036 - the child must never fall back into the zygote's loop
        os._exit(70)
    os._exit(0)


def _only_fds(keep: int) -> None:
    null = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(null, target)
    os.closerange(3, keep)
    os.closerange(keep + 1, 1 << 16)


if __name__ == "__main__":
    code = main()
    # Nothing is left to clean up (scratch folders are removed by `serve`): tearing the interpreter and
    # NumPy down would only delay the end of the grading command (whose output pipes this process shares)
    # by a few hundredths of a second, twice per zygote (it and its parent outside the PID namespace).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
