"""The requests the trusted side sends a sandboxed process, built from a grader's or a notebook's terms: send
the instructor's modules, run a cell, call a function. Each crosses as a `Request` (see `wire`)."""

from collections.abc import Mapping
from dataclasses import dataclass, field

from autograder.grader_support.activations import ACTIVATIONS
from autograder.sandbox import wire
from autograder.sandbox.sandbox_errors import BoundaryError

# id(function) -> the name it crosses the wire as: the activations by default; a caller may add others
# (`autograder.grading.self_check.trustedcheck`: an instructor module's functions, as "module:function").
FUNCTION_NAMES: Mapping[int, str] = {id(f): name for name, f in ACTIVATIONS.items()}


@dataclass
class Request:
    """A request as it crosses: its header and buffers, and the frame they pack into (packed once when the
    same request goes to every submission: see `planned.PlannedCall`)."""

    header: dict
    buffers: list[bytes] = field(default_factory=list)
    _frame: bytes = b""

    @property
    def frame(self) -> bytes:
        # Packed only if sent: a grader's call that matches one sent ahead is only compared.
        if not self._frame:
            self._frame = wire.pack(self.header, self.buffers)
        return self._frame

    def same(self, header: dict, buffers: list[bytes]) -> bool:
        if header is self.header and buffers is self.buffers:  # recognised by `PlannedCall.matches`: this one
            return True
        return self.header == header and self.buffers == buffers



def modules_request(sources: dict[str, str]) -> Request:
    return Request({"op": "modules", "sources": sources})


def cell_request(source: str, display: bool, group: str | None, ipython: bool = False) -> Request:
    """`ipython`: `source` is a student's cell as written; the sandboxed process turns its IPython syntax into
    Python (see `syntax`), on that cell's time."""
    header = {"op": "cell", "source": source, "display": display, "group": group}
    return Request({**header, "ipython": True} if ipython else header)


def call_request(name: str, args: tuple, kwargs: dict, group: str | None,
                 functions: Mapping[int, str] = FUNCTION_NAMES) -> Request:
    """`functions`: the functions that may cross, by id, with the name each crosses as."""
    try:  # one walk, so args' and kwargs' arrays share one list of buffers
        (args_tree, kwargs_tree), buffers = wire.encode([list(args), kwargs], functions, strict=True)
    except wire.WireError as exc:
        raise BoundaryError(f"a grader passed a value that cannot cross into the sandbox: {exc}") from None
    return Request({"op": "call", "name": name, "args": args_tree, "kwargs": kwargs_tree, "group": group},
                   buffers)

