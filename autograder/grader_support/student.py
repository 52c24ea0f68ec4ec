"""The `student` fixture: a submission's functions, seen only through calls.

Graders call `student.<function>(...)` and never reach past it, so the same graders judge code run in this
process (a notebook's kernel, an instructor's pytest) or in a sandboxed process (`autograder grade`).
"""

import io
from collections.abc import Callable, Mapping
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

from autograder.grader_support.raised import exception_text, in_process


class StudentError(Exception):
    """The submission's code raised, is missing, or was stopped; the message is for the student, and holds
    nothing the code computed (`autograder.grader_support.raised`). `text`: what the exception said, kept only for a
    grader to recognise a known mistake by a library's words (`judge.student_answer`'s `errors`), never shown."""

    def __init__(self, message: str, text: str = "") -> None:
        super().__init__(message)
        self.text = text


def not_defined(name: str) -> str:
    return (f"`{name}` is not defined when graded: run the cell that defines it (if it raised when graded, "
            "run your notebook from the top to see why)")


class InProcessStudent:
    """Functions defined in a namespace of this process (a kernel's `globals()`), called here: what the
    notebook's kernel and an instructor's pytest grade. `autograder grade` hands the graders a
    `sandbox.sandboxed_student.SandboxedStudent` instead, whose functions run in the submission's sandboxed process."""

    def __init__(self, namespace: Mapping[str, Any]) -> None:
        self._namespace = namespace

    def __getattr__(self, name: str) -> Callable[..., Any]:
        function = self._namespace.get(name)
        if not callable(function):
            raise StudentError(not_defined(name))

        def call_in_process(*args: Any, **kwargs: Any) -> Any:
            # The student's prints and warnings would otherwise land in the grade cell; stderr zeroes it.
            sink = io.StringIO()
            try:
                with redirect_stdout(sink), redirect_stderr(sink):
                    return function(*args, **kwargs)
            except (Exception, SystemExit) as exc:
                # Its type and the line it came from, not its text: the text is what the code computed.
                raise StudentError(in_process(exc, function).describe(name), exception_text(exc)) from None

        return call_in_process
