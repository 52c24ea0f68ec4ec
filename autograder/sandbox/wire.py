"""The wire format between the trusted grader and a sandboxed submission: plain data, never pickle.

A message is one frame: an 8-byte length, then a 4-byte header length, a JSON header, and the raw bytes
of any NumPy arrays the header refers to. Values are JSON with a few tagged objects:

    {"__nd__": i, "dtype": "<f8", "shape": [3, 1]}   an array whose bytes are buffer i
    {"__np__": i, "dtype": "<i8"}                    a NumPy scalar (a 0-d array read back as a scalar)
    {"__tuple__": [...]}   {"__dict__": [[key, value], ...]}   {"__fn__": "tanh"}   {"__float__": "nan"}
    {"__opaque__": "MyArray", "text": "..."}         something that is not plain data, described only

Decoding trusts nothing: dtypes come from a short allow-list (numbers, bools, fixed-width text), sizes are
checked against the bytes received, nesting is bounded, and an unknown tag is an error. So whatever a
submission sends, the trusted side gets plain lists, tuples, dicts, numbers, strings and base-class
ndarrays, or a `WireError`.
"""

import json
import math
import re
import socket
import struct
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

MAX_FRAME = 64 * 1024 * 1024  # an answer bigger than this is not an answer to these exercises
MAX_DEPTH = 40
MAX_ITEMS = 100_000  # values in one message (an array is one): no answer needs more, and walking more takes long
_DTYPE = re.compile(r"^[<>|=]?([biufc]\d{1,2}|b1|\?|U\d{1,6}|S\d{1,6})$")
_PREFIX = struct.Struct("<QI")
_FIRST_READ = 1 << 16
_ENCODER = json.JSONEncoder(separators=(",", ":"))  # json.dumps builds one per call when given separators
# Allowed dtypes met so far, by their text: checked and built once, not at every array.
_DTYPES: dict[str, np.dtype] = {}


class WireError(Exception):
    """A frame or value that does not follow the format (truncated, oversized, or not plain data). `reason`: for a
    value that is not plain data, what it was, as a code the trusted side turns into words (`replies`): an array's
    "dtype:<numpy's kind letter>", else "type"."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason


class TooBig(WireError):
    """A frame, or all frames together, over the reader's limit."""


class Opaque:
    """Stands for a value the other side could not send as plain data; only its description crossed."""

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name, self.text = type_name[:80], text[:200]

    def __repr__(self) -> str:
        return f"<{self.type_name} (not plain data): {self.text}>"


def encode(value: Any, functions: Mapping[int, str] | None = None,
           strict: bool = False) -> tuple[dict | list | Any, list[bytes]]:
    """(JSON-able tree, buffers). `functions` maps id(function) to the name it crosses as. `strict`: a
    value that is not plain data raises WireError instead of crossing as a description. More than
    MAX_ITEMS values raise WireError in any case (a list of a list repeated can be endless to walk)."""
    buffers: list[bytes] = []
    count = 0

    def walk(v: Any, depth: int) -> Any:
        nonlocal count
        count += 1
        if count > MAX_ITEMS:
            raise WireError(f"more than {MAX_ITEMS} values")
        if depth > MAX_DEPTH:
            return opaque("nesting", "nested too deeply")
        if v is None or isinstance(v, bool | str):
            return v
        if isinstance(v, int):  # exact ints only (bool handled above)
            return int(v)
        if isinstance(v, float):
            return float(v) if math.isfinite(v) else {"__float__": repr(float(v))}
        if isinstance(v, np.ndarray | np.generic):
            return _encode_numpy(v, buffers) or opaque(f"ndarray[{v.dtype}]",
                                                       f"an array of dtype {v.dtype}, shape {np.shape(v)}",
                                                       f"dtype:{np.asarray(v).dtype.kind}")
        if isinstance(v, tuple):
            return {"__tuple__": [walk(x, depth + 1) for x in v]}
        if isinstance(v, list):
            return [walk(x, depth + 1) for x in v]
        if isinstance(v, dict) and all(isinstance(k, str) for k in v):
            return {"__dict__": [[k, walk(x, depth + 1)] for k, x in v.items()]}
        if functions is not None and callable(v) and id(v) in functions:
            return {"__fn__": functions[id(v)]}
        return opaque(type(v).__name__, _describe(v))

    def opaque(type_name: str, text: str, reason: str = "type") -> dict:
        if strict:
            raise WireError(f"not plain data: {type_name}: {text[:200]}", reason)
        return {"__opaque__": type_name, "text": text}

    return walk(value, 0), buffers


