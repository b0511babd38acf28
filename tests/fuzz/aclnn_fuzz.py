"""Fuzzer of the three aclnn entry points, driven by hypothesis over the C API through ctypes.

Each example draws an operator (aclnnGroupNormBackward, aclnnLayerNormBackward,
aclnnBatchNormElemtBackward), a SoC profile, a dtype, a small shape (sizes 0 included), a layout per
tensor (contiguous, padded strides with an offset, permuted, a zero-stride broadcast for gradOut),
an output mask, and at most one hostile change: a null argument, a wrong dtype, a mask of the wrong
length, scalars or view sizes near 2^31 / 2^63 (zero-stride views over one element), negative or
self-overlapping strides, a short / null / oversized workspace, an executor run twice or given to
another API. Every output lives inside a larger device storage whose other bytes (the guard) hold a
pattern; every input's storage is checked unchanged.

Property (check_example): GetWorkspaceSize and the execute phase return 0, 161001 or 161002, an
error with a message that starts with the API's name; an unchanged valid example succeeds and its
outputs match the float64 golden within the operator's `normgrad check` tolerance; masked-out
outputs, guard bytes and inputs are untouched; a second run of an executor is 161002. A crash, a
hang or a sanitizer report stops the process: the example being run is then in LAST_INPUT.
Workspace is allocated only up to MAX_WORKSPACE (64 MiB), the fuzzer's stated bound; a larger
request from an accepted hostile example is recorded and not run.

    python3 tests/fuzz/aclnn_fuzz.py --seconds 120 --seed 13     # CI (./build.sh --sanitize)
    python3 tests/fuzz/aclnn_fuzz.py --seconds 3600 --seed 7     # longer, by hand
"""

from __future__ import annotations

import argparse
import ctypes
import math
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from normgrad import _native
from normgrad.cases import batch_norm_elemt_grad as bn_cases
from normgrad.cases import group_norm_grad as gn_cases
from normgrad.cases import layer_norm_grad as ln_cases
from normgrad.golden.batch_norm_elemt_grad import batch_norm_elemt_backward as bn_golden
from normgrad.golden.batch_norm_elemt_grad import batch_stats
from normgrad.golden.group_norm_grad import group_norm_backward as gn_golden
from normgrad.golden.group_norm_grad import group_norm_forward_stats
from normgrad.golden.layer_norm_grad import forward_stats as ln_stats
from normgrad.golden.layer_norm_grad import layer_norm_backward as ln_golden

NULLPTR, INVALID = 161001, 161002
MAX_WORKSPACE = 64 << 20
GUARD = 0xA5  # every guard byte
LAST_INPUT = Path(os.environ.get("NORMGRAD_FUZZ_LAST", "build/fuzz/last_input.txt"))
SOCS = ("ascend910b", "ascend910_93", "ascend910", "ascend310p", "ascend950")
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16),
          "bfloat16": np.dtype(ml_dtypes.bfloat16)}
HUGE = [2**31 - 1, 2**31, 2**31 + 1, 2**32, 2**62, 2**63 - 1, 9 + 2**60]
SIZES = st.sampled_from([0, 1, 2, 3, 5, 8, 16, 17, 33])
MUTATIONS = ("none", "none", "none", "null", "dtype", "mask_length", "huge_scalar", "huge_view",
             "negative_stride", "overlapping_output", "workspace_short", "workspace_null",
             "workspace_larger", "run_twice", "other_api")


class FuzzFailure(AssertionError):
    """The property does not hold for an example."""


# ---- tensors with layouts and guards -------------------------------------------------------------


@dataclass
class Placed:
    """A device tensor over a guarded storage: logical values at storage[idx], GUARD elsewhere."""

    name: str
    logical: np.ndarray
    tensor: _native.DeviceTensor | None
    storage: np.ndarray  # host copy as uploaded
    idx: np.ndarray  # storage index of each logical element, logical shape


def _row_major(shape: tuple[int, ...]) -> list[int]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return strides[::-1]


