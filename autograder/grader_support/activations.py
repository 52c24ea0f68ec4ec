"""The activation functions a grader may pass as `g` or `phi`.

Functions cannot cross the sandbox boundary as objects, so they cross by name: this fixed table is the
whole vocabulary, defined here (trusted side) and rebuilt from the same names on the student side.
"""

import numpy as np


def sigmoid(z):
    # exp(-logaddexp(0, -z)) is 1 / (1 + e^-z) without overflow for any finite z.
    return np.exp(-np.logaddexp(0.0, -np.asarray(z, dtype=np.float64)))


def tanh(z):
    return np.tanh(z)


def relu(z):
    return np.maximum(z, 0.0)


def identity(z):
    return np.asarray(z, dtype=np.float64) * 1.0


def softsign(z):
    z = np.asarray(z, dtype=np.float64)
    return z / (1.0 + np.abs(z))


ACTIVATIONS = {f.__name__: f for f in (sigmoid, tanh, relu, identity, softsign)}
