"""The rows of the operator pages' parameter tables that the level-2 executor plans carry (the same
source as the NPU build: op_host/op_api/aclnn_*_backward.cpp over CANN's opdev surface), through the
C API on the simulator: any rank from 0 to 8, empty tensors, strided outputs (the plan's ViewCopy),
outputs shorter than a 32-byte block on the training series, all-false output masks, and negative
strides (refused when the tensor is made). Results are checked against the float64 goldens.
"""

from __future__ import annotations

from contextlib import ExitStack

import numpy as np
import pytest

import normgrad
from normgrad import _native
from normgrad.errors import AclError
from normgrad.golden.batch_norm_elemt_grad import batch_norm_elemt_backward as bn_golden
from normgrad.golden.batch_norm_elemt_grad import batch_stats
from normgrad.golden.group_norm_grad import group_norm_backward as gn_golden
from normgrad.golden.group_norm_grad import group_norm_forward_stats
from normgrad.golden.layer_norm_grad import forward_stats as ln_stats
from normgrad.golden.layer_norm_grad import layer_norm_backward as ln_golden

F32 = np.dtype(np.float32)
# float32 outputs are fp32 sums over at most a few hundred terms here, each rounding 2^-24
# relative: 1e-4 of the output's magnitude (with its rms as the floor, since dx and dgamma are
# differences of terms of that size) leaves a wide margin and still catches any wrong element.
TOL = 1e-4


def close(name: str, got: np.ndarray, want: np.ndarray) -> None:
    want = np.asarray(want, np.float64).reshape(got.shape)
    rms = float(np.sqrt(np.mean(want * want))) if want.size else 0.0
    bad = np.abs(got.astype(np.float64) - want) > TOL * (np.abs(want) + rms)
    assert not bad.any(), f"{name}: {int(bad.sum())} of {bad.size} elements off"


def strided_out(shape: tuple[int, ...], fill: float = 7.0) -> np.ndarray:
    """A view of every third element of a buffer filled with `fill`: a strided output."""
    n = int(np.prod(shape))
    return np.full(n * 3, fill, F32)[1::3].reshape(shape)


def untouched(t: _native.DeviceTensor, fill: float = 7.0) -> bool:
    """True when every storage element outside the every-third-element view still holds fill."""
    storage = t.storage().reshape(-1)
    return bool(np.all(storage[0::3] == fill) and np.all(storage[2::3] == fill))


def gn_inputs(n: int, c: int, hw: int, g: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((n, c, hw)) * 2 + 0.5).astype(F32)
    dy = rng.standard_normal((n, c, hw)).astype(F32)
    mean, rstd = group_norm_forward_stats(x, n, c, hw, g)
    gamma = (rng.standard_normal(c) * 0.5 + 1).astype(F32)
    return dy, x, mean.astype(F32), rstd.astype(F32), gamma


def test_group_norm_0d_gradout_and_input():
    # N = C = HxW = 1: one element, gradOut, input and gradInput 0-dimensional.
    dy, x, mean, rstd, gamma = gn_inputs(1, 1, 1, 1, seed=1)
    want = gn_golden(dy, x, mean, rstd, gamma, 1, 1, 1, 1)
    with ExitStack() as s:
        t = [s.enter_context(_native.tensor(a)) for a in (dy.reshape(()), x.reshape(()), mean.reshape(1),
                                                           rstd.reshape(1), gamma)]
        outs = [s.enter_context(_native.empty(shape, F32)) for shape in ((), (1,), (1,))]
        mask = s.enter_context(_native.bool_array([True, True, True]))
        _native.call_aclnn("aclnnGroupNormBackward", *t, 1, 1, 1, 1, mask, *outs)
        for name, o, w in zip(("dx", "dgamma", "dbeta"), outs, want, strict=True):
            close(name, o.numpy(), w)


def test_group_norm_strided_parameter_outputs():
    n, c, hw, g = 2, 16, 9, 4
    dy, x, mean, rstd, gamma = gn_inputs(n, c, hw, g, seed=2)
    want = gn_golden(dy, x, mean, rstd, gamma, n, c, hw, g)
    with ExitStack() as s:
        t = [s.enter_context(_native.tensor(a)) for a in (dy, x, mean, rstd, gamma)]
        dgamma, dbeta = (s.enter_context(_native.tensor(strided_out((c,)))) for _ in range(2))
        mask = s.enter_context(_native.bool_array([False, True, True]))
        _native.call_aclnn("aclnnGroupNormBackward", *t, n, c, hw, g, mask, None, dgamma, dbeta)
        close("dgamma", dgamma.numpy(), want[1])
        close("dbeta", dbeta.numpy(), want[2])
        assert untouched(dgamma) and untouched(dbeta), "a parameter gradient was written outside its view"


def test_group_norm_outputs_shorter_than_a_block_on_the_training_series():
    # C = 4 float32: dgamma and dbeta are 16 bytes, their allocations exactly that. The training
    # series' kernel writes whole 32-byte blocks, so the plan must not place them in the outputs
    # (the simulator faults a write past an allocation): they are copied out of the workspace.
    n, c, hw, g = 2, 4, 8, 2
    dy, x, mean, rstd, gamma = gn_inputs(n, c, hw, g, seed=3)
    want = gn_golden(dy, x, mean, rstd, gamma, n, c, hw, g)
    with normgrad.soc("ascend910"):
        got = normgrad.group_norm_backward(dy, x, mean, rstd, gamma, n, c, hw, g)
    for name, o, w in zip(("dx", "dgamma", "dbeta"), got, want, strict=True):
        close(name, o, w)


