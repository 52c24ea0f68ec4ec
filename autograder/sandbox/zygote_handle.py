"""The trusted side's handle on the zygote (the fork server, `autograder.sandbox.zygote`): start it, take a
submission's process from it (the next one asked for ahead), send it what every child inherits, stop it."""

import base64
import json
import os
import select
import socket
import subprocess
from dataclasses import dataclass, field
from typing import Any

from autograder.sandbox import isolation
from autograder.sandbox.launch import AUTO, AUTO_OR_BARE, Launched, launch, reap, requested_level
from autograder.sandbox.limits import Limits
from autograder.sandbox.sandbox_errors import SandboxError
from autograder.sandbox.submission_process import Child, Sandbox

MAX_CONTROL_MESSAGE = 100_000  # one SOCK_SEQPACKET message to the zygote (its buffer is about 200 kB)
MAX_PRELOADED = 10_000  # planned calls a zygote holds; past that, calls are sent in full


def refusal(why: str) -> str:
    """Why nothing is graded where the sandbox cannot hide the course, and the ways out: one line."""
    return (f"not grading: the sandbox cannot hide the graders, solutions and gradebook from student code here "
            f"({why}). Grade where Linux namespaces are allowed (as root or in a privileged container, or with "
            f"unprivileged user namespaces enabled), or accept the bare sandbox, under which student code can "
            f"read them, with c.Autograder.accept_bare_sandbox = True in nbgrader_config.py")



@dataclass
class ZygoteInfo:
    level: str
    seccomp: bool
    notes: list[str] = field(default_factory=list)
    cgroup: bool = False

    @property
    def protections(self) -> dict[str, bool]:
        return isolation.protections(self.level, self.seccomp, self.cgroup)

    @property
    def missing(self) -> list[str]:
        return [name for name, on in self.protections.items() if not on]


