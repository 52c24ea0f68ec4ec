"""The trusted side of the sandbox: start a zygote, open one sandboxed process per submission, run its
cells and call its functions with deadlines, and stop it for good.

Nothing here imports a grader; the graders only ever see a `SandboxedStudent`, which behaves like
`autograder.student.InProcessStudent` except that the functions run in the sandbox.
"""

import base64
import json
import os
import select
import signal
import socket
import subprocess
import time
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from autograder import raised
from autograder.activations import ACTIVATIONS
from autograder.sandbox import isolation, wire
from autograder.sandbox.launch import AUTO, AUTO_OR_BARE, Launched, launch, reap, requested_level
from autograder.sandbox.limits import OUTPUT_DROPPED, Limits
from autograder.student import StudentError, not_defined

MAX_CONTROL_MESSAGE = 100_000  # one SOCK_SEQPACKET message to the zygote (its buffer is about 200 kB)
MAX_PRELOADED = 10_000  # planned calls a zygote holds; past that, calls are sent in full
GRACE_SECONDS = 2.0  # after an interrupt, how long the submission has to give control back
FRAME_SECONDS = 10.0  # once a reply has started, how long it may take to arrive in full
# id(function) -> the name it crosses the wire as: the activations by default; a caller may add others
# (`autograder.grading.trustedcheck`: an instructor module's functions, as "module:function").
FUNCTION_NAMES: Mapping[int, str] = {id(f): name for name, f in ACTIVATIONS.items()}


class SandboxError(Exception):
    """The sandbox machinery itself failed (not the submission): the zygote could not start."""


def refusal(why: str) -> str:
    """Why nothing is graded where the sandbox cannot hide the course, and the ways out: one line."""
    return (f"not grading: the sandbox cannot hide the graders, solutions and gradebook from student code here "
            f"({why}). Grade where Linux namespaces are allowed (as root or in a privileged container, or with "
            f"unprivileged user namespaces enabled), or accept the bare sandbox, under which student code can "
            f"read them, with c.Autograder.accept_bare_sandbox = True in nbgrader_config.py")


class BoundaryError(BaseException):
    """A grader passed a value that cannot cross into the sandbox: a bug in the grader, not the answer.
    A BaseException so `graders.exercise`'s per-case `except Exception` cannot blame the student for it."""


