"""Random inputs from a fixed seed: the same for every submission, never the worked example."""

import functools
import zlib
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import numpy as np

SEED = 20261122

Made = TypeVar("Made")


def rng_for(label: str) -> np.random.Generator:
    """A generator seeded by the case's label, so adding a case never changes another's data."""
    return np.random.default_rng([SEED, zlib.crc32(label.encode())])


def normal(rng: np.random.Generator, *shape: int, scale: float = 1.0) -> np.ndarray:
    return rng.normal(0.0, scale, size=shape)


def integers(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.integers(-5, 6, size=shape)


# The ids of the arrays `fixed` keeps for the whole process: as they are never freed, an id is never
# reused, and it names the same read-only content for as long as the process lives.
SHARED_IDS: set[int] = set()


def fixed(make: Callable[..., Made]) -> Callable[..., Made]:
    """`make` (of hashable arguments) run once per process: a case's inputs are the same for every submission.

    The arrays are shared between calls and read-only, so an accidental in-place change raises instead of
    corrupting every later submission's data; each call gets its own lists and dicts around them. Students
    never see these arrays: graders hand them fresh copies.
    """

    def make_shared(*args: Any, **kwargs: Any) -> Made:
        value = read_only(make(*args, **kwargs))
        SHARED_IDS.update(map(id, _arrays(value)))
        return value

    made = functools.cache(make_shared)

    @functools.wraps(make)
    def shared(*args: Any, **kwargs: Any) -> Made:
        return _containers(made(*args, **kwargs))

    return shared


def read_only(value: Any) -> Any:
    """`value` with every array in it made read-only (in place), for sharing between submissions."""
    for array in _arrays(value):
        array.setflags(write=False)
    return value


def _arrays(value: Any) -> Iterator[np.ndarray]:
    """The arrays in `value`, also inside lists, tuples and dicts."""
    if isinstance(value, np.ndarray):
        yield value
    elif isinstance(value, list | tuple | dict):
        for item in value.values() if isinstance(value, dict) else value:
            yield from _arrays(item)


def _containers(value: Any) -> Any:
    """New lists, tuples and dicts holding the same (read-only) arrays."""
    if isinstance(value, dict):
        return {key: item if isinstance(item, np.ndarray) else _containers(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(item if isinstance(item, np.ndarray) else _containers(item) for item in value)
    return value


@fixed
def normal_for(label: str, *shape: int, scale: float = 1.0) -> np.ndarray:
    """One array drawn from the generator of `label` (shared and read-only, see `fixed`)."""
    return normal(rng_for(label), *shape, scale=scale)
