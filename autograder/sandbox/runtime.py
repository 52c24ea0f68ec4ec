"""The student side: runs inside the sandboxed process, executes cells and answers calls.

It owns a namespace like a kernel's, runs each cell it is sent (printing captured, the value of a last
expression shown, an exception turned into an error output) and calls the namespace's functions for the
trusted grader, sending back plain data only (see `wire`). Nothing here is trusted by the grader: the
submission can patch this module too, and can only spoil its own answers by doing so.
"""

import builtins
import contextlib
import importlib.abc
import importlib.util
import linecache
import signal
import socket
import sys
import types
from typing import Any

import numpy as np

from autograder.grader_support.activations import ACTIVATIONS
from autograder.grader_support.raised import cell_number, report
from autograder.sandbox import syntax, wire
from autograder.sandbox.call_arguments import fresh, snapshot, snapshots
from autograder.sandbox.cell_output import Discard, Output, error_output
from autograder.sandbox.limits import OUTPUT_DROPPED
from autograder.sandbox.standins import Replaced
from autograder.sandbox.zygote_cache import COMPILED, PLANNED, compile_cell, compiled_module

# How functions cross back to the grader: by name (NumPy's own tanh as the activation of that name).
_ACTIVATION_NAMES = {**{id(function): name for name, function in ACTIVATIONS.items()}, id(np.tanh): "tanh"}
MAX_REPR = 10_000


class _Interrupted(BaseException):
    """Raised into student code when the grader says time is up (SIGINT)."""


class _NoIPython:
    """`get_ipython()` outside a kernel: magics and shell escapes do nothing."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


class _InstructorModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the instructor's modules (e.g. `selfcheck`) from source sent by the grader: a file of the
    same name in the submission, or anywhere on disk, is never consulted for these names."""

    def __init__(self, sources: dict[str, str]) -> None:
        self.sources = sources

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name in self.sources:
            return importlib.util.spec_from_loader(name, self, origin=f"{name}.py")
        return None

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: Any) -> None:
        source, filename = self.sources[module.__name__], f"{module.__name__}.py"
        exec(compiled_module(source, filename), module.__dict__)


