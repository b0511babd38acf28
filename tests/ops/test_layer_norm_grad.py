"""LayerNorm backward through aclnnLayerNormBackward on the simulator, against the float64 golden.

Shapes are chosen to hit every kernel mode and edge with few elements: whole rows on many cores,
rows split across cores (few tokens, long rows, whole-tensor M = 1), several column chunks per
slice, odd row lengths that need DataCopyPad tails, and more rows than one batch.
"""

from __future__ import annotations

import itertools
from contextlib import ExitStack

import ml_dtypes
import numpy as np
import pytest

import normgrad
from normgrad import _native
from normgrad.golden.layer_norm_grad import forward_stats
from normgrad.golden.layer_norm_grad import layer_norm_backward as golden

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
F32 = np.dtype(np.float32)
API = "aclnnLayerNormBackward"

# Relative precision of one rounding to the output dtype (half an ulp, doubled for the fp32 error
# in front of it): fp16 has 11 significant bits, bf16 8.
ROUNDING = {F32: 0.0, F16: 2.0**-10, BF16: 2.0**-7}


def check_close(name: str, got: np.ndarray, want: np.ndarray, out_dtype: np.dtype, terms: int) -> None:
    """|got - want| <= atol + rtol * |want|.

    fp32 math: each output is a sum of `terms` fp32 products (rows for dgamma/dbeta, a row for dx's
    row sums), accumulated sequentially, so its error grows like terms * 2^-24 of the summed
    magnitudes; 16-bit outputs add one rounding (ROUNDING) to that.
    """
    assert got.dtype == out_dtype, f"{name}: dtype {got.dtype}, expected {out_dtype}"
    assert got.shape == want.shape, f"{name}: shape {got.shape}, expected {want.shape}"
    g = got.astype(np.float64)
    fp32_err = 4 * 2.0**-24 * max(terms, 1)
    rtol = ROUNDING[out_dtype] + fp32_err + 1e-6
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    atol = (ROUNDING[out_dtype] + fp32_err) * scale + 1e-6
    bad = np.abs(g - want) > atol + rtol * np.abs(want)
    assert not bad.any(), (
        f"{name}: {int(bad.sum())} of {bad.size} elements off, worst |diff| "
        f"{float(np.max(np.abs(g - want))):.3g} (atol {atol:.3g}, rtol {rtol:.3g})"
    )


def make_inputs(rng, shape, nd, dtype, stats_dtype=F32, weight_dtype=F32, with_weight=True):
    x = rng.standard_normal(shape).astype(dtype)
    dy = rng.standard_normal(shape).astype(dtype)
    ns = tuple(shape[len(shape) - nd:])
    mean, rstd = forward_stats(x, ns)
    w = rng.standard_normal(ns).astype(weight_dtype) if with_weight else None
    return dy, x, ns, mean.astype(stats_dtype), rstd.astype(stats_dtype), w


def run_and_check(dy, x, ns, mean, rstd, w, mask=(True, True, True), out_param_dtype=None):
    got = normgrad.layer_norm_backward(dy, x, ns, mean, rstd, w, None, mask)
    want = golden(dy, x, ns, mean, rstd, w, mask)
    rows = x.size // max(int(np.prod(ns)), 1)
    cols = int(np.prod(ns))
    param_dtype = out_param_dtype or (w.dtype if w is not None else x.dtype)
    for i, name in enumerate(("dx", "dweight", "dbias")):
        if not mask[i]:
            assert got[i] is None
            continue
        check_close(name, got[i], want[i], x.dtype if i == 0 else param_dtype, cols if i == 0 else rows)
    return got


