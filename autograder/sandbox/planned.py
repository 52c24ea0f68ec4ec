"""Requests sent ahead: a `Sandbox` that is sent a whole notebook's requests at once, so the submission
works through them without waiting for the grader, and whose replies the graders then claim in order.

The plain `autograder.sandbox.submission_process.Sandbox` sends each request when it is asked for; `PlannedSandbox`
has the same interface. Which of the two grades a notebook is chosen in one place
(`autograder.grading.sandbox_run`); the calls sent ahead are recorded by `autograder.grading.self_check.callplan`.
"""

import itertools
import time
from collections import deque
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from autograder.grader_support.student import StudentError
from autograder.sandbox import wire
from autograder.sandbox.replies import NOT_CALLED
from autograder.sandbox.request_builders import FUNCTION_NAMES, Request, call_request
from autograder.sandbox.sandbox_errors import SandboxDied
from autograder.sandbox.submission_process import Child, Reaper, Sandbox


class PlanMismatch(BaseException):
    """The graders asked for something other than the requests sent ahead of time (see
    `PlannedSandbox.announce`): the notebook must be graded again with each request sent when asked for.
    A BaseException so that no grader's or `graders.exercise`'s `except Exception` can take it for the
    student's error."""


@dataclass
class PlannedCall(Request):
    """A call sent ahead to many submissions. It keeps its arguments' `_Pattern`, to tell a grader's call
    that is the same without encoding it, and a `key` by which a zygote holding its arguments
    (`Zygote._preload`) knows it."""

    pattern: "_Pattern | None" = None
    key: int | None = None
    _brief: bytes = b""

    @property
    def brief(self) -> bytes:
        """The frame that names this planned call by its key, for a process that holds its arguments."""
        if not self._brief:
            self._brief = wire.pack({"op": "call", "plan": self.key, "group": self.header["group"]})
        return self._brief

    def matches(self, name: str, args: tuple, kwargs: dict, group: str | None) -> bool:
        """Whether `call_request(name, args, kwargs, group)` would be this request: True only when it
        certainly would (False may still be the same request; encoding it then tells)."""
        return (self.pattern is not None and self.header["name"] == name and self.header["group"] == group
                and self.pattern.matches(args, kwargs))


def planned_call(name: str, args: tuple, kwargs: dict, group: str | None,
                 functions: Mapping[int, str] = FUNCTION_NAMES) -> PlannedCall:
    """`call_request`'s request, packed once to be sent ahead to many submissions, with the pattern its
    graders' calls are recognised by."""
    request = call_request(name, args, kwargs, group, functions=functions)
    # A zygote decodes the planned calls it holds knowing only the activations (it has no instructor
    # module loaded): a call naming any other function is sent in full, for the child to resolve.
    held = functions is FUNCTION_NAMES or not _names_other_functions([args, kwargs], functions)
    return PlannedCall(request.header, request.buffers, pattern=_Pattern.of(args, kwargs),
                       key=next(_KEYS) if held else None)


@dataclass
class _Sent:
    request: Request
    drain: bool = False  # its reply is read and dropped: asked for and forgone, or passed over
    passed_over: bool = False  # counted in `PlannedSandbox.skipped`


