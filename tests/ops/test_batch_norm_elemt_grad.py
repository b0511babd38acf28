"""normgrad.batch_norm_elemt_backward against the float64 golden: every kernel mode, dtype, counter
form, weight None, strided inputs, every error row of docs/batch_norm_elemt_backward.md, empty
tensors, determinism, the specification's own example program, and one cross-check of the golden
against torch autograd."""

from __future__ import annotations

import os
import re
import subprocess
import warnings
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import normgrad
from normgrad import _native
from normgrad.golden.batch_norm_elemt_grad import batch_norm_elemt_backward as golden
from normgrad.golden.batch_norm_elemt_grad import batch_stats

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.dtype(np.float32), np.dtype(np.float16), BF16]
# Output rounding: round-to-nearest-even to the dx dtype costs at most half an ulp, i.e. 2^-24,
# 2^-11, 2^-8 of |dx|.
OUT_RTOL = {np.dtype(np.float32): 2.0**-24, np.dtype(np.float16): 2.0**-11, BF16: 2.0**-8}
# Below the smallest normal the spacing is fixed: half of fp16's subnormal step 2^-24 (fp32 and
# bf16 subnormals lie far below every |dx| these tests produce).
OUT_ATOL = {np.dtype(np.float32): 0.0, np.dtype(np.float16): 2.0**-25, BF16: 0.0}
# The fp32 math: 4-5 roundings of 2^-24, each relative to a partial sum bounded by the sum of the
# magnitudes of the three terms a*dy, a*b*(x - mean), a*c; 16 ulps of that leaves a 3x margin.
MATH_ULPS = 16 * 2.0**-24


def make_inputs(shape, dtype=np.float32, stat_dtype=np.float32, counter=None, weight=True, seed=0):
    rng = np.random.default_rng(seed)
    c = shape[1]
    x = (rng.standard_normal(shape) * 2 + 0.5).astype(dtype)
    dy = rng.standard_normal(shape).astype(dtype)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # empty shapes have no statistics
        st = batch_stats(dy.astype(np.float64), x.astype(np.float64))
    total = int(np.prod(shape)) // max(c, 1)
    args = {
        "grad_out": dy,
        "x": x,
        "mean": st["mean"].astype(stat_dtype) if c else np.zeros(c, stat_dtype),
        "invstd": st["invstd"].astype(stat_dtype) if c else np.ones(c, stat_dtype),
        "weight": rng.standard_normal(c).astype(stat_dtype) if weight else None,
        "sum_dy": (st["sum_dy"] * 3).astype(stat_dtype),  # as if 3 ranks contributed
        "sum_dy_xmu": (st["sum_dy_xmu"] * 3).astype(stat_dtype),
        "counter": np.array([total, total, total], np.int32) if counter is None else counter,
    }
    return args


def check(args, out=None):
    got = normgrad.batch_norm_elemt_backward(**args) if out is None else out
    assert got.dtype == args["x"].dtype and got.shape == args["x"].shape
    want = golden(**args)
    nd = args["x"].ndim
    per_c = (1, -1) + (1,) * (nd - 2)
    inv = args["invstd"].astype(np.float64).reshape(per_c)
    w = args["weight"].astype(np.float64).reshape(per_c) if args["weight"] is not None else 1.0
    total = args["counter"].astype(np.float64).sum()
    a = np.abs(inv * w)
    terms = (a * np.abs(args["grad_out"].astype(np.float64))
             + a * inv * inv * np.abs(args["sum_dy_xmu"].astype(np.float64).reshape(per_c) / total)
             * np.abs(args["x"].astype(np.float64) - args["mean"].astype(np.float64).reshape(per_c))
             + a * np.abs(args["sum_dy"].astype(np.float64).reshape(per_c) / total))
    rtol = OUT_RTOL[got.dtype]
    tol = OUT_ATOL[got.dtype] + rtol * np.abs(want) + MATH_ULPS * terms * (1 + rtol)
    err = np.abs(got.astype(np.float64) - want)
    worst = np.unravel_index(np.argmax(err - tol), err.shape) if err.size else None
    assert np.all(err <= tol), f"worst at {worst}: got {got[worst]}, want {want[worst]}, tol {tol[worst]}"
    return got