class SandboxDied(Exception):
    """The submission's process is gone or was stopped; `limit` says why, in `grading.model`'s vocabulary."""

    def __init__(self, message: str, limit: str) -> None:
        super().__init__(message)
        self.limit = limit


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
        `runtime.warm`), and under "calls" the planned calls (`planned.PlannedCall`s) whose arguments it
        decodes once (see `runtime.preload`)."""
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
        return Child(ours, pid, fds[0] if fds else None, limits, preloaded)

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


NOT_CALLED = "{name} was not called: this cell's time limit was already used up"
CALL_FAILED = {
    "unsendable": "{name} returned a value that cannot be sent back to the grader",
    "too_big": "{name} returned a value too big to send back to the grader",
    "uncallable": "{name} could not be called with the grader's arguments",
}
# A process that ended during a call, by the limit it met (`SandboxDied.limit`): said without the exit
# status or signal, which the code chooses.
STOPPED = {
    "time": "stopped: it did not finish in time",
    "memory": "stopped: it used more memory than it may",
    "output": "stopped: it sent back more than the grader accepts",
    "processes": "stopped: it started more processes than it may",
    "crash": "the submission's process ended during this call (it exited or crashed)",
}


@dataclass
class Request:
    """A request as it crosses: its header and buffers, and the frame they pack into (packed once when the
    same request goes to every submission: see `planned.PlannedCall`)."""

    header: dict
    buffers: list[bytes] = field(default_factory=list)
    _frame: bytes = b""

    @property
    def frame(self) -> bytes:
        # Packed only if sent: a grader's call that matches one sent ahead is only compared.
        if not self._frame:
            self._frame = wire.pack(self.header, self.buffers)
        return self._frame

    def same(self, header: dict, buffers: list[bytes]) -> bool:
        if header is self.header and buffers is self.buffers:  # recognised by `PlannedCall.matches`: this one
            return True
        return self.header == header and self.buffers == buffers


@dataclass
class Child:
    """A process the zygote forked, before it is a `Sandbox`: its end of the socket, pid, pidfd and limits,
    and the keys of the planned calls it inherited from the zygote (`planned.PlannedSandbox` uses them)."""

    sock: socket.socket
    pid: int
    pidfd: int | None
    limits: Limits
    held: frozenset[int] = frozenset()


class Sandbox:
    """One submission's process. Every request is sent when it is asked for and has a deadline; past it
    the code is interrupted, then killed; once killed, every later request raises SandboxDied.
    (`planned.PlannedSandbox` is the same with requests sent ahead.)"""

    def __init__(self, zygote: Zygote, child: Child) -> None:
        self.zygote, self.sock, self.pid, self.pidfd = zygote, child.sock, child.pid, child.pidfd
        self.limits = limits = child.limits
        # Judging an exercise on its own (`autograder.dependencies`): these functions of the student's are
        # replaced while each request runs, and `answers` answers their calls (only ever call by call).
        self.replace: list[str] = []
        self.answers: Any = None
        self.dead: SandboxDied | None = None
        self.limits_hit: set[str] = set()
        self.exit: dict[str, Any] | None = None
        # What it sends is bounded here, whatever its process does: a frame, all frames, and printed text.
        self.reader = wire.Reader(self.sock, limits.reply_bytes(), limits.received_bytes())
        self.output_left = limits.output_chars  # printed text still kept; -1 once cut
        self.outbox = bytearray()
        self.incidents = 0  # timeouts, interrupts and deaths so far
        # The notebook's code cells this process was sent, by the number it compiles them under (`<cell 7>`):
        # the text a hidden check quotes a line from is the grader's copy, never one the process reports.
        self.cells: dict[int, str] = {}

    # low level ------------------------------------------------------------------------------------
    def _signal(self, signum: int) -> None:
        try:
            if self.pidfd is not None:
                signal.pidfd_send_signal(self.pidfd, signum)
            elif self.zygote.info and self.zygote.info.level == "bare":
                os.kill(self.pid, signum)  # same PID namespace, and not reaped yet: the pid is still ours
        except (ProcessLookupError, OSError):
            pass

    def _pump(self, seconds: float, whole: bool) -> bool:
        """Send what is queued and read what arrives until a reply has begun (or, `whole`, is complete).
        False when `seconds` pass first. Sending never blocks: a submission that stops reading cannot
        hold the grader."""
        end = time.monotonic() + seconds
        while not (self.reader.complete() if whole else self.reader.started()):
            remaining = end - time.monotonic()
            if remaining <= 0:
                return False
            readable, writable, _ = select.select([self.sock], [self.sock] if self.outbox else [], [], remaining)
            if writable:
                self._send_some()
            if readable:
                try:
                    self.reader.feed(socket.MSG_DONTWAIT)
                except BlockingIOError:
                    pass
        return True

    def _send_some(self) -> None:
        try:
            sent = self.sock.send(self.outbox, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return
        except OSError:  # the process is gone: reading its end of the socket will say so
            self.outbox.clear()
            return
        del self.outbox[:sent]

    def _reply(self, timeout: float) -> tuple[dict, list[bytes]]:
        """The next reply in order, with the interrupt-then-kill escalation when it does not come. Calls
        of replaced functions that come first (see `answers`) are answered on the way, on the same time."""
        if self.dead:
            raise self.dead
        end = time.monotonic() + max(timeout, 1.0)  # a request always gets a moment, even at the end of a budget
        try:
            while True:
                if not self._pump(end - time.monotonic(), whole=False):
                    self.limits_hit.add("time")
                    self.incidents += 1
                    self._signal(signal.SIGINT)
                    if not self._pump(GRACE_SECONDS, whole=False):
                        self.kill()
                        self._died(f"stopped after {timeout:g} s: it did not finish in time and ignored the "
                                   "interrupt", "time")
                    end = time.monotonic() + GRACE_SECONDS  # what the interrupted code sends before its reply
                if not self._pump(FRAME_SECONDS, whole=True):
                    raise TimeoutError("a reply stopped half way")
                header, buffers = self.reader.take()
                if "callback" not in header or self.answers is None:
                    return header, buffers
                self._answer(header, buffers)
        except (EOFError, BrokenPipeError, ConnectionResetError):
            self._died("the submission's process ended", "crash")
        except wire.TooBig as exc:
            self.kill()
            self._died(f"stopped: it sent back more than the grader accepts ({exc}); "
                       f"printed text is limited to {self.limits.output_chars} characters", "output")
        except (wire.WireError, TimeoutError, OSError) as exc:
            self.kill()
            self._died(f"the submission's process sent something unreadable ({exc})", "crash")
        raise AssertionError("unreachable")

    def _answer(self, header: dict, buffers: list[bytes]) -> None:
        """A replaced function's call, from the student's code: answered from `answers`, or refused."""
        name = str(header.get("callback"))
        try:
            args, kwargs = wire.decode(header.get("args"), buffers, self.answers.function)
            tree, out = wire.encode(self.answers.answer(name, tuple(args), dict(kwargs)), strict=True)
            reply = wire.pack({"value": tree}, out)
        except (LookupError, wire.WireError, TypeError, ValueError) as exc:
            reply = wire.pack({"error": str(exc)[:1000]})
        self.outbox += reply
        self._send_some()

    def request(self, request: Request, timeout: float = 60.0) -> tuple[dict, list[bytes]]:
        if self.dead:
            raise self.dead
        self.outbox += request.frame
        self._send_some()
        return self._reply(timeout)

    def _died(self, message: str, limit: str) -> None:
        if self.dead is None:
            self.incidents += 1
            info = self.close(wait=True)
            message, limit = _explain(message, limit, info, self.limits)
            self.limits_hit.add(limit)
            self.dead = SandboxDied(message, limit)
        raise self.dead

    # high level -----------------------------------------------------------------------------------
    def send_modules(self, sources: dict[str, str]) -> None:
        self.request(modules_request(sources), timeout=30)

    def run_cell(self, source: str, timeout: float, display: bool = True, group: str | None = None,
                 ipython: bool = False) -> dict[str, Any]:
        header, _ = self.request(self._replacing(cell_request(source, display, group, ipython)), timeout=timeout)
        return _checked_cell_reply(header, self)

    def call_function(self, name: str, args: tuple, kwargs: dict, timeout: float, group: str | None = None,
                      functions: Mapping[int, str] = FUNCTION_NAMES) -> tuple[Any, list, list]:
        """Call the student's function `name` in the process: (its value, the arguments it changed)."""
        request = self._replacing(call_request(name, args, kwargs, group, functions=functions))
        if timeout <= 0:
            raise StudentError(NOT_CALLED.format(name=name))
        return self._send_call(name, request, timeout)

    def _replacing(self, request: Request) -> Request:
        """`request`, with the functions being replaced while it runs (`replace`) named in it."""
        if self.replace:
            request.header["replace"] = self.replace
        return request

    def _send_call(self, name: str, request: Request, timeout: float) -> tuple[Any, list, list]:
        try:
            header, replies = self.request(request, timeout=timeout)
        except SandboxDied as died:
            raise StudentError(f"{name}: {STOPPED.get(died.limit, STOPPED['crash'])}") from None
        if header.get("expired"):
            raise StudentError(NOT_CALLED.format(name=name))
        if "error" in header:
            if header.get("timeout"):
                self.limits_hit.add("time")
                self.incidents += 1
            said = header.get("raised", {}).get("text") if isinstance(header.get("raised"), dict) else ""
            raise StudentError(self._call_error(name, header), said[:300] if isinstance(said, str) else "")
        try:
            value, changed_args, changed_kwargs = wire.decode(header.get("value"), replies)
        except (wire.WireError, TypeError, ValueError):
            raise StudentError(f"{name} returned something that is not plain data") from None
        return value, changed_args, changed_kwargs

    def _call_error(self, name: str, header: dict) -> str:
        """What a failed call says, in the grader's words: the process only names which failure it was (and,
        for an exception, its type and lines, checked against this side's copy of the cells). Nothing it
        computed is quoted (README, "What the feedback reveals")."""
        if header.get("timeout"):
            return f"{name} did not return in time and was stopped"
        kind = header.get("kind") if isinstance(header.get("kind"), str) else None
        if kind == "raised":
            return raised.from_report(header.get("raised"), self.cells).describe(name)
        if kind == "undefined":
            return not_defined(name)
        return CALL_FAILED.get(kind, "{name} failed when called").format(name=name)

    # a notebook's run (what `planned.PlannedSandbox` does more around it) ---------------------------
    @property
    def in_flight(self) -> bool:
        """Whether replies to requests sent ahead are still to be read: never, when each is sent as asked for."""
        return False

    def cell(self, group: str | None, deadline: float) -> AbstractContextManager[None]:
        """Around one notebook cell's requests: nothing to do when each is sent as it is asked for."""
        return nullcontext()

    def finish(self) -> None:
        """The notebook's requests are all made: nothing to check when each was sent as it was asked for."""

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def close(self, wait: bool = False) -> dict[str, Any] | None:
        """Stop the process for good (and, through its PID namespace, all it started). Only when `wait`
        (to explain a death) is its exit status collected; otherwise the zygote reaps it in passing."""
        if self.exit is not None:
            return self.exit
        self.kill()  # whatever state it is in: nothing it does can delay or refuse this
        self.sock.close()
        self.exit = {"status": None}
        if wait:
            try:
                self.exit = self.zygote.reap(self.pid)
            except (OSError, SandboxError):
                pass
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None
        return self.exit


