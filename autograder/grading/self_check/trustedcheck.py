"""A grade cell's visible self-check, run a second time on the trusted side, so that its verdict cannot be faked.

The visible part of a grade cell (`selfcheck.check_formula_1(formula_1)`) runs in the student's process, as
in nbgrader, where the submission can patch whatever it relies on (`np.allclose`, the `selfcheck` module,
`AssertionError`, the runtime's own `exec`). When that part is nothing but calls of the instructor's module
functions on names of the notebook (and constants), the grader worker makes the same calls itself, on its own
copy of the module, each name standing for the student's function of that name, which runs in the sandbox as
the hidden graders' calls do (`SandboxedStudent`). The engine scores the cell 0 when either run fails.

The text is the instructor's: a grade cell's source is restored from the gradebook whenever a student edits
it (`sanitise.sanitise`), and a test cell's job is made only for a grade cell the gradebook knows.
"""

import ast
import contextlib
import functools
import io
import types
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from autograder.sandbox.request_builders import FUNCTION_NAMES
from autograder.sandbox.sandbox_errors import BoundaryError


@dataclass(frozen=True)
class Name:
    """An argument that is a name of the notebook: the student's function of that name."""

    id: str


@dataclass(frozen=True)
class CheckCall:
    """One statement of a visible part: `module.function(argument, ..., keyword=argument)`."""

    module: str
    function: str
    args: tuple[Any, ...]  # each a `Name` or a constant
    kwargs: tuple[tuple[str, Any], ...]

    def names(self) -> set[str]:
        return {a.id for a in (*self.args, *(v for _, v in self.kwargs)) if isinstance(a, Name)}


@dataclass(frozen=True)
class Verdict:
    passed: bool
    printed: str = ""  # what the check printed
    error: tuple[str, str] | None = None  # (exception type, message) when it failed


_NOT_PLAIN = object()


@functools.lru_cache(maxsize=256)
def parse(visible: str) -> tuple[CheckCall, ...] | None:
    """The calls a visible part makes, if it is only calls of a public function of a module (by its plain
    name) on names and constants; None for anything else (it is then judged in the sandbox only)."""
    try:
        tree = ast.parse(visible)
    except SyntaxError:
        return None
    calls = []
    for statement in tree.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and isinstance(call.func.value, ast.Name) and not call.func.attr.startswith("_")):
            return None
        args = tuple(map(_argument, call.args))
        kwargs = tuple((k.arg, _argument(k.value)) for k in call.keywords)
        if any(a is _NOT_PLAIN for a in args) or any(k is None or v is _NOT_PLAIN for k, v in kwargs):
            return None
        calls.append(CheckCall(call.func.value.id, call.func.attr, args, kwargs))
    return tuple(calls) or None


def _argument(node: ast.expr) -> Any:
    if isinstance(node, ast.Name):
        return Name(node.id)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float | str | bool | type(None)):
        return node.value
    return _NOT_PLAIN


class TrustedChecks:
    """The instructor's modules as one notebook's trusted self-checks use them. Each module is loaded afresh
    for the notebook, as nbgrader runs every notebook in its own kernel: what a submission's functions do to
    a module's arrays in place (copied back, as for the graders) stays with that notebook."""

    def __init__(self, sources: Mapping[str, str]) -> None:
        self.sources = sources
        # What the checks' calls may pass: the activations, and the modules' own functions by
        # "module:function", which the sandbox resolves in its own copy of the module.
        self.functions: dict[int, str] = dict(FUNCTION_NAMES)
        self._modules: dict[str, types.ModuleType | None] = {}

    def module(self, name: str) -> types.ModuleType | None:
        if name not in self._modules:
            module = self._modules[name] = _load(name, self.sources.get(name), frozenset(self.sources))
            if module is not None:
                self.functions.update(_crossing(module))
        return self._modules[name]

    def run(self, calls: tuple[CheckCall, ...], student: Any) -> Verdict | None:
        """Make the calls, `student.<name>` standing for each name; None when the check cannot run here (its
        module does not load, or it passes a value that cannot cross into the sandbox)."""
        printed = io.StringIO()
        stand_ins: dict[str, _StudentFunction] = {}

        def value(argument: Any) -> Any:
            if not isinstance(argument, Name):
                return argument
            if argument.id not in stand_ins:
                stand_ins[argument.id] = _StudentFunction(argument.id, getattr(student, argument.id))
            return stand_ins[argument.id]

        try:
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed), \
                    warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for call in calls:
                    module = self.module(call.module)
                    if module is None:
                        return None
                    function = getattr(module, call.function)
                    function(*map(value, call.args), **{k: value(v) for k, v in call.kwargs})
        except BoundaryError:
            return None
        except Exception as exc:  # the check failed, on whatever it raised
            return Verdict(False, printed.getvalue(), (type(exc).__name__, _message(exc)))
        return Verdict(True, printed.getvalue())


class _StudentFunction:
    """Stands for the student's function where the check expects one (it may read its `__name__`)."""

    def __init__(self, name: str, call_in_sandbox: Any) -> None:
        self.__name__ = self.__qualname__ = name
        self._call_in_sandbox = call_in_sandbox

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call_in_sandbox(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<function {self.__name__}>"


def _message(exc: BaseException) -> str:
    try:
        return str(exc)[:2000]
    except Exception:  # a message that cannot be shown is left out
        return ""


def _load(name: str, source: str | None, siblings: frozenset[str]) -> types.ModuleType | None:
    code = _compiled(name, source, siblings) if source is not None else None
    if code is None:
        return None
    module = types.ModuleType(name)
    module.__file__ = f"{name}.py"
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            exec(code, module.__dict__)
    except Exception:  # it does not load here: the sandbox's verdict stands alone
        return None
    return module


@functools.lru_cache(maxsize=64)
def _compiled(name: str, source: str, siblings: frozenset[str]) -> Any:
    """The module's code; None if it does not compile or imports another of the instructor's modules
    (which only the sandbox serves: here that name could find some other module)."""
    try:
        tree = ast.parse(source, f"{name}.py")
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        imported = ([a.name for a in node.names] if isinstance(node, ast.Import)
                    else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                    else ["."] if isinstance(node, ast.ImportFrom) else [])
        if any(n == "." or n.split(".")[0] in siblings for n in imported):
            return None
    return compile(tree, f"{name}.py", "exec")


def _crossing(module: types.ModuleType) -> dict[int, str]:
    """The functions a module defines at its top level, with the name each crosses the wire as."""
    return {id(f): f"{module.__name__}:{attribute}" for attribute, f in vars(module).items()
            if isinstance(f, types.FunctionType) and f.__module__ == module.__name__ and f.__qualname__ == attribute}