# (shape, normalized dims, why)
SHAPES = [
    ((48 * 3 + 5, 96), 1, "whole rows, several batches per core, uneven rows per core"),
    ((3, 1), 1, "D = 1: one-element rows, 4-byte DMA tails"),
    ((50, 7), 1, "odd D below one 32-byte block"),
    ((9, 255), 1, "odd D one element short of a repeat multiple"),
    ((5, 257), 1, "odd D one element past"),
    ((7, 4096), 1, "7 tokens: rows split over 4 cores each, one batch"),
    ((1, 768), 1, "one token, short row: a single core"),
    ((2, 3, 4, 5), 2, "normalization over 2 trailing dims"),
    ((2, 3, 4, 5), 3, "normalization over 3 trailing dims (M = 2)"),
    ((1, 197, 64), 1, "vision: N x 197 tokens, scaled-down hidden"),
    ((1, 3136 // 16, 96), 1, "vision: N x 3136 x 96 (Swin stage 1), fewer tokens"),
    ((2, 131073), 1, "odd long rows split over cores"),
    ((1, 262144), 1, "whole-tensor normalization (M = 1): the row over all 48 cores"),
]


@pytest.mark.parametrize("shape,nd,why", SHAPES, ids=[s[2] for s in SHAPES])
def test_float32_shapes_match_golden(shape, nd, why):
    rng = np.random.default_rng(hash(shape) % 2**32)
    run_and_check(*make_inputs(rng, shape, nd, F32))


# Every (input, stats, weight) dtype combination the API accepts on A2/A3.
COMBOS = [
    (F32, F32, F32),
    (F16, F32, F32), (F16, F32, F16), (F16, F16, F16), (F16, F16, F32), (F16, BF16, F16),
    (BF16, F32, F32), (BF16, F32, BF16), (BF16, BF16, BF16), (BF16, BF16, F32), (BF16, F16, BF16),
]


@pytest.mark.parametrize("dtype,stats,weight", COMBOS, ids=[f"{a}-{b}-{c}" for a, b, c in COMBOS])
def test_dtype_combinations(dtype, stats, weight):
    rng = np.random.default_rng(7)
    for shape in ((61, 320), (3, 5000)):  # whole rows; rows split over cores with chunked slices
        run_and_check(*make_inputs(rng, shape, 1, dtype, stats, weight))


# 16-bit dx over chunked slices takes x raw (a * x + b) while |mean| / sigma <= 64 and centres x
# first beyond: both sides of that bound, for whole rows in two chunks (dx only, so one row per
# core) and for rows split over 47 cores in two chunks per slice (all outputs).
CHUNKED = [((100, 10000), (True, False, False)), ((8, 65536), (True, True, True))]


@pytest.mark.parametrize("dtype", [F16, BF16])
@pytest.mark.parametrize("offset", [50.0, 500.0], ids=["raw x", "centred x"])
@pytest.mark.parametrize("shape,mask", CHUNKED, ids=["whole rows", "row slices"])
def test_16bit_chunked_dx_with_a_large_mean(shape, mask, offset, dtype):
    rng = np.random.default_rng(23)
    dy, x, ns, _, _, w = make_inputs(rng, shape, 1, dtype)
    x = (x.astype(np.float64) + offset).astype(dtype)
    mean, rstd = forward_stats(x, ns)
    run_and_check(dy, x, ns, mean.astype(F32), rstd.astype(F32), w, mask)


# Rows split over cores in several chunks sum dgamma/dbeta of the first paramsAfterSet chunks
# between raising the exchange flag and waiting on it, from the resident dy and x: every chunk of
# one batch (8 x 65536 bf16), the first of two over four batches with resident sums (100 x 10000
# bf16), all three with the sums streamed to the outputs per chunk (1 x 500000 fp16), and fp32,
# whose pass 1 then keeps dy and forms rstd * g after the set (64 x 32768, four batches); each with every
# output, one parameter gradient, and without weight.
AFTER_SET = [((8, 65536), BF16), ((100, 10000), BF16), ((1, 500000), F16), ((64, 32768), F32)]


@pytest.mark.parametrize("mask", [(True, True, True), (True, True, False), (True, False, True)],
                         ids=["all", "dgamma", "dbeta"])
@pytest.mark.parametrize("shape,dtype", AFTER_SET, ids=["one batch", "first chunk of four batches",
                                                        "streamed sums", "fp32"])
def test_parameter_sums_between_flag_set_and_wait(shape, dtype, mask):
    rng = np.random.default_rng(29)
    run_and_check(*make_inputs(rng, shape, 1, dtype), mask=mask)
    run_and_check(*make_inputs(rng, shape, 1, dtype, with_weight=False), mask=mask)


# Stage 2 waits on a split-phase flag on A2/A3: each core stores its dgamma/dbeta partials, raises
# the flag, writes dx of its last batch, then waits. Whole rows in one tile (the last batch sums its
# rows after the set, its short batch goes first: 247 rows on 7 ranges), whole rows in two chunks
# (1700 x 8200), short rows (149 x 96) and rows split over cores (300 x 12000); with every output,
# the parameter gradients alone and dx with one of them; run twice, bitwise the same.
SPLIT_PHASE = [((247, 768), F32), ((247, 768), BF16), ((1700, 8200), F32), ((149, 96), F32),
               ((300, 12000), F32)]


@pytest.mark.parametrize("mask", [(True, True, True), (False, True, True), (True, False, True)],
                         ids=["all", "params only", "dx and dbeta"])
@pytest.mark.parametrize("shape,dtype", SPLIT_PHASE, ids=["one tile", "one tile bf16", "two chunks",
                                                          "short rows", "row slices"])
def test_stage2_waits_on_a_flag_raised_after_the_partials(shape, dtype, mask):
    rng = np.random.default_rng(37)
    args = make_inputs(rng, shape, 1, dtype)
    with _native.soc("ascend910b"):
        got = run_and_check(*args, mask=mask)
        (launch,) = _native.last_run()
        assert all(c["syncAll"] == 0 and c["crossCoreWaits"] >= 1 for c in launch["cores"])
        again = normgrad.layer_norm_backward(*args, None, mask)
    for a, b in zip(got, again, strict=True):
        if a is not None:
            np.testing.assert_array_equal(a.view(np.uint16 if a.itemsize == 2 else np.uint32),
                                          b.view(np.uint16 if b.itemsize == 2 else np.uint32))


# fp32 whole rows in one tile (A2/A3, split-phase stage 2, double buffering): the last batch but one
# forms its row sums, the last batch its dgamma/dbeta half (x - mean in the third work tile, its
# statistics in the row-sum partials), the flag is raised, then the batch before's dx, then the last
# batch's row sums and dx. Ranges of 42 and 43 rows (uneven short first batches), rows of 1000
# (a masked tail piece), 8-row batches (96 x 768: 32 rows per range, 4 batches); every output,
# each parameter gradient alone with dx, without weight; run twice, bitwise the same.
DEFERRED_DX = [(2053, 768), (100, 1000), (96, 768)]


@pytest.mark.parametrize("weight", [True, False], ids=["weight", "no weight"])
@pytest.mark.parametrize("mask", [(True, True, True), (True, True, False), (True, False, True)],
                         ids=["all", "dx and dgamma", "dx and dbeta"])
@pytest.mark.parametrize("shape", DEFERRED_DX, ids=["uneven ranges", "masked tail", "8-row batches"])
def test_fp32_last_batch_but_one_dx_after_the_flag(shape, mask, weight):
    rng = np.random.default_rng(41)
    args = make_inputs(rng, shape, 1, F32, with_weight=weight)
    with _native.soc("ascend910b"):
        got = run_and_check(*args, mask=mask)
        again = normgrad.layer_norm_backward(*args, None, mask)
    for a, b in zip(got, again, strict=True):
        if a is not None:
            np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))