def modules_request(sources: dict[str, str]) -> Request:
    return Request({"op": "modules", "sources": sources})


def cell_request(source: str, display: bool, group: str | None, ipython: bool = False) -> Request:
    """`ipython`: `source` is a student's cell as written; the sandboxed process turns its IPython syntax into
    Python (see `syntax`), on that cell's time."""
    header = {"op": "cell", "source": source, "display": display, "group": group}
    return Request({**header, "ipython": True} if ipython else header)


def call_request(name: str, args: tuple, kwargs: dict, group: str | None,
                 functions: Mapping[int, str] = FUNCTION_NAMES) -> Request:
    """`functions`: the functions that may cross, by id, with the name each crosses as."""
    try:  # one walk, so args' and kwargs' arrays share one list of buffers
        (args_tree, kwargs_tree), buffers = wire.encode([list(args), kwargs], functions, strict=True)
    except wire.WireError as exc:
        raise BoundaryError(f"a grader passed a value that cannot cross into the sandbox: {exc}") from None
    return Request({"op": "call", "name": name, "args": args_tree, "kwargs": kwargs_tree, "group": group},
                   buffers)


def _explain(message: str, limit: str, info: dict[str, Any] | None, limits: Limits) -> tuple[str, str]:
    """Name the limit that ended a process, from how it ended and the CPU time it used."""
    status = (info or {}).get("status")
    if status is None or limit in ("time", "output"):
        return message, limit
    if info.get("oom"):  # the memory cgroup's count: no guess needed
        return (f"stopped: it used more than its {limits.memory_mb} MB of memory, with all the processes it "
                "started", "memory")
    cpu = info.get("cpu", 0.0)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu >= limits.cpu_seconds - 0.5):
            return f"stopped: it used its {limits.cpu_seconds} s of CPU time", "time"
        if sig == signal.SIGKILL:
            return f"{message} (killed, likely over the {limits.memory_mb} MB memory limit)", "memory"
        return f"{message} (killed by signal {signal.Signals(sig).name})", "crash"
    code = os.waitstatus_to_exitcode(status)
    return f"{message} (exit status {code}: os._exit or a crash)", "crash"


