"""A call's arguments in the sandbox: what they hold (to tell whether the call changed them), fresh copies of
the ones the zygote holds for its children, and those made read-only. The arguments were decoded from the
wire (`wire.decode`), so they are plain data: arrays, containers, numbers, strings and functions."""

from typing import Any

import numpy as np


def snapshot(value: Any) -> Any:
    """What an argument holds (arrays by dtype, shape and bytes; containers item by item), to tell whether
    a call changed it."""
    if isinstance(value, np.ndarray):
        return value.dtype.str, value.shape, value.tobytes()
    if isinstance(value, list):
        return [snapshot(x) for x in value]
    if isinstance(value, tuple):
        return "tuple", [snapshot(x) for x in value]
    if isinstance(value, dict):
        return "dict", [(k, snapshot(x)) for k, x in value.items()]
    return type(value), value


def snapshots(args: list, kwargs: dict) -> tuple[list, dict]:
    """Each argument's `snapshot`, positional and by name."""
    return [snapshot(a) for a in args], {k: snapshot(v) for k, v in kwargs.items()}


def fresh(value: Any) -> Any:
    """A copy as `wire.decode` would have made it: arrays copied (writeable, C order), containers rebuilt;
    numbers, strings, NumPy scalars and functions are immutable and shared."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, list):
        return [fresh(x) for x in value]
    if isinstance(value, tuple):
        return tuple(fresh(x) for x in value)
    if isinstance(value, dict):
        return {k: fresh(x) for k, x in value.items()}
    return value


def read_only(value: Any) -> None:
    """Every array in `value` made read-only, so that only a copy of it can be changed."""
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    elif isinstance(value, list | tuple):
        for item in value:
            read_only(item)
    elif isinstance(value, dict):
        for item in value.values():
            read_only(item)