# Short whole rows go through level-0 instructions that repeat over the rows of a batch: more
# than 255 rows per batch on A2 (D = 7, 1100 rows per core: the repeat limit splits the batch), a
# masked tail piece after a full one (D = 100), and the Swin row length.
@pytest.mark.parametrize("dtype", [F32, F16, BF16])
@pytest.mark.parametrize("shape", [(52800, 7), (2000, 100), (4000, 96)], ids=["D=7", "D=100", "D=96"])
def test_short_rows_repeated_over_rows(shape, dtype):
    rng = np.random.default_rng(17)
    run_and_check(*make_inputs(rng, shape, 1, dtype))
    run_and_check(*make_inputs(rng, shape, 1, dtype, with_weight=False), mask=(True, False, True))


# 16-bit rows in one chunk (short rows; whole rows and row slices on A2/A3) form x-hat as
# rstd * x - mean * rstd while every row of the batch has |mean| * rstd <= 64 and centre x first
# otherwise: both sides of that bound, and batches where one row in 16 is past it (a 20-sigma
# offset keeps the others under it). Whole rows of 1000 end in a masked piece; 16 x 8192 is
# split over 8 cores.
ONE_CHUNK_16BIT = [(4000, 96), (2000, 100), (200, 768), (150, 1000), (16, 8192)]