class PlannedSandbox(Sandbox):
    """A `Sandbox` whose requests can be sent ahead (`announce`). Replies come back in order; asking for a
    request claims its reply, reading and dropping the replies of announced calls passed over on the way.
    Whenever what was sent ahead cannot tell what the graders would have seen, it raises `PlanMismatch`."""

    def __init__(self, reaper: Reaper, child: Child) -> None:
        super().__init__(reaper, child)
        self.preloaded = child.held  # the planned calls this process inherited, by key
        self.sent: deque[_Sent] = deque()  # announced, reply not read yet
        self.skipped = 0  # announced calls the graders passed over

    @property
    def in_flight(self) -> bool:
        return bool(self.sent)

    def announce(self, requests: list[Request]) -> None:
        """Send these requests now, before they are asked for, in the order they will be."""
        for request in requests:
            held = isinstance(request, PlannedCall) and request.key in self.preloaded
            self.outbox += request.brief if held else request.frame
            self.sent.append(_Sent(request))
        self._send_some()

    def request(self, request: Request, timeout: float = 60.0) -> tuple[dict, list[bytes]]:
        if self.dead:
            raise self.dead
        if not self._claim(request.header, request.buffers):
            return super().request(request, timeout)
        self._drain(timeout)
        if self.dead:
            raise self.dead
        self.sent.popleft()
        header, buffers = self._reply(timeout)
        self._check_held(request, header)
        return header, buffers

    def call_function(self, name: str, args: tuple, kwargs: dict, timeout: float, group: str | None = None,
                      functions: Mapping[int, str] = FUNCTION_NAMES) -> tuple[Any, list, list]:
        # The graders nearly always ask for the next call sent ahead: recognised as such, it needs no
        # encoding. It is the first `_claim` could pick, so claiming it is what `_claim` would do with the
        # encoded request.
        upcoming = self._upcoming()
        if isinstance(upcoming, PlannedCall) and upcoming.matches(name, args, kwargs, group):
            request: Request = upcoming
        else:
            request = self._replacing(call_request(name, args, kwargs, group, functions=functions))
        if timeout <= 0:  # not asked: its copy sent ahead, if any, is read and dropped
            if self.sent and not self.dead:
                self._claim(request.header, request.buffers, forgo=True)
            raise StudentError(NOT_CALLED.format(name=name))
        return self._send_call(name, request, timeout)

    @contextmanager
    def cell(self, group: str | None, deadline: float) -> Iterator[None]:
        """Around one cell's requests: afterwards, the replies of its announced calls nobody asked for are
        read. Calls sent ahead that the graders passed over still ran; when the cell also hit a limit,
        they may be why, so only a call-by-call run can say what the cell scores."""
        before = (self.skipped, self.incidents, len(self.limits_hit))
        yield
        self.settle(group, deadline - time.monotonic())
        if self.skipped > before[0] and (self.incidents, len(self.limits_hit)) != before[1:]:
            raise PlanMismatch(f"{group}: a limit was hit after planned calls were passed over")

    def finish(self) -> None:
        # Replies to a cell's calls leave the process together: a death may have taken some that came
        # before it with it, which only a call-by-call run can tell apart.
        if self.dead:
            raise PlanMismatch(f"the process died: {self.dead}")

    def settle(self, group: str | None, timeout: float) -> None:
        """Read the replies of this cell's announced calls that nobody asked for (or that were forgone)."""
        while self.sent and self.sent[0].request.header.get("group") == group \
                and self.sent[0].request.header.get("op") == "call":
            self._pass_over(self.sent[0])
            self._drain(timeout)
            if self.dead:
                return

    def _claim(self, header: dict, buffers: list[bytes], forgo: bool = False) -> bool:
        """Find this request among those announced (passing over announced calls only); False when
        nothing was announced. Everything before it is to be drained; with `forgo`, it is too."""
        if not self.sent:
            return False
        first = self.sent[0]
        if not first.drain and first.request.same(header, buffers):  # the usual case: the next one sent
            first.drain = forgo
            return True
        index = next((i for i, entry in enumerate(self.sent)
                      if not entry.drain and entry.request.same(header, buffers)), None)
        earlier_ones = list(self.sent)[:index]
        if index is None or any(e.request.header.get("op") != "call" for e in earlier_ones):
            raise PlanMismatch(f"a {header.get('op')} request that was not sent ahead")
        for earlier in earlier_ones:
            self._pass_over(earlier)
        self.sent[index].drain = forgo
        return True

    def _upcoming(self) -> Request | None:
        """The first announced request whose reply is still wanted."""
        for entry in self.sent:
            if not entry.drain:
                return entry.request
        return None

    def _pass_over(self, entry: _Sent) -> None:
        """An announced call the graders did not ask for (yet it ran): its reply is read and dropped."""
        if not entry.drain:
            entry.drain = entry.passed_over = True
            self.skipped += 1

    def _drain(self, timeout: float) -> None:
        while self.sent and self.sent[0].drain and not self.dead:
            entry = self.sent.popleft()
            try:
                header, _ = self._reply(timeout)
            except SandboxDied:
                return
            self._check_held(entry.request, header)
            if entry.passed_over and header.get("expired"):
                # It did not run (its cell's time was up when it came up): passing it over changed nothing.
                self.skipped -= 1

    def _check_held(self, request: Request, header: dict) -> None:
        """A process that was sent a planned call by its key and does not hold it (never expected) did
        not run it: only grading call by call can tell what the answers are."""
        if header.get("unplanned") and isinstance(request, PlannedCall) and request.key in self.preloaded:
            raise PlanMismatch("a planned call sent by its key was not found")