@pytest.mark.parametrize("with_outputs", [False, True], ids=["null outputs", "outputs given"])
def test_all_false_masks_compute_and_write_nothing(with_outputs):
    n, c, hw, g = 2, 8, 4, 2
    dy, x, mean, rstd, gamma = gn_inputs(n, c, hw, g, seed=4)
    ln_x, ln_dy = x.reshape(n, -1), dy.reshape(n, -1)
    ln_mean, ln_rstd = (a.astype(F32) for a in ln_stats(ln_x, (c * hw,)))
    with ExitStack() as s:
        mask = s.enter_context(_native.bool_array([False, False, False]))
        norm = s.enter_context(_native.int_array([c * hw]))

        def outs(*shapes):
            return [s.enter_context(_native.tensor(np.full(sh, 7.0, F32))) if with_outputs else None
                    for sh in shapes]

        gn_out = outs((n, c, hw), (c,), (c,))
        t = [s.enter_context(_native.tensor(a)) for a in (dy, x, mean, rstd, gamma)]
        _native.call_aclnn("aclnnGroupNormBackward", *t, n, c, hw, g, mask, *gn_out)
        ln_out = outs((n, c * hw), (c * hw,), (c * hw,))
        t = [s.enter_context(_native.tensor(a)) for a in (ln_dy, ln_x)]
        stats = [s.enter_context(_native.tensor(a)) for a in (ln_mean, ln_rstd)]
        _native.call_aclnn("aclnnLayerNormBackward", *t, norm, *stats, None, None, mask, *ln_out)
        for o in gn_out + ln_out:
            if o is not None:
                assert np.all(o.numpy() == 7.0), "an output left out by the mask was written"


def test_layer_norm_strided_outputs_and_8d_input():
    shape, nd = (2, 1, 3, 1, 2, 1, 2, 8), 2
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape).astype(F32)
    dy = rng.standard_normal(shape).astype(F32)
    mean, rstd = (a.astype(F32) for a in ln_stats(x, shape[-nd:]))
    w = rng.standard_normal(shape[-nd:]).astype(F32)
    want = ln_golden(dy, x, shape[-nd:], mean, rstd, w)
    with ExitStack() as s:
        t = [s.enter_context(_native.tensor(a)) for a in (dy, x)]
        norm = s.enter_context(_native.int_array(list(shape[-nd:])))
        st = [s.enter_context(_native.tensor(a)) for a in (mean, rstd, w)]
        outs = [s.enter_context(_native.tensor(strided_out(sh))) for sh in (shape, shape[-nd:], shape[-nd:])]
        mask = s.enter_context(_native.bool_array([True, True, True]))
        _native.call_aclnn("aclnnLayerNormBackward", *t, norm, *st, None, mask, *outs)
        for name, o, wnt in zip(("dx", "dweight", "dbias"), outs, want, strict=True):
            close(name, o.numpy(), wnt)
            assert untouched(o), f"{name} was written outside its view"


def test_layer_norm_no_rows_and_no_columns():
    # No rows: the parameter gradients are sums over nothing (zero). No normalized elements: every
    # output is empty and the call runs nothing.
    for rows, cols in ((0, 16), (3, 0)):
        x = np.zeros((rows, cols), F32)
        stats = np.zeros((rows, 1), F32)
        dx, dw, db = normgrad.layer_norm_backward(x, x, (cols,), stats, stats, np.ones(cols, F32))
        assert dx.shape == (rows, cols) and dw.shape == (cols,) and db.shape == (cols,)
        np.testing.assert_array_equal(dw, np.zeros(cols, F32))
        np.testing.assert_array_equal(db, np.zeros(cols, F32))


def bn_args(shape: tuple[int, ...], seed: int = 6) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    c = shape[1]
    x = rng.standard_normal(shape).astype(F32)
    dy = rng.standard_normal(shape).astype(F32)
    st = batch_stats(dy.astype(np.float64), x.astype(np.float64))
    count = int(np.prod(shape)) // c
    return {"grad_out": dy, "x": x, "mean": st["mean"].astype(F32), "invstd": st["invstd"].astype(F32),
            "weight": rng.standard_normal(c).astype(F32), "sum_dy": st["sum_dy"].astype(F32),
            "sum_dy_xmu": st["sum_dy_xmu"].astype(F32), "counter": np.array([count], np.int32)}


def test_batch_norm_strided_output_and_8d_input():
    shape = (2, 3, 1, 2, 1, 2, 1, 5)
    args = bn_args(shape)
    want = bn_golden(**args)
    with ExitStack() as s:
        t = [s.enter_context(_native.tensor(a)) for a in args.values()]
        dx = s.enter_context(_native.tensor(strided_out(shape)))
        _native.call_aclnn("aclnnBatchNormElemtBackward", *t, dx)
        close("dx", dx.numpy(), want)
        assert untouched(dx), "gradInput was written outside its view"


def test_batch_norm_empty_input_runs_nothing():
    shape = (0, 3, 4)
    args = bn_args((2, 3, 4))
    args["grad_out"] = args["x"] = np.zeros(shape, F32)
    got = normgrad.batch_norm_elemt_backward(**args)
    assert got.shape == shape


def test_negative_strides_are_refused_when_the_tensor_is_made():
    # aclCreateTensor refuses a negative stride, naming it, so no aclnn call ever sees one
    # (docs/fuzzing.md); the Python layer copies such NumPy views to a contiguous layout instead.
    with pytest.raises(AclError, match="negative entry at dim 0"):
        _native.DeviceTensor((4,), F32, (-1,), 3, (4,), host_storage=np.arange(4, dtype=F32))
