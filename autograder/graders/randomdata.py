"""Random inputs from a fixed seed: the same for every submission, never the worked example."""

import zlib

import numpy as np

SEED = 20261122


def rng_for(label: str) -> np.random.Generator:
    """A generator seeded by the case's label, so adding a case never changes another's data."""
    return np.random.default_rng([SEED, zlib.crc32(label.encode())])


def normal(rng: np.random.Generator, *shape: int, scale: float = 1.0) -> np.ndarray:
    return rng.normal(0.0, scale, size=shape)


def integers(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.integers(-5, 6, size=shape)