# Each shape exercises one path of the kernel (see docs/batch_norm_elemt_backward.md).
SHAPES = {
    "reference example [1, 2, 4]": (1, 2, 4),
    "[N, C] 20x128, hw = 1: channel slabs, 26 cores of 5 channels, statistics in UB": (20, 128),
    "[N, C] 2x64, hw = 1: channel slabs, one core": (2, 64),
    "hw = 7, odd C: channel slabs with 32-byte row padding": (3, 37, 7),
    "hw = 49, ResNet stage-4 row, many cores": (4, 96, 7, 7),
    "hw = 600: row scalars, tiles end at row ends": (2, 5, 600),
    "hw = 3000, 2 rows per core chunk: row scalars split mid-row": (3, 4, 3000),
    "one long row bigger than a tile": (1, 2, 40000),
    "channel slabs with several tiles per core": (64, 48, 25),
    "hw = 49, 4 batches: channel rows (Brcb'd coefficients, a copy per batch)": (4, 300, 7, 7),
    "hw = 9: channel rows of 292 rows a tile, last core 138 channels (fp32)": (4, 7000, 3, 3),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", list(SHAPES.values()), ids=list(SHAPES))
def test_modes_and_dtypes_match_golden(shape, dtype):
    check(make_inputs(shape, dtype))


@pytest.mark.parametrize("seed", range(8))
def test_random_2_to_8_dim_odd_shapes(seed):
    rng = np.random.default_rng(100 + seed)
    nd = int(rng.integers(2, 9))
    shape = tuple(int(v) for v in rng.choice([1, 2, 3, 5, 7, 9, 11, 13], size=nd))
    dtype = DTYPES[seed % 3]
    check(make_inputs(shape, dtype, seed=seed))


@pytest.mark.parametrize("counter", [
    np.array([7], np.int32),
    np.array([[3, 4, 5], [6, 7, 8]], np.float16),
    np.array([12.0, 30.0, 1.0, 0.5], np.float32),
    np.ones((1, 2, 1, 2, 1, 2, 1, 2), np.int32),
    np.array(9, np.float32).reshape(1),
    np.arange(300, dtype=np.int32) % 3,  # longer than the channel slabs copy into the UB: read from GM
], ids=["int32 [1]", "fp16 [2,3]", "fp32 [4]", "int32 8-D", "fp32 [1]", "int32 [300]"])
def test_counter_dtypes_and_shapes(counter):
    check(make_inputs((3, 6, 10), np.float32, counter=counter))


def test_channel_rows_with_a_counter_read_from_gm():
    # A counter too long for the UB copy: channel rows read the statistics as GM scalars.
    check(make_inputs((4, 300, 7, 7), BF16, counter=np.arange(300, dtype=np.int32) % 3 + 1))


def test_int32_counter_sum_beyond_fp32_integers_is_exact():
    # 2^24 + 1 is not a float32; the kernel sums int32 counters in int64.
    check(make_inputs((2, 3, 4), np.float32, counter=np.array([2**24, 1], np.int32)))


@pytest.mark.parametrize("shape", [(5, 8, 3), (4, 300, 7, 7), (2, 3, 700)],
                         ids=["channel slabs", "channel rows", "row scalars"])
def test_weight_none_means_ones(shape):
    args = make_inputs(shape, weight=False)
    got = check(args)
    ones = dict(args, weight=np.ones(shape[1], np.float32))
    np.testing.assert_array_equal(got, normgrad.batch_norm_elemt_backward(**ones))


@pytest.mark.parametrize("dy_dtype,x_dtype,stat_dtypes", [
    (np.float16, np.float16, (np.float32,) * 5),
    (np.float32, np.float16, (np.float16, BF16, np.float32, np.float16, BF16)),
    (BF16, np.float32, (BF16,) * 5),
    (np.float16, BF16, (np.float32, np.float16, np.float16, np.float32, np.float32)),
], ids=["fp16 with fp32 stats", "fp32 dy, fp16 x, mixed stats", "bf16 dy, fp32 x", "fp16 dy, bf16 x"])
@pytest.mark.parametrize("shape", [(4, 6, 9), (2, 3, 800)], ids=["short rows", "long rows"])
def test_mixed_dtypes(dy_dtype, x_dtype, stat_dtypes, shape):
    args = make_inputs(shape, np.float32)
    args["grad_out"] = args["grad_out"].astype(dy_dtype)
    args["x"] = args["x"].astype(x_dtype)
    for name, d in zip(("mean", "invstd", "weight", "sum_dy", "sum_dy_xmu"), stat_dtypes, strict=True):
        args[name] = args[name].astype(d)
    check(args)


def test_strided_inputs():
    base = make_inputs((4, 10, 6, 8), np.float16)
    args = dict(base)
    args["x"] = np.ascontiguousarray(base["x"].transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)  # non-row-major
    args["grad_out"] = np.repeat(base["grad_out"], 2, axis=3)[..., ::2]  # stepped view
    assert not args["x"].flags.c_contiguous and not args["grad_out"].flags.c_contiguous
    for name in ("mean", "invstd", "weight", "sum_dy", "sum_dy_xmu"):
        args[name] = np.repeat(base[name], 3)[::3]
        assert not args[name].flags.c_contiguous
    args["counter"] = np.repeat(base["counter"], 2)[::2]
    got = check(args)
    np.testing.assert_array_equal(got, normgrad.batch_norm_elemt_backward(**base))


@pytest.mark.parametrize("shape", [(0, 3, 4), (2, 3, 0), (2, 3, 4, 0)])
def test_empty_tensors(shape):
    args = make_inputs(shape)
    got = normgrad.batch_norm_elemt_backward(**args)
    assert got.shape == shape and got.dtype == np.float32


@pytest.mark.parametrize("shape", [(6, 40, 7, 7), (2, 8, 1500)], ids=["channel slabs", "row scalars"])
def test_two_runs_are_bitwise_equal(shape):
    args = make_inputs(shape, BF16)
    first = normgrad.batch_norm_elemt_backward(**args)
    second = normgrad.batch_norm_elemt_backward(**args)
    assert first.tobytes() == second.tobytes()


def _error(args, status, *fragments):
    with pytest.raises(normgrad.AclnnError) as err:
        normgrad.batch_norm_elemt_backward(**args)
    assert err.value.status == status
    text = str(err.value)
    assert "aclnnBatchNormElemtBackward" in text
    for f in fragments:
        assert f in text, text


GOOD = make_inputs((2, 3, 4))


@pytest.mark.parametrize("name", ["grad_out", "x", "mean", "invstd", "sum_dy", "sum_dy_xmu", "counter"])
def test_python_rejects_non_arrays(name):
    with pytest.raises(TypeError, match=name):
        normgrad.batch_norm_elemt_backward(**dict(GOOD, **{name: None}))


ACLNN_NAME = {"grad_out": "gradOut", "x": "input", "mean": "mean", "invstd": "invstd", "weight": "weight",
              "sum_dy": "sumDy", "sum_dy_xmu": "sumDyXmu"}


@pytest.mark.parametrize("name", list(ACLNN_NAME))
def test_error_dtype_not_supported(name):
    _c_error(dict(GOOD, **{name: GOOD[name].astype(np.int32)}), 161002, f"{ACLNN_NAME[name]} has dtype int32",
             "expected FLOAT, FLOAT16 or BFLOAT16")


def test_error_counter_dtype():
    _c_error(dict(GOOD, counter=np.array([1.0], ml_dtypes.bfloat16)), 161002, "counter has dtype bfloat16",
             "expected INT32, FLOAT16 or FLOAT")


def _c_error(args, status, *fragments):
    """As _error, through the C API itself: the NumPy API refuses these dtypes before the call
    (tests/python/test_argument_errors.py), so the aclnn layer's own dtype checks are reached here."""
    names = ("grad_out", "x", "mean", "invstd", "weight", "sum_dy", "sum_dy_xmu", "counter")
    tensors = [_native.tensor(args[n]) for n in names]
    dx = _native.empty(args["x"].shape, args["x"].dtype)
    try:
        with pytest.raises(normgrad.AclnnError) as err:
            _native.call_aclnn("aclnnBatchNormElemtBackward", *tensors, dx)
    finally:
        for t in (*tensors, dx):
            t.close()
    assert err.value.status == status
    for f in ("aclnnBatchNormElemtBackward", *fragments):
        assert f in str(err.value), str(err.value)


def test_error_input_fewer_than_2_dims():
    one_d = {k: (v[0, 0] if k in ("grad_out", "x") else v) for k, v in GOOD.items()}
    _error(one_d, 161002, "input has 1 dimensions [4], expected at least 2")


def test_error_more_than_8_dims():
    shape = (2, 3) + (1,) * 7
    args = make_inputs(shape)
    _error(args, 161002, "input has 9 dimensions, at most 8")
    _error(dict(GOOD, counter=np.ones((1,) * 9, np.int32)), 161002, "counter has 9 dimensions, at most 8")


def test_error_zero_channels():
    args = make_inputs((2, 0, 4))
    _error(args, 161002, "input [2, 0, 4] has 0 channels")


def test_error_grad_out_shape():
    _error(dict(GOOD, grad_out=np.zeros((2, 3, 5), np.float32)), 161002,
           "gradOut has shape [2, 3, 5], expected the shape of input [2, 3, 4]")


@pytest.mark.parametrize("name", ["mean", "invstd", "weight", "sum_dy", "sum_dy_xmu"])
def test_error_per_channel_shape(name):
    _error(dict(GOOD, **{name: np.zeros((4,), np.float32)}), 161002,
           f"{ACLNN_NAME[name]} has shape [4], expected [C] = [3]")
    _error(dict(GOOD, **{name: np.zeros((1, 3), np.float32)}), 161002, f"{ACLNN_NAME[name]} has shape [1, 3]")


def _call_raw(**null):
    """Calls the aclnn API directly so that any argument, the output included, can be null."""
    from contextlib import ExitStack

    from normgrad import _native
    order = ["grad_out", "x", "mean", "invstd", "weight", "sum_dy", "sum_dy_xmu", "counter"]
    with ExitStack() as stack:
        ts = [None if null.get(k) else stack.enter_context(_native.tensor(GOOD[k])) for k in order]
        dx = None if null.get("grad_input") else stack.enter_context(_native.empty((2, 3, 4), np.float32))
        _native.call_aclnn("aclnnBatchNormElemtBackward", *ts, dx)


@pytest.mark.parametrize("name,aclnn", [("grad_out", "gradOut"), ("x", "input"), ("mean", "mean"),
                                        ("invstd", "invstd"), ("sum_dy", "sumDy"), ("sum_dy_xmu", "sumDyXmu"),
                                        ("counter", "counter"), ("grad_input", "gradInput")])
def test_error_null_pointer(name, aclnn):
    with pytest.raises(normgrad.AclnnError) as err:
        _call_raw(**{name: True})
    assert err.value.status == 161001
    assert f"{aclnn} is a null pointer" in str(err.value)


@pytest.mark.parametrize("alias", ["grad_out", "x"])
def test_error_grad_input_aliasing_an_input(alias):
    """In-place (gradInput over gradOut or input) is refused: other cores may still read what one writes."""
    from contextlib import ExitStack

    from normgrad import _native
    order = ["grad_out", "x", "mean", "invstd", "weight", "sum_dy", "sum_dy_xmu", "counter"]
    with ExitStack() as stack:
        ts = {k: stack.enter_context(_native.tensor(GOOD[k])) for k in order}
        with pytest.raises(normgrad.AclnnError) as err:
            _native.call_aclnn("aclnnBatchNormElemtBackward", *[ts[k] for k in order], ts[alias])
    assert err.value.status == 161002
    assert f"gradInput shares device memory with {ACLNN_NAME[alias]}" in str(err.value)


def _reference_example_binary() -> Path | None:
    lib = os.environ.get("NORMGRAD_LIBRARY")
    if not lib:
        return None
    exe = Path(lib).resolve().parent / "batch_norm_elemt_backward_reference_example"
    return exe if exe.exists() else None


def test_reference_example_program_prints_the_golden():
    """The API documentation's example program, compiled unchanged against the simulator runtime
    (examples/batch_norm_elemt_backward_reference_example.cpp), run here."""
    exe = _reference_example_binary()
    if exe is None:
        pytest.skip("the example is built with -DNORMGRAD_BUILD_TESTS=ON next to NORMGRAD_LIBRARY")
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    printed = {int(i): float(v) for i, v in re.findall(r"result\[(\d+)\] is: (-?[\d.]+)", run.stdout)}
    assert sorted(printed) == list(range(8))
    # The example's inputs: gradOut = input = 0..7 of shape [1, 2, 4], mean 0, invstd 1, weight 1,
    # sumDy 0, sumDyXmu 1, counter {5, 5} (float).
    v = np.arange(8, dtype=np.float32).reshape(1, 2, 4)
    want = golden(v, v, np.zeros(2), np.ones(2), np.ones(2), np.zeros(2), np.ones(2), np.array([5.0, 5.0]))
    # %f prints 6 decimals: the printed value is within 5e-7 of the fp32 result, itself within 1e-6.
    np.testing.assert_allclose([printed[i] for i in range(8)], want.ravel(), rtol=0, atol=2e-6)


def test_golden_matches_torch_autograd():
    """One rank of SyncBatchNorm: the golden from the batch stats equals autograd through
    torch.nn.functional.batch_norm in training mode (float64)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    for shape in [(4, 3, 5, 6), (16, 5), (2, 4, 3, 2, 5)]:
        x = rng.standard_normal(shape) * 3 + 1
        dy = rng.standard_normal(shape)
        w = rng.standard_normal(shape[1])
        xt = torch.tensor(x, requires_grad=True)
        y = torch.nn.functional.batch_norm(xt, None, None, torch.tensor(w), torch.tensor(np.zeros(shape[1])),
                                           training=True, eps=1e-5)
        y.backward(torch.tensor(dy))
        st = batch_stats(dy, x, eps=1e-5)
        count = np.array([x.size // shape[1]], np.int32)
        got = golden(dy, x, st["mean"], st["invstd"], w, st["sum_dy"], st["sum_dy_xmu"], count)
        np.testing.assert_allclose(got, xt.grad.numpy(), rtol=1e-10, atol=1e-12)