def _encode_numpy(v: Any, buffers: list[bytes]) -> dict | None:
    """The array's tag (its bytes appended to `buffers`), or None for a dtype that does not cross."""
    # np.asarray on a subclass instance gives a base-class view: only the numbers cross, not the class.
    if type(v) is np.ndarray:
        array = v
    else:
        array = np.asarray(v).view(np.ndarray) if isinstance(v, np.ndarray) else np.asarray(v)
    dtype = array.dtype.str
    if _allowed_dtype(dtype) is None:
        return None
    buffers.append(array.tobytes())  # C order, whatever the array's layout
    if isinstance(v, np.generic):
        return {"__np__": len(buffers) - 1, "dtype": dtype}
    return {"__nd__": len(buffers) - 1, "dtype": dtype, "shape": list(array.shape)}


def _allowed_dtype(text: str) -> np.dtype | None:
    """The dtype named by `text` if it may cross, else None; checked and built once per text (up to 256)."""
    dtype = _DTYPES.get(text)
    if dtype is None:
        if not _DTYPE.match(text):
            return None
        dtype = np.dtype(text)
        if len(_DTYPES) < 256:
            _DTYPES[text] = dtype
    return dtype


def _describe(v: Any) -> str:
    try:
        return repr(v)[:200]
    except Exception:  # a repr that raises is the submission's problem, not ours
        return "(no description)"