@pytest.mark.parametrize("dtype", [F16, BF16])
@pytest.mark.parametrize("offset", [50.0, 500.0, "one row in 16"], ids=["raw x", "centred x", "mixed"])
@pytest.mark.parametrize("shape", ONE_CHUNK_16BIT, ids=["short D=96", "short D=100", "whole D=768",
                                                         "whole D=1000", "slices D=8192"])
def test_16bit_one_chunk_with_a_large_mean(shape, offset, dtype):
    rng = np.random.default_rng(31)
    dy, x, ns, _, _, w = make_inputs(rng, shape, 1, dtype)
    shift = np.full((shape[0], 1), 20.0)
    if offset == "one row in 16":
        shift[::16] = 500.0
    else:
        shift[:] = offset
    x = (x.astype(np.float64) + shift).astype(dtype)
    mean, rstd = forward_stats(x, ns)
    run_and_check(dy, x, ns, mean.astype(F32), rstd.astype(F32), w)
    run_and_check(dy, x, ns, mean.astype(F32), rstd.astype(F32), None, mask=(True, True, False))


# 16-bit rows split over cores in two chunks per slice: before the exchange's wait the kernel forms
# g and the fp32 x of row 0's first chunk (PrepareDxRow0), and pass 1 sums g * x when every chunk
# defers dgamma/dbeta (1024 x 12288) or g * (x - mean) when only the first does (300 x 20000): with
# x near zero, at 50 sigma (raw x) and at 500 sigma (centred).
@pytest.mark.parametrize("dtype", [F16, BF16])
@pytest.mark.parametrize("offset", [0.0, 50.0, 500.0], ids=["centred data", "raw x", "centred x"])
@pytest.mark.parametrize("shape", [(300, 20000), (1024, 12288)], ids=["first chunk deferred", "all deferred"])
def test_16bit_chunked_slices_with_work_before_the_wait(shape, offset, dtype):
    rng = np.random.default_rng(37)
    dy, x, ns, _, _, w = make_inputs(rng, shape, 1, dtype)
    x = (x.astype(np.float64) + offset).astype(dtype)
    mean, rstd = forward_stats(x, ns)
    run_and_check(dy, x, ns, mean.astype(F32), rstd.astype(F32), w)


@pytest.mark.parametrize("mask", list(itertools.product([True, False], repeat=3)))
def test_every_output_mask(mask):
    rng = np.random.default_rng(3)
    for shape in ((100, 200), (2, 6000)):
        run_and_check(*make_inputs(rng, shape, 1, F16, F32, F32), mask=mask)


@pytest.mark.parametrize("dtype", [F32, F16, BF16])
def test_weight_none_means_ones(dtype):
    rng = np.random.default_rng(5)
    dy, x, ns, mean, rstd, _ = make_inputs(rng, (33, 130), 1, dtype)
    got = run_and_check(dy, x, ns, mean, rstd, None)
    ones = normgrad.layer_norm_backward(dy, x, ns, mean, rstd, np.ones(ns, dtype))
    for a, b in zip(got, ones, strict=True):
        np.testing.assert_array_equal(a.view(np.uint16 if a.itemsize == 2 else np.uint32),
                                      b.view(np.uint16 if b.itemsize == 2 else np.uint32))