def _names_other_functions(value: Any, functions: Mapping[int, str]) -> bool:
    if isinstance(value, list | tuple):
        return any(_names_other_functions(item, functions) for item in value)
    if isinstance(value, dict):
        return any(_names_other_functions(item, functions) for item in value.values())
    return id(value) in functions and id(value) not in FUNCTION_NAMES


_KEYS = itertools.count()


class _Pattern:
    """Arguments as `wire.encode` sees them, to compare a call's arguments with in a few microseconds:
    matching means encoding them would give the same tree and buffers. Built from a private snapshot
    (arrays' bytes, containers' structure), so no later change to the recorded values can move it; a live
    value matches only if it is of the very same type, so nothing is trusted by identity but the
    activation functions, which cross by name."""

    def __init__(self, args: tuple, kwargs: dict) -> None:
        self.args = tuple(map(_pattern_item, args))
        self.keys = tuple(kwargs)
        self.kwargs = tuple(map(_pattern_item, kwargs.values()))

    @classmethod
    def of(cls, args: tuple, kwargs: dict) -> "_Pattern | None":
        """None when some argument is of a kind the pattern does not describe (such a call is encoded)."""
        try:
            return cls(args, kwargs)
        except _Unlike:
            return None

    def matches(self, args: tuple, kwargs: dict) -> bool:
        if len(args) != len(self.args) or tuple(kwargs) != self.keys:
            return False
        return (all(map(_alike, self.args, args))
                and all(map(_alike, self.kwargs, kwargs.values())))


class _Unlike(Exception):
    pass


def _pattern_item(value: Any) -> tuple:
    kind = type(value)
    if kind is np.ndarray:
        if value.dtype.hasobject or value.dtype.names is not None:
            raise _Unlike()
        return kind, value.dtype, value.shape, value.tobytes()
    if kind is list or kind is tuple:
        return kind, tuple(map(_pattern_item, value))
    if kind is dict:
        return kind, tuple(value), tuple(map(_pattern_item, value.values()))
    if kind is float:
        return kind, value.hex()  # the sign of a zero and NaN included, as the wire says them
    if kind is int or kind is bool or kind is str or value is None:
        return kind, value
    if id(value) in FUNCTION_NAMES:
        return _FUNCTION, value
    raise _Unlike()


_FUNCTION = object()


def _alike(pattern: tuple, value: Any) -> bool:
    kind = pattern[0]
    if kind is _FUNCTION:
        return value is pattern[1]
    if type(value) is not kind:
        return False
    if kind is np.ndarray:
        return value.dtype == pattern[1] and value.shape == pattern[2] and value.tobytes() == pattern[3]
    if kind is list or kind is tuple:
        return len(value) == len(pattern[1]) and all(map(_alike, pattern[1], value))
    if kind is dict:
        return tuple(value) == pattern[1] and all(map(_alike, pattern[2], value.values()))
    if kind is float:
        return value.hex() == pattern[1]
    return value == pattern[1]