def layout_strides(draw: Any, shape: tuple[int, ...], kind: str) -> tuple[list[int], int]:
    """(element strides, offset) of a layout kind for shape."""
    if kind == "contiguous" or not shape:
        return _row_major(shape), 0
    if kind == "padded":
        pads = [draw(st.integers(0, 2)) for _ in shape]
        padded = tuple(n + p for n, p in zip(shape, pads, strict=True))
        return _row_major(padded), draw(st.integers(0, 3))
    if kind == "permuted":
        perm = draw(st.permutations(range(len(shape))))
        inner = _row_major(tuple(shape[p] for p in perm))
        strides = [0] * len(shape)
        for pos, dim in enumerate(perm):
            strides[dim] = inner[pos]
        return strides, draw(st.integers(0, 2))
    raise ValueError(kind)


def place(name: str, logical: np.ndarray, strides: list[int], offset: int, tail: int = 3) -> Placed:
    """Uploads logical with the given strides/offset into a storage with guard bytes around it."""
    shape = logical.shape
    if logical.size:
        grids = np.indices(shape, dtype=np.int64) if shape else np.zeros((0,), np.int64)
        idx = offset + sum((g * s for g, s in zip(grids, strides, strict=True)), np.zeros(shape, np.int64))
        span = int(idx.max()) + 1
    else:
        idx = np.zeros(shape, np.int64)
        span = offset
    storage = np.empty(span + tail, logical.dtype)
    storage.view(np.uint8)[:] = GUARD
    if logical.size:
        storage[idx] = logical
    tensor = _native.DeviceTensor(shape, logical.dtype, strides, offset, (storage.size,),
                                  host_storage=storage)
    return Placed(name, logical, tensor, storage, idx)


def read_back(p: Placed) -> np.ndarray:
    assert p.tensor is not None
    return p.tensor.storage().reshape(-1)


# ---- examples ------------------------------------------------------------------------------------


@dataclass
class Example:
    op: str
    soc: str
    dtype: str
    mutation: str
    detail: dict[str, Any] = field(default_factory=dict)
    valid: bool = True  # unchanged, supported: must succeed and match the golden

    def describe(self) -> str:
        return f"{self.op} on {self.soc} {self.dtype} mutation={self.mutation} {self.detail}"


@st.composite
def examples(draw: Any) -> Example:
    op = draw(st.sampled_from(("group_norm", "layer_norm", "batch_norm_elemt")))
    soc = draw(st.sampled_from(SOCS))
    dtype = draw(st.sampled_from(tuple(DTYPES)))
    mutation = draw(st.sampled_from(MUTATIONS))
    ex = Example(op, soc, dtype, mutation)
    d = ex.detail
    if op == "group_norm":
        d["n"], d["hw"] = draw(SIZES), draw(SIZES)
        d["group"] = draw(st.integers(1, 3))
        d["c"] = d["group"] * draw(st.integers(1, 3))
        d["gamma"] = draw(st.booleans())
        d["extra_dims"] = draw(st.booleans())  # x as [N, C, HxW] or [N, C, h, w]
    elif op == "layer_norm":
        d["lead"] = draw(st.lists(SIZES, min_size=0, max_size=2))
        d["norm"] = draw(st.lists(SIZES.filter(lambda n: n > 0), min_size=1, max_size=2))
        d["weight"], d["bias"] = draw(st.booleans()), draw(st.booleans())
        d["stat_fp32"] = draw(st.booleans())
    else:
        d["shape"] = [draw(SIZES), draw(st.integers(1, 9))] + draw(st.lists(SIZES, min_size=0, max_size=2))
        d["weight"] = draw(st.booleans())
        d["counter_dtype"] = draw(st.sampled_from(("int32", "float32", "float16")))
        d["ranks"] = draw(st.integers(1, 3))
    d["mask"] = [draw(st.booleans()) for _ in range(3)] if op != "batch_norm_elemt" else [True, False, False]
    d["layouts"] = {}
    for name in ("dy", "x", "mean", "rstd", "dx", "dgamma", "dbeta", "gamma"):
        d["layouts"][name] = draw(st.sampled_from(("contiguous", "contiguous", "padded", "permuted")))
    d["broadcast_dy"] = draw(st.integers(-1, 3))  # >= 0: gradOut has stride 0 on that dim
    d["seed"] = draw(st.integers(0, 2**16))
    d["draw"] = draw(st.data())
    if mutation == "null":
        d["null"] = draw(st.integers(0, 20))
    elif mutation == "dtype":
        d["bad_dtype_at"] = draw(st.integers(0, 4))
        d["bad_dtype"] = draw(st.sampled_from(("int32", "int64", "bool")))
    elif mutation == "mask_length":
        d["mask"] = [True] * draw(st.sampled_from((0, 1, 2, 4)))
    elif mutation == "huge_scalar":
        d["huge_at"] = draw(st.integers(0, 3))
        d["huge"] = draw(st.sampled_from(HUGE + [-1, -(2**63)]))
    elif mutation == "huge_view":
        d["huge_dims"] = draw(st.lists(st.sampled_from(HUGE + [3, 1]), min_size=1, max_size=4))
        d["huge_at"] = draw(st.integers(0, 1))
    elif mutation == "overlapping_output":
        d["overlap_stride"] = draw(st.integers(0, 1))
    # The workspace and executor changes keep valid arguments: after the refused run, the proper
    # run must succeed and match the golden.
    ex.valid = mutation in ("none", "workspace_larger", "run_twice", "workspace_short", "workspace_null",
                            "other_api")
    return ex