def test_strided_inputs():
    rng = np.random.default_rng(11)
    base = rng.standard_normal((40, 2, 96)).astype(np.float32)
    x = base[:, 1, :]  # a row stride of 192 elements
    dy = rng.standard_normal((96, 40)).astype(np.float32).T  # transposed
    mean_full, rstd_full = forward_stats(x, (96,))
    mean = np.repeat(mean_full.astype(np.float32), 2, axis=1)[:, ::2]  # strided [40, 1]
    rstd = rstd_full.astype(np.float32)
    w = rng.standard_normal(192).astype(np.float32)[::2]
    assert not x.flags.c_contiguous and not dy.flags.c_contiguous and not w.flags.c_contiguous
    run_and_check(dy, x, (96,), mean, rstd, w)


def test_empty_rows_give_zero_parameter_gradients():
    x = np.zeros((0, 16), np.float32)
    dx, dw, db = normgrad.layer_norm_backward(x, x, (16,), np.zeros((0, 1), np.float32),
                                              np.zeros((0, 1), np.float32), np.ones(16, np.float32))
    assert dx.shape == (0, 16)
    np.testing.assert_array_equal(dw, np.zeros(16, np.float32))
    np.testing.assert_array_equal(db, np.zeros(16, np.float32))


@pytest.mark.parametrize("shape", [(300, 512), (3, 70000), (5000, 96), (9, 600000)],
                         ids=["groups reduced in stage 2", "row slices", "short rows repeated over rows",
                              "two passes over column slices"])
def test_two_runs_are_bitwise_equal(shape):
    rng = np.random.default_rng(13)
    args = make_inputs(rng, shape, 1, BF16, F32, F32)
    first = normgrad.layer_norm_backward(*args)
    second = normgrad.layer_norm_backward(*args)
    for a, b in zip(first, second, strict=True):
        assert a.tobytes() == b.tobytes()


# Rows no group of cores can keep resident with gamma and the dgamma/dbeta sums of their slice
# (M >= 2 beyond about 433 K fp32 columns, M = 1 beyond about 1.08 M) stream twice over column
# slices: dy and x are read twice, so 5/3 of the minimum traffic.
TWO_PASS = [((4, 450000), F32), ((9, 600000), F16), ((2, 1100000), BF16), ((1, 1200000), F32)]


@pytest.mark.parametrize("shape,dtype", TWO_PASS, ids=["4x450000 f32", "9x600000 f16 (batches of 8 + 1)",
                                                      "2x1100000 bf16", "whole tensor 1.2 M f32"])
def test_rows_beyond_residency_stream_twice(shape, dtype):
    rng = np.random.default_rng(29)
    dy, x, ns, mean, rstd, w = make_inputs(rng, shape, 1, dtype)
    with _native.soc("ascend910b"):  # A2's 48 x 184 KiB; the 950's 72 x 248 KiB keep these rows resident
        run_and_check(dy, x, ns, mean, rstd, w)
        (launch,) = _native.last_run()
    assert launch["blockDim"] == 48 and not launch["warnings"]
    # dy and x twice, dx once, gamma once per pass, dgamma and dbeta once; stats and row sums are
    # the rest (under 1 %).
    moved = launch["bytesIn"] + launch["bytesOut"]
    expected = 5 * x.nbytes + 2 * w.nbytes + 2 * w.nbytes
    assert expected <= moved <= 1.01 * expected, (moved, expected)


@pytest.mark.parametrize("mask", [m for m in itertools.product([True, False], repeat=3) if any(m)])
def test_two_pass_every_output_mask(mask):
    rng = np.random.default_rng(31)
    # 1.2 M fp32 columns: no mask makes a slice of one row fit resident.
    with _native.soc("ascend910b"):  # A2's UB: the 950's 72 x 248 KiB keep these rows resident
        for with_weight in (True, False):
            run_and_check(*make_inputs(rng, (3, 1200000), 1, F32, with_weight=with_weight), mask=mask)
            (launch,) = _native.last_run()
            assert launch["syncUs"] == (2.0 if mask[0] else 0.0)  # one SyncAll, between the passes


