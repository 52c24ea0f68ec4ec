"""The `student` fixture: a submission's functions, seen only through calls.

Graders call `student.<function>(...)` and never reach past it, so the same graders judge code run in this
process (a notebook's kernel, an instructor's pytest) or in a sandboxed process (`autograder grade`).
"""

import io
from collections.abc import Callable, Mapping
from contextlib import redirect_stderr, redirect_stdout
from typing import Any


class StudentError(Exception):
    """The submission's code raised, is missing, or was stopped; the message is for the student."""


class NamespaceStudent:
    """Functions defined in a namespace of this process (a kernel's `globals()`)."""

    def __init__(self, namespace: Mapping[str, Any]) -> None:
        self._namespace = namespace

    def __getattr__(self, name: str) -> Callable[..., Any]:
        function = self._namespace.get(name)
        if not callable(function):
            raise StudentError(f"`{name}` is not defined: run the cell that defines it")

        def call(*args: Any, **kwargs: Any) -> Any:
            # The student's prints and warnings would otherwise land in the grade cell; stderr zeroes it.
            sink = io.StringIO()
            try:
                with redirect_stdout(sink), redirect_stderr(sink):
                    return function(*args, **kwargs)
            except (Exception, SystemExit) as exc:
                raise StudentError(describe_exception(name, exc)) from None

        return call


def describe_exception(name: str, exc: BaseException) -> str:
    if isinstance(exc, NotImplementedError):
        return f"{name} is not implemented yet (it raised NotImplementedError)"
    return f"{name} raised {type(exc).__name__}: {str(exc)[:300]}"
