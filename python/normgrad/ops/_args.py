"""Argument checks shared by the operators' NumPy APIs. Each raises before anything is allocated,
naming the function and the argument: TypeError for a wrong type or dtype, OverflowError for an
int64 overflow; values the C API checks (shapes, sizes) are left to it (normgrad.AclnnError)."""

from __future__ import annotations

from collections.abc import Sequence

import ml_dtypes
import numpy as np

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

# The dtypes an argument accepts, by name as NumPy prints them (docs/<operator>.md, the argument tables).
FLOATS = ("float32", "float16", "bfloat16")
BN_COUNTER = ("int32", "float16", "float32")
_BY_NAME = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "int32": np.dtype(np.int32),
            "bfloat16": np.dtype(ml_dtypes.bfloat16)}


def require_array(func: str, name: str, value: object, accepted: Sequence[str] = FLOATS) -> np.ndarray:
    """value itself if it is a NumPy array of an accepted dtype (require_dtype), else TypeError
    ("<func>: <name> must be a numpy.ndarray ..." or about its dtype)."""
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{func}: {name} must be a numpy.ndarray, got {type(value).__name__}")
    return require_dtype(func, name, value, accepted)


def _one_of(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def require_dtype(func: str, name: str, array: np.ndarray, accepted: Sequence[str]) -> np.ndarray:
    """array itself if its dtype is one of accepted (names from _BY_NAME) in native byte order, else
    TypeError naming func, name, the dtype and what name accepts.

    A non-native byte order (big-endian '>f4' here) is refused, not converted: the kernels read
    native order, and a conversion would be a full-size copy made behind the caller's back (the
    memory of a call is bounded by its arrays' sizes, docs/memory.md); the message says how to convert.
    """
    dtype = array.dtype
    native = dtype.newbyteorder("=")
    if native in (_BY_NAME[n] for n in accepted) and not dtype.isnative:
        order = "big" if dtype.byteorder == ">" else "little"
        raise TypeError(f"{func}: {name} has dtype {dtype.str} ({native}, {order}-endian); the kernels read "
                        f"native byte order: pass {name}.astype(np.{native})")
    if dtype not in (_BY_NAME[n] for n in accepted):
        raise TypeError(f"{func}: {name} has dtype {dtype}; expected {_one_of(accepted)}")
    return array


def require_int(func: str, name: str, value: object) -> int:
    """value as a Python int if it is an integer (bool excluded) that fits in int64, else TypeError
    (not an int) or OverflowError (out of range; the C API would see only its low 64 bits) naming it."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise TypeError(f"{func}: {name} must be an int, got {value!r} ({type(value).__name__})")
    if not INT64_MIN <= int(value) <= INT64_MAX:
        raise OverflowError(f"{func}: {name} = {int(value)} does not fit in int64")
    return int(value)


def require_ints(func: str, name: str, values: object) -> list[int]:
    """values as a list of Python ints (an int alone is a one-element list), checked element by
    element as require_int does, the element named name[i]."""
    if isinstance(values, int | np.integer) and not isinstance(values, bool | np.bool_):
        values = [values]
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | np.ndarray):
        raise TypeError(f"{func}: {name} must be a sequence of ints, got {values!r} "
                        f"({type(values).__name__})")
    return [require_int(func, f"{name}[{i}]", v) for i, v in enumerate(values)]


def require_bools(func: str, name: str, values: object) -> list[bool]:
    """values as a list of Python bools, else TypeError naming name (not a sequence) or name[i] (an
    element that is not a Python or NumPy bool: 1 is refused, as aclBoolArray holds bools)."""
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | np.ndarray):
        raise TypeError(f"{func}: {name} must be a sequence of bools, got {values!r} "
                        f"({type(values).__name__})")
    for i, v in enumerate(values):
        if not isinstance(v, bool | np.bool_):
            raise TypeError(f"{func}: {name}[{i}] must be a bool, got {v!r} ({type(v).__name__})")
    return [bool(v) for v in values]