def test_golden_matches_torch_autograd():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(17)
    x = rng.standard_normal((6, 4, 10))
    dy = rng.standard_normal((6, 4, 10))
    w = rng.standard_normal((4, 10))
    b = rng.standard_normal((4, 10))
    xt = torch.tensor(x, requires_grad=True)
    wt = torch.tensor(w, requires_grad=True)
    bt = torch.tensor(b, requires_grad=True)
    torch.nn.functional.layer_norm(xt, (4, 10), wt, bt, eps=1e-5).backward(torch.tensor(dy))
    mean, rstd = forward_stats(x, (4, 10), eps=1e-5)
    dx, dw, db = golden(dy, x, (4, 10), mean, rstd, w)
    np.testing.assert_allclose(dx, xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dw, wt.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(db, bt.grad.numpy(), rtol=1e-10, atol=1e-12)


# ---- error rows of the API (docs/layer_norm_grad.md), each with its status and the argument named ----

def call_raw(**overrides):
    """Calls the C API on a valid (4, 8) float32 problem with some arguments replaced."""
    rng = np.random.default_rng(0)
    arrays = {
        "gradOut": rng.standard_normal((4, 8)).astype(np.float32),
        "input": rng.standard_normal((4, 8)).astype(np.float32),
        "mean": np.zeros((4, 1), np.float32),
        "rstd": np.ones((4, 1), np.float32),
        "weight": np.ones(8, np.float32),
        "bias": np.zeros(8, np.float32),
        "gradInput": np.zeros((4, 8), np.float32),
        "gradWeight": np.zeros(8, np.float32),
        "gradBias": np.zeros(8, np.float32),
    }
    norm = overrides.pop("normalizedShape", [8])
    mask = overrides.pop("outputMask", [True, True, True])
    arrays.update(overrides)
    with ExitStack() as stack:
        t = {k: stack.enter_context(_native.tensor(v)) if v is not None else None
             for k, v in arrays.items()}
        norm_arg = stack.enter_context(_native.int_array(norm)) if norm is not None else None
        mask_arg = stack.enter_context(_native.bool_array(mask)) if mask is not None else None
        _native.call_aclnn(API, t["gradOut"], t["input"], norm_arg, t["mean"], t["rstd"], t["weight"],
                           t["bias"], mask_arg, t["gradInput"], t["gradWeight"], t["gradBias"])


def f32(*shape):
    return np.zeros(shape, np.float32)


ERROR_ROWS = [
    # 161001: null required arguments and requested outputs that are null
    (dict(gradOut=None), 161001, "gradOut"),
    (dict(input=None), 161001, "input"),
    (dict(normalizedShape=None), 161001, "normalizedShape"),
    (dict(mean=None), 161001, "mean"),
    (dict(rstd=None), 161001, "rstd"),
    (dict(outputMask=None), 161001, "outputMask"),
    (dict(gradInput=None), 161001, "gradInputOut"),
    (dict(gradWeight=None), 161001, "gradWeightOut"),
    (dict(gradBias=None), 161001, "gradBiasOut"),
    # 161002 row 1: dtypes
    (dict(gradOut=np.zeros((4, 8), np.int32)), 161002, "gradOut"),
    (dict(gradOut=np.zeros((4, 8), np.float16)), 161002, "gradOut"),
    (dict(mean=np.zeros((4, 1), np.float16), rstd=np.zeros((4, 1), np.float16)), 161002, "mean"),
    (dict(rstd=np.zeros((4, 1), BF16)), 161002, "rstd"),
    (dict(weight=np.ones(8, np.float16)), 161002, "weightOptional"),
    (dict(bias=np.ones(8, np.float16)), 161002, "biasOptional"),
    (dict(gradWeight=np.zeros(8, np.float16)), 161002, "gradWeightOut"),
    # row 2: gradOut shape
    (dict(gradOut=f32(4, 9)), 161002, "gradOut"),
    # row 3: normalizedShape empty
    (dict(normalizedShape=[]), 161002, "normalizedShape"),
    # rows 4, 5: mean/rstd element counts
    (dict(mean=f32(5, 1)), 161002, "mean"),
    (dict(rstd=f32(3)), 161002, "rstd"),
    # rows 6, 7: weight/bias shapes
    (dict(weight=np.ones(7, np.float32)), 161002, "weightOptional"),
    (dict(bias=np.ones((2, 4), np.float32)), 161002, "biasOptional"),
    # row 8: input rank below normalizedShape's
    (dict(normalizedShape=[1, 4, 8]), 161002, "fewer than normalizedShape"),
    # row 9: right-aligned mismatch, including a leading dim of a 3-D input
    (dict(normalizedShape=[9]), 161002, "dim 1 is 8, expected 9"),
    (dict(normalizedShape=[5, 8]), 161002, "dim 0 is 4, expected 5"),
    # row 10: outputMask length
    (dict(outputMask=[True, True]), 161002, "outputMask has 2 elements"),
]


@pytest.mark.parametrize("overrides,status,text", ERROR_ROWS, ids=[r[2] for r in ERROR_ROWS])
def test_error_rows(overrides, status, text):
    with pytest.raises(normgrad.AclnnError) as err:
        call_raw(**overrides)
    assert err.value.status == status
    assert text in err.value.message


def test_right_aligned_check_covers_every_dim_of_a_3d_input():
    # CANN's loop skips this case (3-D input, 1-D normalizedShape); every dim must be compared.
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    with pytest.raises(normgrad.AclnnError) as err:
        normgrad.layer_norm_backward(x, x, (3,), f32(2, 3, 1), f32(2, 3, 1))
    assert err.value.status == 161002 and "dim 2 is 4, expected 3" in err.value.message


def test_python_argument_types():
    with pytest.raises(TypeError, match="grad_out"):
        normgrad.layer_norm_backward([1.0], f32(1, 1), (1,), f32(1, 1), f32(1, 1))


# ---- Atlas training (ascend910) and inference (ascend310p) series: block-copy mode, soft SyncAll,
# FLOAT and FLOAT16 only ----
# Same golden and tolerances as above (the kernel's fp32 math is the same; fp32 -> fp16 rounds to
# nearest even by CAST_NONE there, so ROUNDING[F16] still bounds it). Each test runs on both
# families (the inference series on its default chip, 8 cores of 256 KiB); rows longer than
# INFERENCE_MAX_COLS are the inference series' limit (no two-pass mode; docs/layer_norm_grad.md).
BLOCK_COPY_SOCS = ["ascend910", "ascend310p"]
INFERENCE_MAX_COLS = 65536

TRAINING_SHAPES = [
    ((3, 1), "D = 1: rows under one block, one core packs dx"),
    ((50, 7), "D = 7: rows under one block"),
    ((4001, 3), "D = 3 on 32 cores: each core's dx starts on a block, the last takes the rest"),
    ((9, 1), "9 rows of D = 1: a last group under one block merges into the one before"),
    ((1, 7), "M = 1, D = 7: outputs under 32 bytes staged by the aclnn layer"),
    ((40, 15), "D = 15: under one fp16 block, two fp32 blocks"),
    ((9, 255), "odd D: whole blocks plus the block ending at the row's end"),
    ((5, 257), "odd D one past a repeat multiple"),
    ((48 * 3 + 5, 96), "whole rows on 32 cores, several batches per core"),
    ((7, 4096), "few tokens: rows split over cores, soft SyncAll per batch"),
    ((2, 131073), "odd long rows split over cores, chunked slices"),
    ((1, 262144), "whole-tensor normalization (M = 1) over all 32 cores"),
    ((2, 3, 4, 5), "normalization over 2 trailing dims"),
]


BLOCK_COPY_CASES = [(soc, shape, why) for soc in BLOCK_COPY_SOCS for shape, why in TRAINING_SHAPES
                    if soc == "ascend910" or shape[-1] <= INFERENCE_MAX_COLS]


@pytest.mark.parametrize("dtype", [F32, F16])
@pytest.mark.parametrize("soc,shape,why", BLOCK_COPY_CASES, ids=[f"{c[0]}-{c[2]}" for c in BLOCK_COPY_CASES])
def test_training_series_shapes_match_golden(soc, shape, why, dtype):
    rng = np.random.default_rng(23)
    nd = 2 if len(shape) == 4 else 1
    with _native.soc(soc):
        run_and_check(*make_inputs(rng, shape, nd, dtype, F32, dtype))
        run_and_check(*make_inputs(rng, shape, nd, dtype, with_weight=False), mask=(True, False, True))


# The four FLOAT16 combinations of the OpDef (stats and gamma in fp16 or fp32) and float32.
TRAINING_COMBOS = [(F32, F32, F32), (F16, F32, F32), (F16, F32, F16), (F16, F16, F16), (F16, F16, F32)]


@pytest.mark.parametrize("dtype,stats,weight", TRAINING_COMBOS,
                         ids=[f"{a}-{b}-{c}" for a, b, c in TRAINING_COMBOS])
@pytest.mark.parametrize("soc", BLOCK_COPY_SOCS)
def test_training_series_dtype_combinations(soc, dtype, stats, weight):
    rng = np.random.default_rng(29)
    with _native.soc(soc):
        for shape in ((61, 320), (3, 5000), (33, 9)):
            run_and_check(*make_inputs(rng, shape, 1, dtype, stats, weight))


@pytest.mark.parametrize("soc", BLOCK_COPY_SOCS)
@pytest.mark.parametrize("mask", list(itertools.product([True, False], repeat=3)))
def test_training_series_every_output_mask(mask, soc):
    rng = np.random.default_rng(31)
    with _native.soc(soc):
        for shape in ((100, 200), (2, 6000), (20, 7)):
            run_and_check(*make_inputs(rng, shape, 1, F16, F32, F32), mask=mask)


@pytest.mark.parametrize("shape", [(300, 512), (3, 70000), (500, 7)],
                         ids=["groups reduced in stage 2", "row slices", "rows under one block"])
@pytest.mark.parametrize("soc", BLOCK_COPY_SOCS)
def test_training_series_two_runs_are_bitwise_equal(shape, soc):
    rng = np.random.default_rng(37)
    args = make_inputs(rng, shape, 1, F16, F32, F32)
    with _native.soc(soc):
        first = normgrad.layer_norm_backward(*args)
        second = normgrad.layer_norm_backward(*args)
    for a, b in zip(first, second, strict=True):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("soc", [*BLOCK_COPY_SOCS, "Ascend310P1"])
def test_training_series_rejects_bfloat16_naming_the_soc(soc):
    rng = np.random.default_rng(41)
    with _native.soc(soc), pytest.raises(_native.AclnnError) as err:
        normgrad.layer_norm_backward(*make_inputs(rng, (4, 8), 1, BF16, F32, F32))
    assert err.value.status == 161002
    assert "gradOut has dtype bfloat16, expected FLOAT or FLOAT16" in str(err.value)
    assert f"SoC {soc} has no BFLOAT16" in str(err.value)


def test_inference_series_refuses_rows_its_cores_cannot_hold():
    # 8 cores x 256 KiB hold no 262144-column fp32 row with its buffers, and the series has no
    # two-pass mode: a 161002 naming the shape and the cores, before anything runs.
    rng = np.random.default_rng(43)
    with _native.soc("ascend310p"), pytest.raises(_native.AclnnError) as err:
        normgrad.layer_norm_backward(*make_inputs(rng, (1, 262144), 1, F32))
    assert err.value.status == 161002
    assert "D = 262144" in str(err.value) and "do not fit in the Unified Buffers of 8 cores" in str(err.value)
    assert "no two-pass mode" in str(err.value)