def _checked_cell_reply(header: dict, sandbox: Sandbox) -> dict[str, Any]:
    """Keep only well-formed, bounded fields of a cell reply (it comes from untrusted code). Printed text is
    counted here against the sandbox's budget: what the process says of its own budget is not trusted."""
    outputs = []
    for item in header.get("outputs", []) if isinstance(header.get("outputs"), list) else []:
        if isinstance(item, list) and len(item) == 2 and item[0] in ("stdout", "stderr") and isinstance(item[1], str):
            text = item[1]
            if len(text) <= sandbox.output_left:
                sandbox.output_left -= len(text)
            elif sandbox.output_left < 0:  # cut already, and said so
                continue
            else:
                text = text[:sandbox.output_left] + OUTPUT_DROPPED
                sandbox.output_left = -1
                sandbox.limits_hit.add("output")
            outputs.append((item[0], text))
    result = header.get("result")
    error = header.get("error")
    if isinstance(error, dict):
        tb = error.get("traceback") if isinstance(error.get("traceback"), list) else []
        error = {"ename": str(error.get("ename", "Error"))[:200], "evalue": str(error.get("evalue", ""))[:2000],
                 "traceback": [str(line)[:2000] for line in tb[:100]]}
    else:
        error = None
    for limit in header.get("limits", []) if isinstance(header.get("limits"), list) else []:
        if limit in ("time", "memory", "output", "processes"):
            sandbox.limits_hit.add(limit)
    return {"outputs": outputs, "result": str(result)[:10_000] if isinstance(result, str) else None,
            "error": error}