def dtype_served(ex: Example) -> bool:
    if ex.op == "batch_norm_elemt" and ex.soc == "ascend910":
        return False
    if ex.op != "layer_norm" and ex.soc == "ascend310p":  # the inference series: LayerNorm only
        return False
    return not (ex.dtype == "bfloat16" and ex.soc in ("ascend910", "ascend310p"))


# ---- building the arguments ----------------------------------------------------------------------


@dataclass
class Call:
    api: str
    args: list[Any]  # as GetWorkspaceSize takes them, before workspaceSize/executor
    names: list[str]  # the C name of each argument
    inputs: list[Placed]
    outputs: dict[str, Placed]  # requested outputs by role name
    unrequested: list[Placed]
    golden: Any  # () -> dict role -> float64 array
    tolerance: tuple[float, float]
    required: set[int]  # indices of arguments whose null is 161001


def _cast(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).astype(dtype)


def _place_input(ex: Example, name: str, logical: np.ndarray) -> Placed:
    draw = ex.detail["draw"].draw
    kind = ex.detail["layouts"].get(name, "contiguous")
    strides, offset = layout_strides(draw, logical.shape, kind)
    placed = place(name, logical, strides, offset)
    if ex.mutation == "negative_stride" and name == "x" and logical.ndim and logical.shape[0] > 1:
        # The same view walked backwards along dim 0: aclCreateTensor must refuse it with a
        # message, and the operator then sees a null input.
        reverse = [-strides[0]] + list(strides[1:])
        start = offset + (logical.shape[0] - 1) * strides[0]
        try:
            _native.DeviceTensor(logical.shape, logical.dtype, reverse, start, (placed.storage.size,),
                                 host_storage=placed.storage)
        except _native.AclError as err:
            if "negative" not in str(err):
                raise FuzzFailure(f"aclCreateTensor refused a negative stride silently: {err}") from err
        else:
            raise FuzzFailure("aclCreateTensor accepted a negative stride")
        placed.tensor.close()
        placed.tensor = None
        ex.detail["applied"] = True
    return placed


def _place_output(ex: Example, name: str, shape: tuple[int, ...], dtype: np.dtype) -> Placed:
    draw = ex.detail["draw"].draw
    strides, offset = layout_strides(draw, shape, ex.detail["layouts"].get(name, "contiguous"))
    if ex.mutation == "overlapping_output" and name == "dx" and len(shape) >= 2 and shape[-1] > 1:
        strides = list(strides)
        strides[0] = ex.detail["overlap_stride"]  # rows land on each other
        ex.detail["applied"] = True
    logical = np.empty(shape, dtype)
    logical.view(np.uint8)[...] = GUARD if logical.size else 0
    return place(name, logical, strides, offset)