def decode(tree: Any, buffers: list[bytes], functions: Callable[[str], Any] | None = None) -> Any:
    """Rebuild a value from `encode`'s output; raise WireError on anything unexpected."""

    def walk(v: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise WireError("nested too deeply")
        if v is None or isinstance(v, bool | int | float | str):
            return v
        if isinstance(v, list):
            return [walk(x, depth + 1) for x in v]
        if not isinstance(v, dict) or len(v) == 0:
            raise WireError(f"unexpected {type(v).__name__}")
        if "__nd__" in v or "__np__" in v:
            return _decode_numpy(v, buffers)
        if "__tuple__" in v:
            return tuple(walk(x, depth + 1) for x in _list(v["__tuple__"]))
        if "__dict__" in v:
            items = _list(v["__dict__"])
            if not all(isinstance(i, list) and len(i) == 2 and isinstance(i[0], str) for i in items):
                raise WireError("malformed dict")
            return {k: walk(x, depth + 1) for k, x in items}
        if "__float__" in v:
            if v["__float__"] not in ("nan", "inf", "-inf"):
                raise WireError("malformed float")
            return float(v["__float__"])
        if "__fn__" in v:
            if functions is None or not isinstance(v["__fn__"], str):
                raise WireError("functions cannot cross in this direction")
            return functions(v["__fn__"])
        if "__opaque__" in v:
            return Opaque(str(v["__opaque__"]), str(v.get("text", "")))
        raise WireError("unknown tag")

    return walk(tree, 0)


def _list(v: Any) -> list:
    if not isinstance(v, list):
        raise WireError("malformed container")
    return v


def _decode_numpy(v: dict, buffers: list[bytes]) -> Any:
    index = v.get("__nd__", v.get("__np__"))
    dtype_text = v.get("dtype")
    if not isinstance(index, int) or not 0 <= index < len(buffers) or not isinstance(dtype_text, str):
        raise WireError("malformed array")
    dtype = _allowed_dtype(dtype_text)
    if dtype is None:
        raise WireError(f"dtype {dtype_text!r} is not allowed")
    if "__np__" in v:
        shape: tuple[int, ...] = ()
    else:
        raw_shape = v.get("shape")
        if not isinstance(raw_shape, list) or len(raw_shape) > 32:
            raise WireError("malformed shape")
        for n in raw_shape:
            if type(n) is not int or n < 0:  # JSON gives exact ints; a bool is not a size
                raise WireError("malformed shape")
        shape = tuple(raw_shape)
    data = buffers[index]
    if len(data) != math.prod(shape) * dtype.itemsize:
        raise WireError("array size does not match its bytes")
    array = np.frombuffer(data, dtype=dtype).reshape(shape).copy()  # writeable, owns its memory
    return array[()] if "__np__" in v else array


# Frames ---------------------------------------------------------------------------------------------


def pack(header: dict, buffers: list[bytes] = ()) -> bytes:
    header = {**header, "buffers": [len(b) for b in buffers]}
    head = _ENCODER.encode(header).encode()
    body_len = 4 + len(head) + sum(len(b) for b in buffers)
    return b"".join([_PREFIX.pack(body_len, len(head)), head, *buffers])


class Reader:
    """Frames from a stream socket, in order. A side may send several frames before the other reads them
    (the grader sends a notebook's requests at once; the submission answers them one after another), so
    what arrives past one frame is kept for the next.

    `recv` reads until a whole frame is in; `feed` reads once, for a caller that waits with `select`.
    `max_total`: the bytes it accepts from this peer in all (TooBig past it), None for no limit."""

    def __init__(self, sock: socket.socket, max_frame: int = MAX_FRAME, max_total: int | None = None) -> None:
        self.sock, self.max_frame, self.max_total = sock, max_frame, max_total
        self.buffer = bytearray()
        self.received = 0

    def started(self) -> bool:
        return bool(self.buffer)

    def complete(self) -> bool:
        """Whether a whole frame is buffered; WireError as soon as its prefix says it is malformed."""
        return self._needed() == 0

    def _needed(self) -> int:
        if len(self.buffer) < _PREFIX.size:
            return _PREFIX.size - len(self.buffer)
        body_len, head_len = _PREFIX.unpack_from(self.buffer)
        if body_len > self.max_frame:
            raise TooBig(f"a message of {body_len} bytes is over the limit of {self.max_frame}")
        if head_len + 4 > body_len:
            raise WireError("malformed frame")
        return max(_PREFIX.size - 4 + body_len - len(self.buffer), 0)

    def feed(self, flags: int = 0) -> None:
        chunk = self.sock.recv(min(max(self._needed(), _FIRST_READ), 1 << 20), flags)
        if not chunk:
            raise EOFError("the other side closed the connection")
        self.received += len(chunk)
        if self.max_total is not None and self.received > self.max_total:
            raise TooBig(f"more than {self.max_total} bytes in all")
        self.buffer += chunk

    def recv(self) -> tuple[dict, list[bytes]]:
        """The next frame; EOFError when the peer is gone, WireError when it is malformed or too big."""
        while not self.complete():
            self.feed()
        return self.take()

    def take(self) -> tuple[dict, list[bytes]]:
        body_len, head_len = _PREFIX.unpack_from(self.buffer)
        with memoryview(self.buffer) as view:  # one copy, not a bytearray slice copied again
            body = bytes(view[_PREFIX.size:_PREFIX.size - 4 + body_len])
        del self.buffer[:_PREFIX.size - 4 + body_len]
        return _parse(body, head_len)


def unpack(frame: bytes) -> tuple[dict, list[bytes]]:
    """A whole frame, from `pack`, back to its header and buffers."""
    if len(frame) < _PREFIX.size:
        raise WireError("truncated frame")
    body_len, head_len = _PREFIX.unpack_from(frame)
    if head_len + 4 > body_len or len(frame) != _PREFIX.size - 4 + body_len:
        raise WireError("malformed frame")
    return _parse(frame[_PREFIX.size:], head_len)


def _parse(body: bytes, head_len: int) -> tuple[dict, list[bytes]]:
    try:
        header = json.loads(body[:head_len].decode())  # UTF-8, as `pack` writes it (a ValueError if not)
    except (ValueError, RecursionError) as exc:
        raise WireError(f"unreadable header: {str(exc)[:80]}") from None
    sizes = header.get("buffers") if isinstance(header, dict) else None
    if not isinstance(sizes, list) or not all(isinstance(n, int) and n >= 0 for n in sizes):
        raise WireError("malformed header")
    if head_len + sum(sizes) != len(body):
        raise WireError("buffer sizes do not add up")
    buffers, offset = [], head_len
    for n in sizes:
        buffers.append(body[offset:offset + n])
        offset += n
    return header, buffers
