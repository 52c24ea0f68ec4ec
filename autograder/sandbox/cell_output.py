"""What student code prints and raises, as a kernel shows it: streams standing in for sys.stdout and
sys.stderr, and an exception turned into an error output."""

import traceback
from collections.abc import Callable
from typing import Any

MAX_TRACEBACK_LINES = 60


class Output:
    """A stand-in for sys.stdout / sys.stderr that hands its text to `capture` (which keeps it up to a
    budget shared by both streams)."""

    def __init__(self, capture: Callable[[str, str], None] | None, name: str) -> None:
        self._capture, self.name = capture, name

    def write(self, text: Any) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._capture(self.name, text)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:
        return "utf-8"


class Discard(Output):
    def write(self, text: Any) -> int:
        return len(text) if isinstance(text, str) else 0


def error_output(exc: BaseException) -> dict[str, Any]:
    try:
        # An exception that renders itself (IPython's `_render_traceback_`, as the self-checks' do) is shown
        # as a kernel shows it: its own lines, no traceback.
        render = getattr(type(exc), "_render_traceback_", None)
        lines = [str(line) for line in render(exc)] if render else traceback.format_exception(exc)
        evalue = str(exc)
    except Exception:  # an exception whose str() or rendering raises: report its type only
        lines, evalue = [], ""
    # Drop the runtime's own frames: the student sees their cell's lines, as in a kernel.
    lines = [line for line in lines if "autograder/sandbox" not in line]
    if len(lines) > MAX_TRACEBACK_LINES:
        lines = lines[:10] + ["...\n"] + lines[-(MAX_TRACEBACK_LINES - 11):]
    return {"ename": type(exc).__name__, "evalue": evalue[:2000], "traceback": [line[:2000] for line in lines]}