def _broadcast_dy(ex: Example, dy: np.ndarray) -> tuple[np.ndarray, int]:
    """dy made constant along one dim (returned with that dim), or dy itself and -1."""
    dim = ex.detail["broadcast_dy"]
    if dim < 0 or dim >= dy.ndim or dy.shape[dim] < 2:
        return dy, -1
    first = np.take(dy, [0], axis=dim)
    return np.ascontiguousarray(np.broadcast_to(first, dy.shape)), dim


def _place_dy(ex: Example, dy: np.ndarray) -> Placed:
    dy, dim = _broadcast_dy(ex, dy)
    if dim < 0:
        return _place_input(ex, "dy", dy)
    strides = _row_major(dy.shape)
    strides[dim] = 0
    return place("dy", dy, strides, 0)


def build_group_norm(ex: Example) -> Call:
    d = ex.detail
    dt = DTYPES[ex.dtype]
    n, c, hw, g = d["n"], d["c"], d["hw"], d["group"]
    rng = np.random.default_rng(d["seed"])
    shape = (n, c, hw) if not d["extra_dims"] or hw not in (8, 16) else (n, c, 2, hw // 2)
    x = _cast(rng.standard_normal(shape), dt)
    dy = _cast(rng.standard_normal(shape), dt)
    if n * c * hw:
        mean64, rstd64 = group_norm_forward_stats(x, n, c, hw, g)
    else:
        mean64, rstd64 = np.zeros((n, g)), np.ones((n, g))
    mean, rstd = _cast(mean64, dt), _cast(rstd64, dt)
    gamma = _cast(rng.uniform(0.5, 1.5, c), dt) if d["gamma"] else None
    p_dy = _place_dy(ex, dy)
    p_x = _place_input(ex, "x", x)
    p_mean, p_rstd = _place_input(ex, "mean", mean), _place_input(ex, "rstd", rstd)
    p_gamma = _place_input(ex, "gamma", gamma) if gamma is not None else None
    param_shape = (c,)
    outs = {"dx": _place_output(ex, "dx", shape, dt), "dgamma": _place_output(ex, "dgamma", param_shape, dt),
            "dbeta": _place_output(ex, "dbeta", param_shape, dt)}
    mask = d["mask"]
    roles = ["dx", "dgamma", "dbeta"]
    requested = {r: outs[r] for i, r in enumerate(roles) if i < len(mask) and mask[i]}
    scalars = [n, c, hw, g]
    if ex.mutation == "huge_scalar":
        scalars[d["huge_at"]] = d["huge"]
    dy_used = p_dy.logical

    def golden() -> dict[str, np.ndarray]:
        dx, dgamma, dbeta = gn_golden(dy_used, x, mean, rstd, gamma, n, c, hw, g)
        return {"dx": dx, "dgamma": dgamma, "dbeta": dbeta}

    tol = gn_cases._tolerance(ex.dtype, max(n, 1), max(hw, 1))
    args = [p_dy, p_x, p_mean, p_rstd, p_gamma, *scalars, ("mask", mask),
            *(outs[r] if r in requested else None for r in roles)]
    names = ["gradOut", "input", "mean", "rstd", "gamma", "N", "C", "HxW", "group", "outputMask",
             "gradInput", "gradGammaOut", "gradBetaOut"]
    required = {0, 1, 2, 3, 9} | {10 + i for i, r in enumerate(roles) if r in requested}
    inputs = [p for p in (p_dy, p_x, p_mean, p_rstd, p_gamma) if p is not None]
    unrequested = [outs[r] for r in roles if r not in requested]
    return Call("aclnnGroupNormBackward", args, names, inputs, requested, unrequested, golden,
                (tol.atol, tol.rtol), required)


def build_layer_norm(ex: Example) -> Call:
    d = ex.detail
    dt = DTYPES[ex.dtype]
    stat_dt = np.dtype(np.float32) if d["stat_fp32"] else dt
    lead, norm = tuple(d["lead"]), tuple(d["norm"])
    shape = lead + norm
    rng = np.random.default_rng(d["seed"])
    x = _cast(rng.standard_normal(shape), dt)
    dy = _cast(rng.standard_normal(shape), dt)
    mean64, rstd64 = ln_stats(x, norm)
    mean, rstd = _cast(mean64, stat_dt), _cast(rstd64, stat_dt)
    weight = _cast(rng.uniform(0.5, 1.5, norm), dt) if d["weight"] else None
    bias = _cast(rng.uniform(-1, 1, norm), dt) if d["bias"] else None
    p_dy = _place_dy(ex, dy)
    p_x = _place_input(ex, "x", x)
    p_mean, p_rstd = _place_input(ex, "mean", mean), _place_input(ex, "rstd", rstd)
    p_w = _place_input(ex, "gamma", weight) if weight is not None else None
    p_b = place("bias", bias, _row_major(norm), 0) if bias is not None else None
    outs = {"dx": _place_output(ex, "dx", shape, dt), "dgamma": _place_output(ex, "dgamma", norm, dt),
            "dbeta": _place_output(ex, "dbeta", norm, dt)}
    mask = d["mask"]
    roles = ["dx", "dgamma", "dbeta"]
    requested = {r: outs[r] for i, r in enumerate(roles) if i < len(mask) and mask[i]}
    norm_arg = list(norm)
    if ex.mutation == "huge_scalar":
        norm_arg[min(d["huge_at"], len(norm_arg) - 1)] = d["huge"]
    dy_used = p_dy.logical

    def golden() -> dict[str, np.ndarray]:
        dx, dw, db = ln_golden(dy_used, x, norm, mean, rstd, weight, (True, True, True))
        return {"dx": dx, "dgamma": dw, "dbeta": db}

    tol = ln_cases.TOLERANCES[ex.dtype]
    args = [p_dy, p_x, ("ints", norm_arg), p_mean, p_rstd, p_w, p_b, ("mask", mask),
            *(outs[r] if r in requested else None for r in roles)]
    names = ["gradOut", "input", "normalizedShape", "mean", "rstd", "weightOptional", "biasOptional",
             "outputMask", "gradInputOut", "gradWeightOut", "gradBiasOut"]
    required = {0, 1, 2, 3, 4, 7} | {8 + i for i, r in enumerate(roles) if r in requested}
    inputs = [p for p in (p_dy, p_x, p_mean, p_rstd, p_w, p_b) if p is not None]
    unrequested = [outs[r] for r in roles if r not in requested]
    return Call("aclnnLayerNormBackward", args, names, inputs, requested, unrequested, golden,
                (tol.atol, tol.rtol), required)


def build_batch_norm_elemt(ex: Example) -> Call:
    d = ex.detail
    dt = DTYPES[ex.dtype]
    shape = tuple(d["shape"])
    rng = np.random.default_rng(d["seed"])
    x = _cast(rng.standard_normal(shape), dt)
    dy = _cast(rng.standard_normal(shape), dt)
    stats = batch_stats(dy, x) if x.size else {k: np.ones(shape[1]) for k in
                                                 ("mean", "invstd", "sum_dy", "sum_dy_xmu")}
    f32 = np.dtype(np.float32)
    mean, invstd = _cast(stats["mean"], f32), _cast(stats["invstd"], f32)
    sum_dy, sum_dy_xmu = _cast(stats["sum_dy"], f32), _cast(stats["sum_dy_xmu"], f32)
    weight = _cast(rng.uniform(0.5, 1.5, shape[1]), f32) if d["weight"] else None
    per_rank = max(1, x.size // max(shape[1], 1))
    counter = np.full(d["ranks"], per_rank).astype(d["counter_dtype"])
    p_dy = _place_dy(ex, dy)
    p_x = _place_input(ex, "x", x)
    p_stats = [_place_input(ex, "mean", mean), _place_input(ex, "rstd", invstd)]
    p_w = place("weight", weight, [1], 0) if weight is not None else None
    p_sums = [place("sum_dy", sum_dy, [1], 0), place("sum_dy_xmu", sum_dy_xmu, [1], 0)]
    p_counter = place("counter", counter, [1], 0)
    outs = {"dx": _place_output(ex, "dx", shape, dt)}
    dy_used = p_dy.logical

    def golden() -> dict[str, np.ndarray]:
        return {"dx": bn_golden(dy_used, x, mean, invstd, weight, sum_dy, sum_dy_xmu, counter)}

    tol = bn_cases.TOLERANCES[ex.dtype]
    args = [p_dy, p_x, p_stats[0], p_stats[1], p_w, p_sums[0], p_sums[1], p_counter, outs["dx"]]
    names = ["gradOut", "input", "mean", "invstd", "weight", "sumDy", "sumDyXmu", "counter", "gradInput"]
    inputs = [p for p in (p_dy, p_x, *p_stats, p_w, *p_sums, p_counter) if p is not None]
    return Call("aclnnBatchNormElemtBackward", args, names, inputs, outs, [], golden,
                (tol.atol, tol.rtol), {0, 1, 2, 3, 5, 6, 7, 8})


BUILDERS = {"group_norm": build_group_norm, "layer_norm": build_layer_norm,
            "batch_norm_elemt": build_batch_norm_elemt}


def apply_tensor_mutations(ex: Example, call: Call) -> None:
    """The hostile changes that replace an argument: null, dtype, huge zero-stride views."""
    d = ex.detail
    tensor_slots = [i for i, a in enumerate(call.args) if isinstance(a, Placed)]
    if ex.mutation == "null":
        slot = d["null"] % len(call.args)
        d["nulled"] = call.names[slot]
        if isinstance(call.args[slot], int):
            ex.mutation = "none-null-int"  # an int cannot be null: the example stays valid
            ex.valid = True
            return
        call.args[slot] = None
    elif ex.mutation == "dtype":
        slot = tensor_slots[d["bad_dtype_at"] % len(tensor_slots)]
        p = call.args[slot]
        bad = np.dtype(d["bad_dtype"])
        call.args[slot] = place(p.name, p.logical.astype(bad), _row_major(p.logical.shape), 0)
    elif ex.mutation == "huge_view":
        slot = tensor_slots[d["huge_at"] % 2]  # gradOut or input
        dims = tuple(d["huge_dims"])
        dt = DTYPES[ex.dtype]
        one = np.zeros(1, dt)
        try:
            t = _native.DeviceTensor(dims, dt, [0] * len(dims), 0, (1,), host_storage=one)
            call.args[slot] = Placed("huge", np.zeros(0, dt), t, one, np.zeros(0, np.int64))
        except _native.AclError:
            call.args[slot] = None  # more than 2^63 elements: aclCreateTensor refuses it


# ---- running and checking -----------------------------------------------------------------------


@dataclass
class Stats:
    examples: int = 0
    outcomes: Counter = field(default_factory=Counter)
    by_op: Counter = field(default_factory=Counter)
    by_mutation: Counter = field(default_factory=Counter)


STATS = Stats()


def _c_args(call: Call, keep: list[Any]) -> list[Any]:
    out = []
    for a in call.args:
        if a is None:
            out.append(ctypes.c_void_p(None))
        elif isinstance(a, Placed):
            out.append(ctypes.c_void_p(a.tensor.ptr if a.tensor is not None else None))
        elif isinstance(a, tuple) and a[0] == "mask":
            arr = _native.BoolArray([bool(v) for v in a[1]])
            keep.append(arr)
            out.append(ctypes.c_void_p(arr.ptr))
        elif isinstance(a, tuple) and a[0] == "ints":
            arr = _native.IntArray([int(v) for v in a[1]])
            keep.append(arr)
            out.append(ctypes.c_void_p(arr.ptr))
        else:
            out.append(ctypes.c_int64(int(a)))
    return out


def _expect_error(ex: Example, api: str, status: int, allowed: tuple[int, ...], what: str) -> None:
    message = _native.recent_error()
    if status not in allowed:
        raise FuzzFailure(f"{what}: {api} returned {status}, expected one of {allowed}: {message}")
    if not message.startswith(api.replace("GetWorkspaceSize", "")):
        raise FuzzFailure(f"{what}: {api} returned {status} with the message {message!r}, not naming the API")


def _check_untouched(ex: Example, call: Call, ran_outputs: bool) -> None:
    for p in call.inputs:
        if p.tensor is None:
            continue
        if read_back(p).tobytes() != p.storage.tobytes():
            raise FuzzFailure(f"input {p.name} was written")
    for p in call.unrequested:
        if read_back(p).tobytes() != p.storage.tobytes():
            raise FuzzFailure(f"output {p.name} was not requested but written")
    for role, p in call.outputs.items():
        got = read_back(p)
        outside = np.ones(got.size, bool)
        outside[p.idx.reshape(-1)] = False
        if got.view(np.uint8).reshape(got.size, -1)[outside].tobytes() != \
                p.storage.view(np.uint8).reshape(got.size, -1)[outside].tobytes():
            raise FuzzFailure(f"output {role}: bytes outside its view (guard or gaps) were written")
        if not ran_outputs and got.tobytes() != p.storage.tobytes():
            raise FuzzFailure(f"output {role} was written by a call that failed")


def _check_golden(call: Call) -> None:
    want = call.golden()
    atol, rtol = call.tolerance
    for role, p in call.outputs.items():
        got = read_back(p)[p.idx].astype(np.float64) if p.logical.size else np.zeros(p.logical.shape)
        w = np.asarray(want[role], np.float64).reshape(p.logical.shape)
        with np.errstate(invalid="ignore"):
            bad = ~(np.abs(got - w) <= atol + rtol * np.abs(w))
        if bad.any():
            i = np.unravel_index(int(np.argmax(bad)), bad.shape)
            raise FuzzFailure(f"output {role}: {int(bad.sum())} of {bad.size} elements out of tolerance; "
                              f"[{i}] got {got[i]!r} want {w[i]!r} (atol {atol}, rtol {rtol})")


def run_example(ex: Example) -> str:
    """Runs one example and checks the property; returns its outcome label."""
    LAST_INPUT.write_text(ex.describe() + "\n")
    lib = _native.load()
    _native.stream()
    with _native.soc(ex.soc):
        call = BUILDERS[ex.op](ex)
        apply_tensor_mutations(ex, call)
        if ex.mutation in ("negative_stride", "overlapping_output"):
            ex.valid = not ex.detail.get("applied", False)  # the shape may leave nothing to change
        dx = call.outputs.get("dx")
        must_reject = (ex.mutation == "overlapping_output" and dx is not None
                       and np.unique(dx.idx).size < dx.idx.size)  # two elements share an address
        keep: list[Any] = []
        c_args = _c_args(call, keep)
        lib = _native.apply_soc()
        get_size = _native._aclnn_function(lib, call.api + "GetWorkspaceSize")
        execute = _native._aclnn_function(lib, call.api)
        ws_size, executor = ctypes.c_uint64(0), ctypes.c_void_p()
        status = get_size(*c_args, ctypes.byref(ws_size), ctypes.byref(executor))
        valid = ex.valid and dtype_served(ex) and all(
            not (isinstance(a, Placed) and a.tensor is None) for a in call.args)
        if status != 0:
            if valid:
                raise FuzzFailure(f"a valid call was rejected: {status} {_native.recent_error()}")
            _expect_error(ex, call.api + "GetWorkspaceSize", status, (NULLPTR, INVALID), "workspace phase")
            named = ex.detail.get("nulled", "") in _native.recent_error()
            if ex.mutation == "null" and status == NULLPTR and not named:
                raise FuzzFailure(f"null {ex.detail['nulled']}: the message does not name it: "
                                  f"{_native.recent_error()}")
            _check_untouched(ex, call, ran_outputs=False)
            return "rejected"
        if must_reject:
            raise FuzzFailure("an output whose view writes one element twice was accepted")
        if ws_size.value > MAX_WORKSPACE:
            if valid:
                raise FuzzFailure(f"a small valid call asks for {ws_size.value} bytes of workspace")
            return "accepted, workspace over the bound (not run)"
        need = ws_size.value
        alloc = need + (512 if ex.mutation == "workspace_larger" else 0)
        ws = _native.library.malloc(alloc) if alloc else 0

        def run(fn: Any, workspace: int, size: int) -> int:
            stream = ctypes.c_void_p(None)
            return fn(ctypes.c_void_p(workspace or None), ctypes.c_uint64(size), executor, stream)

        try:
            if ex.mutation == "other_api":
                other = ("aclnnLayerNormBackward" if call.api != "aclnnLayerNormBackward"
                         else "aclnnGroupNormBackward")
                st_other = run(_native._aclnn_function(lib, other), ws, need)
                _expect_error(ex, other, st_other, (INVALID,), "executor of another API")
            if ex.mutation in ("workspace_short", "workspace_null") and need > 0:
                short = ex.mutation == "workspace_short"
                refused = run(execute, ws, need - 1) if short else run(execute, 0, need)
                _expect_error(ex, call.api, refused, (INVALID,) if short else (NULLPTR,), "bad workspace")
                # The refusal spent the executor: a retry is an error (not a use-after-free), and
                # GetWorkspaceSize makes a new one for the proper run below.
                _expect_error(ex, call.api, run(execute, ws, alloc), (INVALID,), "retry of a spent executor")
                again = get_size(*c_args, ctypes.byref(ws_size), ctypes.byref(executor))
                if again != 0 or ws_size.value != need:
                    raise FuzzFailure(f"GetWorkspaceSize changed its answer: {_native.recent_error()}")
            status = run(execute, ws, alloc)
            if status != 0:
                if valid:
                    raise FuzzFailure(f"a valid call failed to run: {status} {_native.recent_error()}")
                _expect_error(ex, call.api, status, (NULLPTR, INVALID), "execute phase")
                _check_untouched(ex, call, ran_outputs=False)
                return "rejected at execute"
            if ex.mutation == "run_twice":
                again = run(execute, ws, alloc)
                _expect_error(ex, call.api, again, (INVALID,), "second run of an executor")
        finally:
            _native.library.free(ws)
        _check_untouched(ex, call, ran_outputs=True)
        if valid:
            _check_golden(call)
            return "ok, matches the golden"
        return "accepted (hostile but consistent)"


def fuzz_batch(batch_seed: int, max_examples: int) -> None:
    """Runs max_examples inputs drawn from batch_seed; raises on the first property failure."""
    LAST_INPUT.parent.mkdir(parents=True, exist_ok=True)
    @seed(batch_seed)
    @settings(max_examples=max_examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck), print_blob=True)
    @given(ex=examples())
    def prop(ex: Example) -> None:
        outcome = run_example(ex)
        STATS.examples += 1
        STATS.outcomes[outcome] += 1
        STATS.by_op[ex.op] += 1
        STATS.by_mutation[f"{ex.mutation}: {outcome}"] += 1

    prop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0, help="time budget (default 120)")
    parser.add_argument("--seed", type=int, default=13, help="first batch's seed (default 13)")
    parser.add_argument("--batch", type=int, default=100, help="examples per hypothesis batch (default 100)")
    args = parser.parse_args(argv)
    start = time.monotonic()
    batch = 0
    while time.monotonic() - start < args.seconds:
        try:
            fuzz_batch(args.seed + batch, args.batch)
        except Exception as err:  # noqa: BLE001 - reported with the counts, then exit 1
            print(f"aclnn fuzz: FAILED in batch {batch} (seed {args.seed + batch}):", file=sys.stderr)
            for sub in err.exceptions if isinstance(err, ExceptionGroup) else [err]:
                print(f"  {type(sub).__name__}: {sub}", file=sys.stderr)
                for note in getattr(sub, "__notes__", []):
                    print(f"    {note}", file=sys.stderr)
            report(start, args, batch + 1)
            return 1
        batch += 1
    report(start, args, batch)
    return 0


def report(start: float, args: argparse.Namespace, batches: int) -> None:
    elapsed = time.monotonic() - start
    rate = STATS.examples / elapsed if elapsed > 0 else math.nan
    print(f"aclnn fuzz: {STATS.examples} inputs in {elapsed:.0f} s ({rate:.1f} inputs/s), seeds "
          f"{args.seed}..{args.seed + max(batches - 1, 0)}, {batches} batches of up to {args.batch}")
    print("  by operator: " + ", ".join(f"{k} {v}" for k, v in sorted(STATS.by_op.items())))
    print("  outcomes: " + ", ".join(f"{k} {v}" for k, v in STATS.outcomes.most_common()))
    print("  by change: " + ", ".join(f"{k} {v}" for k, v in sorted(STATS.by_mutation.items())))


if __name__ == "__main__":
    sys.exit(main())
