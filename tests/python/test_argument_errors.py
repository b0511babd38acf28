"""The public functions' argument errors, message for message: each names the function and the
argument, and a dtype error lists only what that argument accepts (docs/<operator>.md's tables).
TypeError for a wrong type or dtype, ValueError for a wrong value, raised before anything is
allocated. (The torch API's are in test_torch_argument_errors.py.)"""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

import normgrad

FLOATS = "expected float32, float16 or bfloat16"


def _raises(kind: type[Exception], message: str):  # noqa: ANN202 - pytest's context manager
    return pytest.raises(kind, match="^" + re.escape(message) + "$")


def _valid(func: str) -> dict:
    """A valid call's arguments: x (2, 8, 3) float32, 8 channels, 2 groups, LayerNorm over the last dim."""
    x = np.ones((2, 8, 3), np.float32)
    c = np.ones(8, np.float32)
    if func == "group_norm_backward":
        g = np.ones((2, 2), np.float32)
        return {"grad_out": x, "x": x, "mean": g, "rstd": g, "gamma": c, "N": 2, "C": 8, "HxW": 3, "group": 2,
                "output_mask": (True, True, True)}
    if func == "layer_norm_backward":
        m, w = np.ones((2, 8, 1), np.float32), np.ones(3, np.float32)
        return {"grad_out": x, "x": x, "normalized_shape": [3], "mean": m, "rstd": m, "weight": w, "bias": w,
                "output_mask": (True, True, True)}
    return {"grad_out": x, "x": x, "mean": c, "invstd": c, "weight": c, "sum_dy": c, "sum_dy_xmu": c,
            "counter": np.array([6], np.int32)}


def _call(func: str, **change: object) -> object:
    return getattr(normgrad, func)(**(_valid(func) | change))


FLOAT_ARGS = {"group_norm_backward": ["grad_out", "x", "mean", "rstd", "gamma"],
              "layer_norm_backward": ["grad_out", "x", "mean", "rstd", "weight", "bias"],
              "batch_norm_elemt_backward": ["grad_out", "x", "mean", "invstd", "weight", "sum_dy",
                                            "sum_dy_xmu"]}


@pytest.mark.parametrize(("func", "name"), [(f, n) for f, names in FLOAT_ARGS.items() for n in names])
def test_a_float64_argument_is_named_with_the_dtypes_it_accepts(func: str, name: str) -> None:
    # Before: "TypeError: normgrad: dtype float64 is not supported; expected one of float32, float16,
    # int32, int64, bool, bfloat16" (no function, no argument, dtypes the operators refuse).
    with _raises(TypeError, f"normgrad.{func}: {name} has dtype float64; {FLOATS}"):
        _call(func, **{name: _valid(func)[name].astype(np.float64)})


def test_the_batch_norm_counter_lists_its_own_dtypes() -> None:
    with _raises(TypeError, "normgrad.batch_norm_elemt_backward: counter has dtype int64; expected int32, "
                            "float16 or float32"):
        _call("batch_norm_elemt_backward", counter=np.array([6], np.int64))
    with _raises(TypeError, "normgrad.batch_norm_elemt_backward: counter has dtype bfloat16; expected int32, "
                            "float16 or float32"):
        _call("batch_norm_elemt_backward", counter=np.array([6], ml_dtypes.bfloat16))


@pytest.mark.parametrize("func", sorted(FLOAT_ARGS))
def test_big_endian_is_refused_saying_how_to_convert(func: str) -> None:
    # Refused, not converted: the kernels read native byte order, and a conversion would be a
    # full-size copy the caller did not ask for.
    with _raises(TypeError, f"normgrad.{func}: x has dtype >f4 (float32, big-endian); the kernels read "
                            f"native byte order: pass x.astype(np.float32)"):
        _call(func, x=np.ones((2, 8, 3), ">f4"))
    with _raises(TypeError, "normgrad.batch_norm_elemt_backward: counter has dtype >i4 (int32, big-endian); "
                            "the kernels read native byte order: pass counter.astype(np.int32)"):
        _call("batch_norm_elemt_backward", counter=np.array([6], ">i4"))


@pytest.mark.parametrize("func", ["group_norm_backward", "layer_norm_backward"])
def test_output_mask_elements_must_be_bools(func: str) -> None:
    # Before: "normgrad.bool_array: element 0 is 1 (int)".
    with _raises(TypeError, f"normgrad.{func}: output_mask[0] must be a bool, got 1 (int)"):
        _call(func, output_mask=(1, 1, 1))
    with _raises(TypeError, f"normgrad.{func}: output_mask[2] must be a bool, got None (NoneType)"):
        _call(func, output_mask=(True, False, None))
    with _raises(TypeError, f"normgrad.{func}: output_mask must be a sequence of bools, got True (bool)"):
        _call(func, output_mask=True)


def test_normalized_shape_elements_must_be_ints() -> None:
    # Before: "normgrad.int_array: element 0 is 16.0 (float)".
    ln = "layer_norm_backward"
    with _raises(TypeError, f"normgrad.{ln}: normalized_shape[0] must be an int, got 3.0 (float)"):
        _call(ln, normalized_shape=[3.0])
    with _raises(TypeError, f"normgrad.{ln}: normalized_shape must be a sequence of ints, got '3' (str)"):
        _call(ln, normalized_shape="3")
    assert _call(ln, normalized_shape=3)[1].shape == (3,)  # an int alone is one dim, as in torch


def test_group_norm_sizes_and_arrays_are_named() -> None:
    with _raises(TypeError, "normgrad.group_norm_backward: group must be an int, got 2.0 (float)"):
        _call("group_norm_backward", group=2.0)
    with _raises(TypeError, "normgrad.group_norm_backward: rstd must be a numpy.ndarray, got list"):
        _call("group_norm_backward", rstd=[1.0])


def test_valid_calls_still_run() -> None:
    dx, dgamma, dbeta = _call("group_norm_backward", output_mask=[np.bool_(True), False, True])
    assert dx.shape == (2, 8, 3) and dgamma is None and dbeta.shape == (8,)
    assert _call("batch_norm_elemt_backward", counter=np.array([6], np.float16)).shape == (2, 8, 3)
