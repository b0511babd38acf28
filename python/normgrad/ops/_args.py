"""Argument checks shared by the operators' NumPy APIs: a TypeError naming the function and argument."""

from __future__ import annotations

import numpy as np


def require_array(func: str, name: str, value: object) -> np.ndarray:
    """value itself if it is a NumPy array, else TypeError("<func>: <name> must be a numpy.ndarray ...")."""
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{func}: {name} must be a numpy.ndarray, got {type(value).__name__}")
    return value


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def require_int(func: str, name: str, value: object) -> int:
    """value as a Python int if it is an integer (bool excluded) that fits in int64, else TypeError
    (not an int) or OverflowError (out of range; the C API would see only its low 64 bits) naming it."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise TypeError(f"{func}: {name} must be an int, got {value!r} ({type(value).__name__})")
    if not INT64_MIN <= int(value) <= INT64_MAX:
        raise OverflowError(f"{func}: {name} = {int(value)} does not fit in int64")
    return int(value)
