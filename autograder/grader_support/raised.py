"""What a hidden check says when the student's function raised: the exception's type and the line of the
student's own code it came from, never its text.

The text of an exception is whatever the code computed, and the hidden inputs are what it computes from: a
function that raises its arguments as text would read them out of the feedback (docs, "What the feedback
reveals"). The type and the line come from the submission as written, yet the code still chooses which of
them it raises, so both are bounded: the type is named only when it is one of the common built-in or NumPy
exceptions (`SHOWN_TYPES`), and the line is quoted only from the cell that defines the function the check
called, within its first `MAX_LINE` lines. The function the line is in is read from that cell's source as
written (`enclosing_function`), never from the running code's names; the cell is its execution count
("In [12]" in the feedback page: nbgrader runs every code cell in order). Both grading paths build the
sentence here: `student` in the kernel, the sandbox's trusted side from what the sandboxed process reports
(`report`, `from_report`).
"""

import ast
import functools
import linecache
from dataclasses import dataclass
from types import TracebackType
from typing import Any

# Common in honest answers (and in the self-checks' advice); any other type, including one the code
# defines or makes up at run time, is "an exception of another type".
SHOWN_TYPES = frozenset({
    "ValueError", "TypeError", "IndexError", "KeyError", "NameError", "UnboundLocalError", "AttributeError",
    "ZeroDivisionError", "OverflowError", "FloatingPointError", "AssertionError", "RecursionError",
    "MemoryError", "ImportError", "ModuleNotFoundError", "RuntimeError", "StopIteration", "LinAlgError",
    "AxisError", "NotImplementedError",
})
MAX_LINE = 200  # a solution cell is a few dozen lines; past this, the line is not quoted
MAX_TEXT = 120  # characters of the quoted line


@dataclass(frozen=True)
class Raised:
    """An exception as a hidden check shows it: its type's name and, when quoted, its line."""

    type: str
    line: int | None = None
    text: str | None = None
    function: str | None = None  # the def the line is in, by the cell's source
    cell: int | None = None  # the cell's execution count

    def describe(self, name: str) -> str:
        if self.type == "NotImplementedError":
            return f"{name} is not implemented yet (it raised NotImplementedError)"
        kind = self.type if self.type in SHOWN_TYPES else "an exception of another type"
        return f"{name} raised {kind}{self.where()}"

    def where(self) -> str:
        """", at line 13 of `concat_state_input` (cell 12): stacked = ...", or "" when no line is quoted."""
        if not (self.line and self.text):
            return ""
        of = f" of `{self.function}`" if self.function else ""
        cell = f" (cell {self.cell})" if self.cell else ""
        return f", at line {self.line}{of or ' of the cell that defines it'}{cell}: {self.text}"


@functools.lru_cache(maxsize=256)
def _functions(source: str) -> tuple[tuple[int, int, str], ...]:
    """(first line, last line, name) of every def in a cell's source; none when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ()
    return tuple((node.lineno, node.end_lineno or node.lineno, node.name) for node in ast.walk(tree)
                 if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef))


def enclosing_function(source: str, line: int) -> str | None:
    """The innermost def of `source` (a cell as written) that holds `line`, or None."""
    around = [(first, name) for first, last, name in _functions(source) if first <= line <= last]
    return max(around)[1] if around else None


def quoted(source_line: str, line: int) -> str | None:
    """The line as quoted (spaces collapsed, cut short), or None: past `MAX_LINE`, or blank."""
    if not 1 <= line <= MAX_LINE:
        return None
    text = " ".join(source_line.split())
    return (text[:MAX_TEXT] + ("…" if len(text) > MAX_TEXT else "")) or None


def in_process(exc: BaseException, function: Any) -> Raised:
    """An exception raised in this process by `function` (a notebook's function, in the kernel): the line is
    the last one of its traceback in the cell that defines `function`, read from the source Python keeps
    of that cell (linecache: the kernel's own copy of what the student ran)."""
    defining = getattr(getattr(function, "__code__", None), "co_filename", None)
    line = _last_line_in(exc.__traceback__, defining)
    text = quoted(linecache.getline(defining, line), line) if defining and line else None
    if not (text and line):
        return Raised(_type_name(exc))
    source = "".join(linecache.getlines(defining))
    return Raised(_type_name(exc), line, text, enclosing_function(source, line), kernel_cell(defining))


def kernel_cell(filename: str) -> int | None:
    """The execution count of the cell compiled as `filename`: IPython's own record of it in a kernel
    (what its tracebacks call "Cell In[12]"), or the number in `<cell 12>` (how the sandbox names cells)."""
    number = cell_number(filename)
    if number is not None:
        return number
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    count = getattr(getattr(shell, "compile", None), "_filename_map", {}).get(filename) if shell else None
    return count if type(count) is int else None


def cell_number(filename: Any) -> int | None:
    """The number of the cell `filename` names (`<cell 7>`, as the sandbox compiles them), or None."""
    if isinstance(filename, str) and filename.startswith("<cell ") and filename.endswith(">"):
        number = filename[6:-1]
        return int(number) if number.isdigit() else None
    return None


def _last_line_in(tb: TracebackType | None, filename: str | None) -> int | None:
    line = None
    while tb is not None and filename:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def exception_text(exc: BaseException) -> str:
    """What an exception says, for matching a library's known words against (never for showing)."""
    try:
        text = str(exc)
    except BaseException:  # noqa: B036 - an exception whose text is made to fail
        return ""
    return str.__str__(text)[:300] if isinstance(text, str) else ""


def _type_name(exc: BaseException) -> str:
    try:
        name = type(exc).__name__
    except BaseException:  # noqa: B036 - a type made to fail when asked its name
        return "?"
    return name if isinstance(name, str) and type(name) is str else "?"


# The sandbox's side ---------------------------------------------------------------------------------------

def report(exc: BaseException, function: Any, cell_of: Any) -> dict[str, Any]:
    """In the sandboxed process: what the trusted side needs to describe the exception (`from_report`).
    `cell_of(filename)`: the number of the notebook cell a code filename is, or None."""
    defining = cell_of(getattr(getattr(function, "__code__", None), "co_filename", None))
    frames, tb = [], exc.__traceback__
    while tb is not None:
        cell = cell_of(tb.tb_frame.f_code.co_filename)
        if cell is not None:
            frames.append([cell, tb.tb_lineno])
        tb = tb.tb_next
    return {"type": _type_name(exc), "defined": defining, "frames": frames[-50:], "text": exception_text(exc)}


def from_report(data: Any, cells: dict[int, str]) -> Raised:
    """On the trusted side: the report of an untrusted process, checked: a type name of bounded length, a
    line of the defining cell as the grader holds its text (`cells`: the sources it sent, by number)."""
    if not isinstance(data, dict):
        return Raised("?")
    name = data.get("type")
    name = name if isinstance(name, str) and name.isidentifier() and len(name) <= 100 else "?"
    defined = data.get("defined")
    frames = data.get("frames") if isinstance(data.get("frames"), list) else []
    lines = [f[1] for f in frames if isinstance(f, list) and len(f) == 2 and f[0] == defined
             and type(f[1]) is int and type(defined) is int]
    source = cells.get(defined) if type(defined) is int else None
    if not lines or source is None:
        return Raised(name)
    line = lines[-1]
    source_lines = source.splitlines()
    text = quoted(source_lines[line - 1], line) if 1 <= line <= len(source_lines) else None
    if not text:
        return Raised(name)
    return Raised(name, line, text, enclosing_function(source, line), defined)
