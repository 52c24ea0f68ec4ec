"""One submission's sandboxed process, as the trusted side drives it: every request sent when it is asked for,
with a deadline, its reply read within bounds, and the process stopped for good.

Nothing here imports a grader; the graders only ever see a `sandboxed_student.SandboxedStudent`.
"""

import os
import select
import signal
import socket
import time
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any, Protocol

from autograder.grader_support.student import StudentError
from autograder.sandbox import wire
from autograder.sandbox.limits import Limits
from autograder.sandbox.output_budget import OutputBudget
from autograder.sandbox.replies import NOT_CALLED, STOPPED, call_failure, checked_cell_reply, explain_death
from autograder.sandbox.request_builders import FUNCTION_NAMES, Request, call_request, cell_request, modules_request
from autograder.sandbox.sandbox_errors import SandboxDied, SandboxError

GRACE_SECONDS = 2.0  # after an interrupt, how long the submission has to give control back
FRAME_SECONDS = 10.0  # once a reply has started, how long it may take to arrive in full


@dataclass
class Child:
    """A process the zygote forked, before it is a `Sandbox`: its end of the socket, pid, pidfd and limits,
    and the keys of the planned calls it inherited from the zygote (`planned.PlannedSandbox` uses them)."""

    sock: socket.socket
    pid: int
    pidfd: int | None
    limits: Limits
    held: frozenset[int] = frozenset()
    bare: bool = False  # forked at the bare level: in our PID namespace, so its pid may be signalled


class Reaper(Protocol):
    """What forked a `Sandbox`'s process and collects its exit status: the zygote's handle
    (`zygote_handle.Zygote`), which imports this module, never the reverse."""

    def reap(self, pid: int) -> dict[str, Any]:
        """The exit status (and CPU time, memory events) of the process `pid`, once it has ended."""


class Answering(Protocol):
    """What answers the calls of the student's functions replaced while a request runs (judging an exercise on
    its own: `grading.alone` hands in `dependencies.Answers`); the only grading object this module calls."""

    def function(self, name: str) -> Any:
        """A function that crossed the wire by name, as the answers' arguments need it."""

    def answer(self, name: str, args: tuple, kwargs: dict) -> Any:
        """The value the replaced function `name` gives for these arguments; LookupError if none."""


class Sandbox:
    """One submission's process. Every request is sent when it is asked for and has a deadline; past it
    the code is interrupted, then killed; once killed, every later request raises SandboxDied.
    (`planned.PlannedSandbox` is the same with requests sent ahead.)"""

    def __init__(self, reaper: Reaper, child: Child) -> None:
        self.reaper, self.sock, self.pid, self.pidfd = reaper, child.sock, child.pid, child.pidfd
        self.bare = child.bare
        self.limits = limits = child.limits
        # Judging an exercise on its own (`standing_in`): these functions of the student's are replaced
        # while each request runs, and `answers` answers their calls (only ever call by call).
        self._replace: list[str] = []
        self._answers: Answering | None = None
        self.dead: SandboxDied | None = None
        self.limits_hit: set[str] = set()
        self.exit: dict[str, Any] | None = None
        # What it sends is bounded here, whatever its process does: a frame, all frames, and printed text.
        self.reader = wire.Reader(self.sock, limits.reply_bytes(), limits.received_bytes())
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
            elif self.bare:
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
        of replaced functions that come first (see `standing_in`) are answered on the way, on the same time."""
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
                if "callback" not in header or self._answers is None:
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
            args, kwargs = wire.decode(header.get("args"), buffers, self._answers.function)
            tree, out = wire.encode(self._answers.answer(name, tuple(args), dict(kwargs)), strict=True)
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
            message, limit = explain_death(message, limit, info, self.limits)
            self.limits_hit.add(limit)
            self.dead = SandboxDied(message, limit)
        raise self.dead

    # high level -----------------------------------------------------------------------------------
    def send_modules(self, sources: dict[str, str]) -> None:
        self.request(modules_request(sources), timeout=30)

    def run_cell(self, source: str, timeout: float, output: OutputBudget, display: bool = True,
                 group: str | None = None, ipython: bool = False) -> dict[str, Any]:
        """Run a cell's code; what it printed is taken from `output`, the submission's budget."""
        header, _ = self.request(self._replacing(cell_request(source, display, group, ipython)), timeout=timeout)
        reply, hit = checked_cell_reply(header, output)
        self.limits_hit |= hit
        return reply

    def call_function(self, name: str, args: tuple, kwargs: dict, timeout: float, group: str | None = None,
                      functions: Mapping[int, str] = FUNCTION_NAMES) -> tuple[Any, list, list]:
        """Call the student's function `name` in the process: (its value, the arguments it changed)."""
        request = self._replacing(call_request(name, args, kwargs, group, functions=functions))
        if timeout <= 0:
            raise StudentError(NOT_CALLED.format(name=name))
        return self._send_call(name, request, timeout)

    @contextmanager
    def standing_in(self, names: list[str], answers: Answering) -> Iterator[None]:
        """Within it, the student's functions `names` are replaced in every request, their calls answered by
        `answers`: the one way grading reaches into this process to judge an exercise on its own."""
        self._replace, self._answers = names, answers
        try:
            yield
        finally:
            self._replace = []

    def _replacing(self, request: Request) -> Request:
        """`request`, with the functions being replaced while it runs (`standing_in`) named in it."""
        if self._replace:
            request.header["replace"] = self._replace
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
            raise StudentError(call_failure(name, header, self.cells), said[:300] if isinstance(said, str) else "")
        try:
            value, changed_args, changed_kwargs = wire.decode(header.get("value"), replies)
        except (wire.WireError, TypeError, ValueError):
            raise StudentError(f"{name} returned something that is not plain data") from None
        return value, changed_args, changed_kwargs

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
                self.exit = self.reaper.reap(self.pid)
            except (OSError, SandboxError):
                pass
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None
        return self.exit