class Zygote:
    """A fork server for sandboxed submissions (see `autograder.sandbox.zygote`)."""

    def __init__(self, level: str = AUTO, hide: list[str] | tuple[str, ...] = (),
                 launched: Launched | None = None) -> None:
        """`launched`: this zygote, started already by another process (see `launch`), to take over."""
        self.requested = requested_level(level)
        self.hide = [str(p) for p in hide]
        self._launched = launched
        self.process: subprocess.Popen | None = None
        self.pidfd: int | None = None
        self.control: socket.socket | None = None
        self.info: ZygoteInfo | None = None
        self.warmed: set[tuple] = set()
        self.preloaded: frozenset[int] = frozenset()  # keys of the planned calls the zygote holds
        # a spawn asked for, not yet answered, and the planned calls its child will hold
        self._pending: tuple[socket.socket, Limits, frozenset[int]] | None = None
        self._spare: Child | None = None

    def start(self) -> ZygoteInfo:
        notes: list[str] = []
        level = self.requested
        for attempt in range(2):
            hello = self._launch(level)
            if "error" not in hello:
                self.info = ZygoteInfo(hello["level"], hello["seccomp"], notes + hello.get("notes", []),
                                       hello.get("cgroups", False))
                return self.info
            self.close()
            if level == "bare" or attempt:
                raise SandboxError(f"the sandbox could not start: {hello['error']}")
            if self.requested != AUTO_OR_BARE:  # fail closed: never the bare level unless the course accepts it
                raise SandboxError(refusal(hello["error"]))
            notes.append(hello["error"])
            level = "bare"
        raise SandboxError("unreachable")

    def _launch(self, level: str) -> dict[str, Any]:
        launched, self._launched = self._launched, None
        if launched is None or launched.level != level or launched.hide != self.hide:
            if launched is not None:
                launched.close()
            launched = launch(level, self.hide)
        self.process, self.control, self.pidfd = launched.process, launched.control, launched.pidfd
        self.control.settimeout(60)
        try:
            data = self.control.recv(1 << 16)
        except (TimeoutError, OSError) as exc:
            return {"error": f"no answer from the zygote ({exc})"}
        if not data:
            return {"error": f"the zygote exited with status {self.process.wait()}"}
        return json.loads(data)

    def alive(self) -> bool:
        if self.process is None:
            return False
        if self.pidfd is not None:  # also when another process started it (and is the one to reap it)
            return not select.select([self.pidfd], [], [], 0)[0]
        return self.process.poll() is None

    def spawn(self, limits: Limits, warm: dict[str, Any] | None = None, kind: type["Sandbox"] | None = None
              ) -> "Sandbox":
        """A sandboxed process, as a `kind` (a `Sandbox` by default). The next one is asked for at once, so
        that setting it up (namespaces, mounts, filters) overlaps the work on this one. `warm`: instructor
        code the zygote compiles or imports once, before forking, for every later child to inherit (see
        `zygote_cache.warm`), and under "calls" the planned calls (`planned.PlannedCall`s) whose arguments it
        decodes once (see `zygote_cache.preload`)."""
        if not self.alive():
            self.close()
            self.start()
        try:
            self._collect_spare()
        except SandboxError:
            pass  # asked for before a restart, or the zygote is gone: a fresh request below says which
        child, self._spare = self._spare, None
        self._preload((warm or {}).get("calls", ()))
        if child is not None and child.limits != limits:
            Sandbox(self, child).close()
            child = None
        warm = self._unwarmed(warm or {})
        if child is None:
            self._ask(limits, warm)
            warm = {}
            child = self._collect()
        self._ask(limits, warm)
        return (kind or Sandbox)(self, child)

    def _unwarmed(self, warm: dict[str, Any]) -> dict[str, Any]:
        """The part of `warm` this zygote has not been sent yet."""
        def new(key: tuple) -> bool:
            if key in self.warmed:
                return False
            self.warmed.add(key)
            return True

        fresh = {"cells": [cell for cell in warm.get("cells", []) if new(("cell", *cell))],
                 "modules": {n: text for n, text in warm.get("modules", {}).items() if new(("module", n, text))},
                 "imports": [name for name in warm.get("imports", []) if new(("import", name))]}
        return {k: v for k, v in fresh.items() if v}

    def _preload(self, calls: Any) -> None:
        """Send the zygote the planned calls it does not hold yet, in messages that fit; a call too big
        for one is left out (it is always sent in full)."""
        new = [r for r in calls if r.key is not None and r.key not in self.preloaded]
        if not new or len(self.preloaded) + len(new) > MAX_PRELOADED:
            return
        batches: list[list] = [[]]
        size = 0
        for request in new:
            item = [request.key, base64.b64encode(request.frame).decode()]
            if len(item[1]) > MAX_CONTROL_MESSAGE - 1000:
                continue
            if size + len(item[1]) > MAX_CONTROL_MESSAGE - 1000:
                batches.append([])
                size = 0
            batches[-1].append(item)
            size += len(item[1]) + 20
        for batch in batches:
            if not batch:
                continue
            try:
                self.control.send(json.dumps({"op": "plan", "calls": batch}).encode())
            except OSError as exc:
                raise SandboxError(f"the zygote stopped answering: {exc}") from None
            self.preloaded = self.preloaded | {key for key, _ in batch}

    def _ask(self, limits: Limits, warm: dict[str, Any]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        request = json.dumps({"op": "spawn", "limits": limits.to_dict(), **({"warm": warm} if warm else {})})
        if len(request) > MAX_CONTROL_MESSAGE:  # warming is a saving, not a need: too much is not sent
            request = json.dumps({"op": "spawn", "limits": limits.to_dict()})
        try:
            socket.send_fds(self.control, [request.encode()], [theirs.fileno()])
        except OSError as exc:
            ours.close()
            raise SandboxError(f"the zygote stopped answering: {exc}") from None
        finally:
            theirs.close()
        self._pending = (ours, limits, self.preloaded)

    def _collect(self) -> "Child":
        ours, limits, preloaded = self._pending
        self._pending = None
        try:
            data, fds, _, _ = socket.recv_fds(self.control, 1 << 16, 1)
        except OSError as exc:
            ours.close()
            raise SandboxError(f"the zygote stopped answering: {exc}") from None
        if not data:
            ours.close()
            raise SandboxError("the zygote exited")
        pid = json.loads(data)["pid"]
        bare = self.info is not None and self.info.level == "bare"
        return Child(ours, pid, fds[0] if fds else None, limits, preloaded, bare)

    def _collect_spare(self) -> None:
        """Read the zygote's answer to the spare's request before any other request's answer."""
        if self._pending is not None:
            self._spare = self._collect()

    def reap(self, pid: int) -> dict[str, Any]:
        self._collect_spare()
        self.control.send(json.dumps({"op": "reap", "pid": pid}).encode())
        data = self.control.recv(1 << 16)
        if not data:
            raise SandboxError("the zygote exited")
        return json.loads(data)

    def close(self) -> None:
        if self._spare is not None:
            Sandbox(self, self._spare).close()
            self._spare = None
        if self._pending is not None:
            self._pending[0].close()  # the child reads the end of its socket and exits
            self._pending = None
        self.warmed.clear()
        self.preloaded = frozenset()
        if self.control is not None:
            self.control.close()
            self.control = None
        if self.process is not None:
            reap(self.process)
            self.process = None
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None

    def __enter__(self) -> "Zygote":
        if self.info is None:
            self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

