"""What the zygote prepares once, before forking, for every child to inherit: the instructor's code compiled
(`warm`), the modules the instructor's notebook imports, and the planned calls' arguments decoded (`preload`).

Only instructor code and what the grader sends every child anyway: never a submission's own code (compiling
happens in the zygote, which must not be exposed to whatever a submission's text does to the compiler), and
never an answer.
"""

import ast
import base64
import importlib
import os
import sys
from typing import Any

from autograder.grader_support.activations import ACTIVATIONS
from autograder.sandbox import wire
from autograder.sandbox.call_arguments import read_only, snapshots
from autograder.sandbox.cell_output import Discard

# Instructor code compiled in the zygote, keyed by what compiling depends on; a child finds it here instead
# of compiling it again.
COMPILED: dict[tuple, Any] = {}
WARM_ERRORS: list[str] = []  # what the zygote could not import (a child imports it itself)
MAX_COMPILED = 2000

# The planned calls' arguments (see `autograder.grading.self_check.callplan`): an announced planned call then arrives as
# {"op": "call", "plan": key} and runs on fresh copies of these.
PLANNED: dict[int, tuple[str, list, dict, tuple[list, dict]]] = {}


def preload(calls: list[Any]) -> None:
    """Decode each [key, base64 of the call's frame] for the children to inherit. The arrays are made
    read-only, so that a child's copies are the only arrays its code can change."""
    for key, frame in calls:
        try:
            header, buffers = wire.unpack(base64.b64decode(frame))
            args = wire.decode(header["args"], buffers, ACTIVATIONS.__getitem__)
            kwargs = wire.decode(header["kwargs"], buffers, ACTIVATIONS.__getitem__)
            if not isinstance(header["name"], str) or not isinstance(args, list) or not isinstance(kwargs, dict):
                continue
        except Exception:  # noqa: S112 - a child asked for it says so, and the grader sends it in full
            continue
        read_only(args)
        read_only(kwargs)
        PLANNED[key] = header["name"], args, kwargs, snapshots(args, kwargs)


def compile_cell(source: str, display: bool, name: str) -> tuple[Any, Any]:
    """The cell's code, and (when `display` and it ends with an expression) that expression's, whose value
    the cell shows, as a kernel does."""
    tree = ast.parse(source, name)
    last = None
    if display and tree.body and isinstance(tree.body[-1], ast.Expr) and not source.rstrip().endswith(";"):
        last = compile(ast.Expression(tree.body.pop().value), name, "eval")
    return compile(tree, name, "exec"), last


def compiled_module(source: str, filename: str) -> Any:
    """An instructor's module's code: compiled by `warm` already, or now."""
    return COMPILED.get((source, "module", filename)) or compile(source, filename, "exec")


def warm(request: dict[str, Any]) -> None:
    """Compile the instructor's cells and modules, and import what the instructor's notebook imports (e.g.
    matplotlib, whose first import builds a font list: a second per child otherwise)."""
    if len(COMPILED) > MAX_COMPILED:
        COMPILED.clear()
    for source, display, name in request.get("cells", []):
        try:
            COMPILED[(source, display, name)] = compile_cell(source, display, name)
        except Exception:  # noqa: S112 - a cell that does not compile fails in the child, as it should
            continue
    for module, source in request.get("modules", {}).items():
        try:
            COMPILED[(source, "module", f"{module}.py")] = compile(source, f"{module}.py", "exec")
        except Exception:  # noqa: S112
            continue
    saved, saved_fds = (sys.stdout, sys.stderr), (os.dup(1), os.dup(2))
    # What importing prints (a warning; C libraries such as fontconfig write to fd 2 directly) is not the
    # grader's output.
    sys.stdout = sys.stderr = Discard(None, "discard")
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)
    try:
        for name in request.get("imports", []):
            if name.split(".")[0] == "autograder":
                continue  # grader code never enters the sandbox, whoever asks
            before = set(sys.modules)
            try:
                importlib.import_module(name)
            except BaseException as exc:  # noqa: B036 - not importable here: each child tries for itself
                WARM_ERRORS.append(f"{name}: {type(exc).__name__}: {exc}")
                for partial in set(sys.modules) - before:  # a half-imported module must not be inherited
                    del sys.modules[partial]
    finally:
        sys.stdout, sys.stderr = saved
        for fd, copy in zip((1, 2), saved_fds, strict=True):
            os.dup2(copy, fd)
            os.close(copy)
