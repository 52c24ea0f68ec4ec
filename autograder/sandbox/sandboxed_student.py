"""The student fixture of `autograder grade`: the graders' calls, made in the submission's sandboxed process,
with the arguments it changed copied back."""

import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from autograder.sandbox.request_builders import FUNCTION_NAMES
from autograder.sandbox.submission_process import Sandbox


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