class Runtime:
    def __init__(self, sock: socket.socket, output_chars: int, reply_bytes: int) -> None:
        """`output_chars`, `reply_bytes`: what the trusted side keeps and accepts (it counts for itself);
        kept to here, an honest submission's printing or answer costs only the one cell or call."""
        self.sock = sock
        self.budget = output_chars
        self.reply_bytes = reply_bytes
        self.chunks: list[list[str]] = []
        self.limits: set[str] = set()
        self.interruptible = False
        self.pending = False  # an interrupt that arrived between receiving a request and running it
        self.count = 0
        self.expired: Any = None  # the cell (group) whose time ran out: its remaining calls are skipped
        self.outgoing = bytearray()  # replies not sent yet
        self.instructor_modules: frozenset[str] = frozenset()  # their functions may be passed by name
        self.namespace: dict[str, Any] = {
            "__name__": "__main__", "__builtins__": builtins, "get_ipython": _NoIPython,
            "display": lambda *objs, **kw: [print(repr(o)) for o in objs] and None,
        }

    # output ---------------------------------------------------------------------------------------
    def capture(self, name: str, text: str) -> None:
        if self.budget <= 0:
            self.limits.add("output")
            return
        if len(text) > self.budget:
            text = text[:self.budget] + OUTPUT_DROPPED
            self.limits.add("output")
        self.budget -= len(text)
        if self.chunks and self.chunks[-1][0] == name:
            self.chunks[-1][1] += text
        else:
            self.chunks.append([name, text])

    # signals --------------------------------------------------------------------------------------
    def _on_sigint(self, signum: int, frame: Any) -> None:
        if self.interruptible:
            raise _Interrupted()
        self.pending = True

    def _start_student_code(self) -> None:
        self.interruptible = True
        if self.pending:  # the grader gave up before this request's code even started
            raise _Interrupted()

    # requests -------------------------------------------------------------------------------------
    def serve(self) -> None:
        signal.signal(signal.SIGINT, self._on_sigint)
        reader = self.reader = wire.Reader(self.sock)
        calls_of = None  # the cell whose calls are running back to back
        while True:
            if not reader.complete():
                self._flush()  # about to wait for the grader: it may be waiting for these replies
            try:
                header, buffers = reader.recv()
            except EOFError:
                return
            self.pending = False  # an interrupt meant for an earlier, finished request
            op = header.get("op")
            group = header.get("group")
            # Replies to one cell's calls sent ahead go out together, before anything else runs: the
            # grader waits on that cell's deadline for all of them alike.
            if not (op == "call" and group is not None and group == calls_of) or len(self.outgoing) > 1 << 20:
                self._flush()
            calls_of = group if op == "call" else None
            if op == "modules":
                sys.meta_path.insert(0, _InstructorModules(header["sources"]))
                self.instructor_modules = frozenset(header["sources"])
                self._send({"ok": True})
            elif op == "cell":
                with self._stand_ins(header.get("replace")):
                    reply = self.run_cell(header["source"], header.get("display", True),
                                          header.get("ipython", False))
                self._expire_after_timeout(group, reply.get("error") is not None
                                           and reply["error"]["ename"] == "TimeoutError")
                self._send(reply)
            elif op == "call" and group is not None and group == self.expired:
                # The grader stopped waiting for this cell (its time is up) before this call, sent ahead
                # of time, came up: it is not run, as the grader would not have asked for it.
                self._send({"expired": True})
            elif op == "call" and "plan" in header:
                planned = PLANNED.get(header["plan"])
                if planned is None:
                    timed_out, frame = False, wire.pack({"error": "a planned call this process does not hold",
                                                         "unplanned": True})
                else:
                    name, args, kwargs, before = planned
                    timed_out, frame = self.run_call(name, fresh(args), fresh(kwargs), before)
                self._expire_after_timeout(group, timed_out)
                self.outgoing += frame
            elif op == "call":
                with self._stand_ins(header.get("replace")):
                    timed_out, frame = self.run_sent_call(header["name"], header["args"], header["kwargs"], buffers)
                self._expire_after_timeout(group, timed_out)
                self.outgoing += frame
            elif op == "exit":
                self._flush()
                return

    def _send(self, header: dict) -> None:
        self.outgoing += wire.pack(header)

    def _stand_ins(self, names: Any) -> Replaced | contextlib.nullcontext:
        """While this request runs, the named functions (other exercises that lost points, see
        `autograder.grader_support.dependencies`) answer through the grader instead of running the student's code."""
        if not isinstance(names, list) or not names:
            return contextlib.nullcontext()
        return Replaced(self.namespace, {name: self._asks_grader(name) for name in names if isinstance(name, str)})

    def _asks_grader(self, name: str) -> Any:
        def answered(*args: Any, **kwargs: Any) -> Any:
            tree, buffers = wire.encode([list(args), kwargs], self._crossing_names(), strict=True)
            self._flush()
            self.sock.sendall(wire.pack({"callback": name, "args": tree}, buffers))
            header, buffers = self.reader.recv()
            if "value" not in header:
                raise RuntimeError(str(header.get("error", f"{name}: no answer"))[:1000])
            return wire.decode(header["value"], buffers, self.function)

        answered.__name__ = answered.__qualname__ = name
        return answered

    def _flush(self) -> None:
        if self.outgoing:
            self.sock.sendall(self.outgoing)
            self.outgoing = bytearray()

    def _expire_after_timeout(self, group: Any, timed_out: bool) -> None:
        if timed_out and group is not None:
            self.expired = group

    def run_cell(self, source: str, display: bool, ipython: bool = False) -> dict[str, Any]:
        """`ipython`: the text is a student's cell as written, its IPython syntax not yet turned into Python."""
        self.chunks = []
        self.count += 1
        name = f"<cell {self.count}>"
        error, result = None, None
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = Output(self.capture, "stdout"), Output(self.capture, "stderr")
        try:
            try:
                self._start_student_code()
                if ipython:
                    source = syntax.python_source(source)
                # As IPython does for a kernel's cells: a traceback through this cell (the self-checks'
                # "in your code, line 13, in f: ...") quotes its lines.
                linecache.cache[name] = (len(source), None, source.splitlines(True), name)
                code, last = COMPILED.get((source, display, name)) or compile_cell(source, display, name)
                exec(code, self.namespace)
                if last is not None:
                    value = eval(last, self.namespace)
                    if value is not None:
                        result = repr(value)[:MAX_REPR]
            finally:
                self.interruptible = False
        except _Interrupted:
            error = {"ename": "TimeoutError", "evalue": "the cell ran out of time and was interrupted",
                     "traceback": []}
            self.limits.add("time")
        except BaseException as exc:  # noqa: B036 - a cell's SystemExit or KeyboardInterrupt is its error
            if isinstance(exc, MemoryError):
                self.limits.add("memory")
            if isinstance(exc, BlockingIOError):
                self.limits.add("processes")
            error = error_output(exc)
        finally:
            sys.stdout, sys.stderr = saved
        return {"outputs": self.chunks, "result": result, "error": error, "limits": sorted(self.limits)}

    def run_sent_call(self, name: str, args_tree: Any, kwargs_tree: Any, buffers: list[bytes]
                      ) -> tuple[bool, bytes]:
        """A call as it came over the wire: its arguments decoded, then `run_call`."""
        try:
            args = wire.decode(args_tree, buffers, self.function)
            kwargs = wire.decode(kwargs_tree, buffers, self.function)
        except Exception:  # e.g. a function named by the grader that this process deleted
            return False, wire.pack({"error": "uncallable", "kind": "uncallable"})
        return self.run_call(name, args, kwargs)

    def _crossing_names(self) -> dict[int, str]:
        """The functions this process may pass to the grader, by id: the activations, and the instructor's
        modules' own functions as "module:function" (`function` resolves them on the way in)."""
        names = dict(_ACTIVATION_NAMES)
        for module_name in self.instructor_modules:
            module = sys.modules.get(module_name)
            for attribute, value in vars(module).items() if module else ():
                if isinstance(value, types.FunctionType) and value.__module__ == module_name:
                    names[id(value)] = f"{module_name}:{attribute}"
        return names

    def function(self, name: str) -> Any:
        """A function that crossed by name: an activation, or "module:function" of an instructor's module,
        taken from this process's own copy of that module (the one the notebook's cells use)."""
        if name in ACTIVATIONS:
            return ACTIVATIONS[name]
        module, _, attribute = name.partition(":")
        if module not in self.instructor_modules or not attribute:
            raise wire.WireError(f"unknown function {name!r}")
        return getattr(importlib.import_module(module), attribute)

    def run_call(self, name: str, args: list, kwargs: dict, before: tuple[list, dict] | None = None
                 ) -> tuple[bool, bytes]:
        """(whether it ran out of time, the reply's frame). `before`: the arguments' snapshots, when known
        already (a planned call's copies). Whatever the function does or returns, the reply is an answer
        or an error for this call alone: the process goes on to the next request."""
        function = self.namespace.get(name)
        if not callable(function):
            return False, wire.pack({"error": "undefined", "kind": "undefined"})
        if before is None:
            before = snapshots(args, kwargs)
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = Discard(None, "discard")
        returned = False
        try:
            try:
                self._start_student_code()
                value = function(*args, **kwargs)
                returned = True
                # Comparing and encoding run the answer's own code too (__eq__, __iter__, __int__, ...):
                # still interruptible, and what it raises is this call's error.
                # Send back what the call did to its arguments, so the grader sees in-place changes as
                # in-process.
                changed_args = [[i, a] for i, a in enumerate(args) if snapshot(a) != before[0][i]]
                changed_kwargs = [[k, v] for k, v in kwargs.items() if snapshot(v) != before[1][k]]
                tree, out = wire.encode([value, changed_args, changed_kwargs], strict=True)
                size = sum(map(len, out))
                frame = wire.pack({"value": tree}, out) if size <= self.reply_bytes else b""
            finally:
                self.interruptible = False
        except _Interrupted:
            self.limits.add("time")
            return True, wire.pack({"error": "timeout", "timeout": True})
        except BaseException as exc:  # noqa: B036 - whatever it raised is the answer's problem
            if isinstance(exc, MemoryError):
                self.limits.add("memory")
            # What the grader is told is the exception's type and where it came from, never its text (the
            # trusted side builds the sentence: `autograder.grader_support.raised`).
            if not returned:
                return False, wire.pack({"error": "raised", "kind": "raised", "raised": _reported(exc, function)})
            why = exc.reason if isinstance(exc, wire.WireError) else ""
            return False, wire.pack({"error": "unsendable", "kind": "unsendable", "why": why})
        finally:
            sys.stdout, sys.stderr = saved
        if not frame or len(frame) > self.reply_bytes:
            return False, wire.pack({"error": "too big", "kind": "too_big"})
        return False, frame


def _reported(exc: BaseException, function: Any) -> Any:
    """`raised.report` for an exception of the student's code, even one whose type or traceback is made to
    raise when looked at (the grader then says only that it raised)."""
    try:
        return report(exc, function, cell_number)
    except BaseException:  # noqa: B036 - whatever the exception does when examined
        return None