def copy_back(target: Any, new: Any) -> None:
    """Make the caller's argument look as the student's function left it (arrays in place, containers
    item by item), so a grader checking for modified inputs sees what it would see in-process."""
    if isinstance(target, np.ndarray) and isinstance(new, np.ndarray):
        if target.shape != new.shape:
            try:
                target.resize(new.shape, refcheck=False)
            except (ValueError, TypeError):
                target.flat[:1] = target.flat[:1] + 1 if target.size else target  # differ, visibly
                return
        np.copyto(target, new, casting="unsafe")
    elif isinstance(target, list) and isinstance(new, list):
        if len(target) == len(new):
            for i, (old, item) in enumerate(zip(target, new, strict=True)):
                if isinstance(old, np.ndarray | list | dict) and type(item) is type(old):
                    copy_back(old, item)
                else:
                    target[i] = item
        else:
            target[:] = new
    elif isinstance(target, dict) and isinstance(new, dict):
        for key in list(target):
            if key not in new:
                del target[key]
        for key, item in new.items():
            if key in target and isinstance(target[key], np.ndarray | list | dict) and type(item) is type(target[key]):
                copy_back(target[key], item)
            else:
                target[key] = item


class SandboxedStudent:
    """The `student` the graders see under `autograder grade`: `student.f(*args)` runs f in the sandboxed
    process (`student.InProcessStudent` runs it in this one, for the kernel and pytest). Each grade cell has a
    time budget; once it is spent, further calls fail at once instead of each waiting its own timeout.
    `group` names the cell, so that calls sent ahead for it can be told from other cells' calls."""

    def __init__(self, sandbox: Sandbox, deadline: float, group: str | None = None,
                 functions: Mapping[int, str] = FUNCTION_NAMES) -> None:
        """`functions`: the functions its calls may pass, with the name each crosses as."""
        self._sandbox = sandbox
        self._deadline = deadline
        self._group = group
        self._functions = functions

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)

        def call_in_sandbox(*args: Any, **kwargs: Any) -> Any:
            remaining = self._deadline - time.monotonic()
            value, changed_args, changed_kwargs = self._sandbox.call_function(name, args, kwargs, remaining,
                                                                              self._group, self._functions)
            for index, new in changed_args if isinstance(changed_args, list) else []:
                if isinstance(index, int) and 0 <= index < len(args):
                    copy_back(args[index], new)
            for key, new in changed_kwargs if isinstance(changed_kwargs, list) else []:
                if key in kwargs:
                    copy_back(kwargs[key], new)
            return value

        return call_in_sandbox
