"""normgrad.torch: the torch.library ops, their fake kernels and autograd, checked against torch.

References: torch's own CPU native_group_norm_backward / native_layer_norm_backward (an independent
implementation), and the float64 NumPy goldens of normgrad.golden (the math, evaluated on the same
rounded inputs) where torch has no CPU kernel (batch_norm_backward_elemt) or where an error budget
per dtype is wanted.

Tolerances are max|ours - reference| / max|reference| per output, by the output's dtype:
  * float32: 2e-6. The kernels compute in float32; the reductions here have at most a few hundred
    terms, so rounding grows like sqrt(n) * 2**-24 ~ 1e-6 at worst (measured <= 2e-7).
  * float16: 2**-10, one ulp at the largest magnitude. The float32 result is rounded once to float16,
    half an ulp (2**-11); the rest is float32 noise (measured <= 4e-4).
  * bfloat16: 2**-7, one ulp, for the same reason with 8 significant bits (measured <= 3e-3).
Against torch both sides carry that error, and torch's CPU kernels round some intermediates to the
input dtype (LayerNorm fp16/bf16 dweight is ~2x our error), so the budget against torch is doubled.
"""

from __future__ import annotations

import importlib.util
import math
import sys
import types

import pytest

torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

import normgrad.torch as ngt  # noqa: E402
from normgrad.golden.batch_norm_elemt_grad import batch_norm_elemt_backward as bn_golden  # noqa: E402
from normgrad.golden.batch_norm_elemt_grad import batch_stats  # noqa: E402
from normgrad.golden.group_norm_grad import group_norm_backward as gn_golden  # noqa: E402
from normgrad.golden.layer_norm_grad import layer_norm_backward as ln_golden  # noqa: E402

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
TOL = {torch.float32: 2e-6, torch.float16: 2.0**-10, torch.bfloat16: 2.0**-7}
MASKS = [[True, True, True], [True, False, False], [False, True, False], [False, False, True],
         [False, True, True]]
ops = torch.ops.normgrad


def rel_err(ours: torch.Tensor, ref: object) -> float:
    ref64 = torch.as_tensor(np.asarray(ref), dtype=torch.float64) if not isinstance(ref, torch.Tensor) \
        else ref.double()
    assert ours.shape == ref64.shape
    scale = ref64.abs().max().item()
    return (ours.double() - ref64).abs().max().item() / (scale if scale > 0 else 1.0)


def np64(t: torch.Tensor | None) -> np.ndarray | None:
    return None if t is None else t.double().numpy()


def randn(shape: tuple[int, ...] | list[int], gen: torch.Generator, dtype: torch.dtype,
          scale: float = 1.0, shift: float = 0.0) -> torch.Tensor:
    return (torch.randn(shape, generator=gen) * scale + shift).to(dtype)


# ---- problem builders (torch's own forward supplies mean and rstd) ---------------------------

def gn_case(shape: tuple[int, ...], group: int, dtype: torch.dtype, param_dtype: torch.dtype | None = None,
            seed: int = 0) -> tuple:
    gen = torch.Generator().manual_seed(seed)
    pd = param_dtype or dtype
    x = randn(shape, gen, dtype, 2.0, 0.5)
    w, b = randn(shape[1:2], gen, pd), randn(shape[1:2], gen, pd)
    n, c = shape[0], shape[1]
    hw = math.prod(shape[2:])
    _, mean, rstd = torch.ops.aten.native_group_norm(x, w, b, n, c, hw, group, 1e-5)
    return randn(shape, gen, dtype), x, mean, rstd, w, n, c, hw, group


def ln_case(shape: tuple[int, ...], norm: list[int], dtype: torch.dtype,
            param_dtype: torch.dtype | None = None, seed: int = 0) -> tuple:
    gen = torch.Generator().manual_seed(seed)
    pd = param_dtype or dtype
    x = randn(shape, gen, dtype, 2.0, 0.5)
    w, b = randn(norm, gen, pd), randn(norm, gen, pd)
    _, mean, rstd = torch.ops.aten.native_layer_norm(x, norm, w, b, 1e-5)
    return randn(shape, gen, dtype), x, norm, mean, rstd, w, b


def bn_case(shape: tuple[int, ...], dtype: torch.dtype, weight: bool = True, seed: int = 0) -> tuple:
    gen = torch.Generator().manual_seed(seed)
    x, dy = randn(shape, gen, dtype, 2.0, 0.5), randn(shape, gen, dtype)
    st = {k: torch.from_numpy(v).float() for k, v in batch_stats(np64(dy), np64(x)).items()}
    per_channel = x.numel() // shape[1]
    # Two ranks' counts: the kernel must sum them (SyncBatchNorm passes count_all as int32).
    count = torch.tensor([per_channel // 2, per_channel - per_channel // 2], dtype=torch.int32)
    w = randn(shape[1:2], gen, torch.float32) if weight else None
    return dy, x, st["mean"], st["invstd"], w, st["sum_dy"], st["sum_dy_xmu"], count


# ---- opcheck: schema, fake kernel, autograd registration, AOT dispatch ------------------------

@pytest.mark.parametrize("mask", MASKS)
def test_opcheck_group_norm_backward(mask: list[bool]) -> None:
    args = gn_case((2, 6, 3, 2), 3, torch.float32)
    torch.library.opcheck(ops.group_norm_backward.default, (*args, mask))
    no_weight = (*args[:4], None, *args[5:])
    torch.library.opcheck(ops.group_norm_backward.default, (*no_weight, mask))


@pytest.mark.parametrize("mask", MASKS)
def test_opcheck_layer_norm_backward(mask: list[bool]) -> None:
    dy, x, norm, mean, rstd, w, b = ln_case((3, 4, 5), [5], torch.float32)
    torch.library.opcheck(ops.layer_norm_backward.default, (dy, x, norm, mean, rstd, w, b, mask))
    torch.library.opcheck(ops.layer_norm_backward.default, (dy, x, norm, mean, rstd, None, None, mask))


@pytest.mark.parametrize("weight", [True, False])
def test_opcheck_batch_norm_elemt_backward(weight: bool) -> None:
    torch.library.opcheck(ops.batch_norm_elemt_backward.default, bn_case((3, 4, 5), torch.float32, weight))


# Every dtype, and torch's mixed precision (half/bf16 input, float32 parameters, so float32
# mean/rstd): the fake kernels must give each output's real dtype, shape and strides.
DTYPE_PAIRS = [(torch.float32, torch.float32), (torch.float16, torch.float16),
               (torch.bfloat16, torch.bfloat16), (torch.float16, torch.float32),
               (torch.bfloat16, torch.float32)]


@pytest.mark.parametrize("dtype,param_dtype", DTYPE_PAIRS)
def test_opcheck_every_op_and_dtype(dtype: torch.dtype, param_dtype: torch.dtype) -> None:
    gen = torch.Generator().manual_seed(8)
    leaves = [randn(s, gen, d).requires_grad_() for s, d in (((2, 4, 3, 2), dtype), ((4,), param_dtype),
                                                              ((4,), param_dtype), ((2,), param_dtype))]
    x, w, b, w2 = leaves
    for xin in (x, x.detach().to(memory_format=torch.channels_last).requires_grad_()):
        torch.library.opcheck(ops.group_norm.default, (xin, 2, w, b, 1e-5))
        torch.library.opcheck(ops.group_norm.default, (xin, 2, None, None, 1e-5))
        torch.library.opcheck(ops.layer_norm.default, (xin, [2], w2, w2.detach().clone(), 1e-5))
        torch.library.opcheck(ops.layer_norm.default, (xin, [3, 2], None, None, 1e-5))
    gn = gn_case((2, 4, 6), 2, dtype, param_dtype)
    ln = ln_case((3, 8), [8], dtype, param_dtype)
    for mask in MASKS if dtype != torch.float32 else [[True] * 3]:  # float32's masks: the tests above
        torch.library.opcheck(ops.group_norm_backward.default, (*gn, mask))
        torch.library.opcheck(ops.layer_norm_backward.default, (*ln, mask))
    if dtype == param_dtype:
        torch.library.opcheck(ops.batch_norm_elemt_backward.default, bn_case((3, 4, 5), dtype))


def test_opcheck_forward_ops_with_autograd() -> None:
    gen = torch.Generator().manual_seed(1)
    x = randn((2, 4, 3), gen, torch.float32).requires_grad_()
    w = randn((4,), gen, torch.float32).requires_grad_()
    b = randn((4,), gen, torch.float32).requires_grad_()
    torch.library.opcheck(ops.group_norm.default, (x, 2, w, b, 1e-5))
    torch.library.opcheck(ops.layer_norm.default, (x, [3], w[:3].detach().requires_grad_(), None, 1e-5))


# ---- values against torch's CPU kernels and the float64 goldens --------------------------------

def check(ours: torch.Tensor, torch_ref: torch.Tensor | None, golden: object, dtype: torch.dtype) -> None:
    assert ours.dtype == dtype
    assert rel_err(ours, golden) <= TOL[dtype]
    if torch_ref is not None:
        assert torch_ref.dtype == dtype
        assert rel_err(ours, torch_ref) <= 2 * TOL[dtype]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,group", [((2, 8, 5, 7), 4), ((3, 32, 9), 8), ((1, 6, 130), 3)])
def test_group_norm_backward_matches_torch(dtype: torch.dtype, shape: tuple[int, ...], group: int) -> None:
    args = gn_case(shape, group, dtype)
    ours = ops.group_norm_backward(*args, [True] * 3)
    ref = torch.ops.aten.native_group_norm_backward(*args, [True] * 3)
    gold = gn_golden(*(np64(t) for t in args[:5]), *args[5:])
    for o, r, g in zip(ours, ref, gold, strict=True):
        check(o, r, g, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,norm", [((4, 3, 40), [40]), ((5, 7, 6), [7, 6]), ((3, 300), [300])])
def test_layer_norm_backward_matches_torch(dtype: torch.dtype, shape: tuple[int, ...],
                                           norm: list[int]) -> None:
    dy, x, norm, mean, rstd, w, b = ln_case(shape, norm, dtype)
    ours = ops.layer_norm_backward(dy, x, norm, mean, rstd, w, b, [True] * 3)
    ref = torch.ops.aten.native_layer_norm_backward(dy, x, norm, mean, rstd, w, b, [True] * 3)
    gold = ln_golden(np64(dy), np64(x), norm, np64(mean), np64(rstd), np64(w))
    for o, r, g in zip(ours, ref, gold, strict=True):
        check(o, r, g, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3, 5, 2), (2, 16, 33), (8, 5)])
@pytest.mark.parametrize("weight", [True, False])
def test_batch_norm_elemt_backward_matches_golden(dtype: torch.dtype, shape: tuple[int, ...],
                                                  weight: bool) -> None:
    args = bn_case(shape, dtype, weight)
    dx = ops.batch_norm_elemt_backward(*args)
    check(dx, None, bn_golden(*(np64(t) for t in args[:7]), args[7].numpy()), dtype)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_mixed_precision_float32_stats_and_weight(dtype: torch.dtype) -> None:
    # torch's mixed precision: half/bf16 input, float32 weight, hence float32 mean/rstd; dx keeps
    # the input dtype and the parameter gradients are float32 (computed in float32, so fp32 budget).
    args = gn_case((2, 8, 12), 4, dtype, torch.float32)
    assert args[2].dtype == torch.float32
    ours = ops.group_norm_backward(*args, [True] * 3)
    gold = gn_golden(*(np64(t) for t in args[:5]), *args[5:])
    check(ours[0], None, gold[0], dtype)
    check(ours[1], None, gold[1], torch.float32)
    check(ours[2], None, gold[2], torch.float32)
    dy, x, norm, mean, rstd, w, b = ln_case((6, 24), [24], dtype, torch.float32)
    ours = ops.layer_norm_backward(dy, x, norm, mean, rstd, w, b, [True] * 3)
    gold = ln_golden(np64(dy), np64(x), norm, np64(mean), np64(rstd), np64(w))
    check(ours[0], None, gold[0], dtype)
    check(ours[1], None, gold[1], torch.float32)
    check(ours[2], None, gold[2], torch.float32)


# ---- masks and None -----------------------------------------------------------------------------

@pytest.mark.parametrize("mask", MASKS)
def test_masked_outputs_are_none_and_the_rest_unchanged(mask: list[bool]) -> None:
    args = gn_case((2, 6, 10), 3, torch.float32)
    full = ops.group_norm_backward(*args, [True] * 3)
    part = ops.group_norm_backward(*args, mask)
    dy, x, norm, mean, rstd, w, b = ln_case((4, 10), [10], torch.float32)
    ln_full = ops.layer_norm_backward(dy, x, norm, mean, rstd, w, b, [True] * 3)
    ln_part = ops.layer_norm_backward(dy, x, norm, mean, rstd, w, b, mask)
    for m, f, p, lf, lp in zip(mask, full, part, ln_full, ln_part, strict=True):
        if m:
            # Deterministic kernels: the same gradient bit for bit whatever else is computed.
            assert torch.equal(p, f) and torch.equal(lp, lf)
        else:
            assert p is None and lp is None


def test_no_weight_means_ones() -> None:
    # torch's CPU kernels raise for weight=None with dgamma/dbeta requested, so the reference is
    # torch with an explicit ones weight (the same function).
    dy, x, mean, rstd, _, n, c, hw, g = gn_case((2, 6, 7), 3, torch.float32)
    ours = ops.group_norm_backward(dy, x, mean, rstd, None, n, c, hw, g, [True] * 3)
    ref = torch.ops.aten.native_group_norm_backward(dy, x, mean, rstd, torch.ones(c), n, c, hw, g, [True] * 3)
    for o, r in zip(ours, ref, strict=True):
        assert rel_err(o, r) <= 2 * TOL[torch.float32]
    dy, x, norm, mean, rstd, _, _ = ln_case((5, 9), [9], torch.float32)
    ours = ops.layer_norm_backward(dy, x, norm, mean, rstd, None, None, [True] * 3)
    ref = torch.ops.aten.native_layer_norm_backward(dy, x, norm, mean, rstd, torch.ones(9), torch.zeros(9),
                                                    [True] * 3)
    for o, r in zip(ours, ref, strict=True):
        assert rel_err(o, r) <= 2 * TOL[torch.float32]


# ---- non-contiguous inputs ----------------------------------------------------------------------

def test_non_contiguous_inputs() -> None:
    gen = torch.Generator().manual_seed(3)
    # x and dy are (N, C, HW) views of transposed / sliced storage; weight is a stride-0 expand.
    x = randn((2, 7, 6), gen, torch.float32, 2.0, 0.5).transpose(1, 2)  # (2, 6, 7)
    dy = randn((2, 6, 14), gen, torch.float32)[:, :, ::2]
    w = randn((1,), gen, torch.float32).expand(6)
    assert not x.is_contiguous() and not dy.is_contiguous()
    # torch's CPU GroupNorm kernels insist on contiguous tensors, so the reference gets copies.
    xc, dyc, wc = x.contiguous(), dy.contiguous(), w.contiguous()
    _, mean, rstd = torch.ops.aten.native_group_norm(xc, wc, None, 2, 6, 7, 3, 1e-5)
    ours = ops.group_norm_backward(dy, x, mean, rstd, w, 2, 6, 7, 3, [True] * 3)
    ref = torch.ops.aten.native_group_norm_backward(dyc, xc, mean, rstd, wc, 2, 6, 7, 3, [True] * 3)
    for o, r in zip(ours, ref, strict=True):
        assert o.is_contiguous() and rel_err(o, r) <= 2 * TOL[torch.float32]

    xl = randn((16, 5), gen, torch.bfloat16, 2.0, 0.5).t()  # (5, 16)
    dyl = randn((5, 32), gen, torch.bfloat16)[:, 1::2]
    _, mean, rstd = torch.ops.aten.native_layer_norm(xl, [16], None, None, 1e-5)
    ours = ops.layer_norm_backward(dyl, xl, [16], mean, rstd, None, None, [True, False, False])
    gold = ln_golden(np64(dyl), np64(xl), [16], np64(mean), np64(rstd))
    assert rel_err(ours[0], gold[0]) <= TOL[torch.bfloat16]

    dy, x, mean, invstd, w, sdy, sdyx, count = bn_case((3, 4, 10), torch.float16)
    x_t, dy_t = x.transpose(0, 2).contiguous().transpose(0, 2), dy[:, :, :]
    assert not x_t.is_contiguous()
    dx = ops.batch_norm_elemt_backward(dy_t, x_t, mean, invstd, w, sdy, sdyx, count)
    gold = bn_golden(*(np64(t) for t in (dy, x, mean, invstd, w, sdy, sdyx)), count.numpy())
    assert rel_err(dx, gold) <= TOL[torch.float16]


# ---- forward wrappers: gradients against torch.nn.functional ------------------------------------

class Recorder(TorchDispatchMode):
    """Records the output_mask each normgrad backward op is called with."""

    def __init__(self) -> None:
        super().__init__()
        self.masks: list[list[bool]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
        if func in (ops.group_norm_backward.default, ops.layer_norm_backward.default):
            self.masks.append(list(args[-1]))
        return func(*args, **(kwargs or {}))


def leaf(t: torch.Tensor | None, grad: bool) -> torch.Tensor | None:
    return None if t is None else t.detach().clone().requires_grad_(grad)


# Float32, not float64: the kernels compute in float32 (float64 is rejected), so the comparison is
# with torch's float32 gradients under the float32 budget rather than gradcheck's finite differences.
@pytest.mark.parametrize("needs", [(True, True, True), (True, False, False), (False, True, True),
                                   (False, False, True)])
@pytest.mark.parametrize("op", ["group_norm", "layer_norm"])
def test_forward_wrapper_gradients_match_functional(op: str, needs: tuple[bool, bool, bool]) -> None:
    gen = torch.Generator().manual_seed(4)
    x = randn((3, 6, 5), gen, torch.float32, 2.0, 0.5)
    pshape = (6,) if op == "group_norm" else (6, 5)
    w, b = randn(pshape, gen, torch.float32), randn(pshape, gen, torch.float32)
    dy = randn(x.shape, gen, torch.float32)

    def run(fn: object, *extra: object) -> tuple:
        leaves = [leaf(x, needs[0]), leaf(w, needs[1]), leaf(b, needs[2])]
        y = fn(leaves[0], *extra, leaves[1], leaves[2], 1e-5)  # type: ignore[operator]
        y.backward(dy)
        return y, [t.grad for t in leaves]

    ours_fn, ref_fn, extra = ((ngt.group_norm, torch.nn.functional.group_norm, (2,)) if op == "group_norm"
                              else (ngt.layer_norm, torch.nn.functional.layer_norm, ([6, 5],)))
    with Recorder() as rec:
        y, grads = run(ours_fn, *extra)
    y_ref, grads_ref = run(ref_fn, *extra)
    assert rec.masks == [list(needs)]
    assert torch.equal(y, y_ref)  # the forward is torch's own
    for need, g, r in zip(needs, grads, grads_ref, strict=True):
        if need:
            assert rel_err(g, r) <= 2 * TOL[torch.float32]
        else:
            assert g is None


def test_forward_wrapper_without_affine_parameters() -> None:
    gen = torch.Generator().manual_seed(5)
    x = randn((2, 4, 9), gen, torch.bfloat16, 2.0, 0.5)
    dy = randn(x.shape, gen, torch.bfloat16)
    for ours_fn, ref_fn, extra in ((ngt.group_norm, torch.nn.functional.group_norm, 2),
                                   (ngt.layer_norm, torch.nn.functional.layer_norm, 9)):
        a, r = x.clone().requires_grad_(), x.clone().requires_grad_()
        ours_fn(a, extra).backward(dy)
        ref_fn(r, [extra] if ref_fn is torch.nn.functional.layer_norm else extra).backward(dy)
        assert a.grad.dtype == torch.bfloat16
        assert rel_err(a.grad, r.grad) <= 2 * TOL[torch.bfloat16]


def test_torch_compile_fullgraph_gives_the_eager_gradients() -> None:
    # The fake kernels and autograd registration let AOTAutograd trace both ops without graph
    # breaks; the compiled graph calls the same deterministic kernels, so the bits are the same.
    def loss(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return (ngt.group_norm(x, 2, w, b) * ngt.layer_norm(x, [5])).sum()

    gen = torch.Generator().manual_seed(6)
    inputs = [randn(s, gen, torch.float32).requires_grad_() for s in ((3, 4, 5), (4,), (4,))]
    compiled = torch.compile(loss, fullgraph=True, backend="aot_eager")
    got = torch.autograd.grad(compiled(*inputs), inputs)
    want = torch.autograd.grad(loss(*inputs), inputs)
    for g, w in zip(got, want, strict=True):
        assert torch.equal(g, w)


def test_double_backward_raises_instead_of_returning_zeros() -> None:
    gen = torch.Generator().manual_seed(7)
    x = randn((3, 4), gen, torch.float32).requires_grad_()
    (g,) = torch.autograd.grad(ngt.layer_norm(x, 4).pow(2).sum(), x, create_graph=True)
    with pytest.raises(NotImplementedError, match=r"layer_norm_backward: double backward"):
        g.sum().backward()


# ---- errors -------------------------------------------------------------------------------------

def test_errors_name_the_op_argument_and_values() -> None:
    args = gn_case((2, 4, 3), 2, torch.float32)
    with pytest.raises(TypeError, match=r"grad_out has dtype torch.float64; the Ascend C kernel supports"):
        ops.group_norm_backward(args[0].double(), args[1].double(), *args[2:], [True] * 3)
    with pytest.raises(ValueError, match=r"gamma"):
        ops.group_norm_backward(*args[:4], torch.ones(5), *args[5:], [True] * 3)
    bn = bn_case((2, 3, 4), torch.float32)
    with pytest.raises(TypeError, match=r"count has dtype torch.int64"):
        ops.batch_norm_elemt_backward(*bn[:7], bn[7].long())
    with pytest.raises(ValueError, match=r"group_norm: num_groups = 4 does not divide the C = 6 channels"):
        ngt.group_norm(torch.ones(2, 6, 3), 4)


@pytest.mark.parametrize("op", ["group_norm", "layer_norm"])
def test_float64_input_fails_in_the_forward_naming_the_dtype(op: str) -> None:
    # Before: torch's forward ran in float64 and only the backward kernel refused it.
    x = torch.randn(2, 4, 3, dtype=torch.float64, requires_grad=True)
    w = torch.ones(4 if op == "group_norm" else 3, dtype=torch.float64)
    call = ((lambda t, p: ngt.group_norm(t, 2, p)) if op == "group_norm"
            else (lambda t, p: ngt.layer_norm(t, 3, p)))
    with pytest.raises(TypeError, match=rf"normgrad.torch.{op}: input has dtype torch.float64; the Ascend C"):
        call(x, None)
    with pytest.raises(TypeError, match=rf"normgrad.torch.{op}: weight has dtype torch.float64"):
        call(x.detach().float(), w)
    # The op itself, called directly, names itself.
    size = 2 if op == "group_norm" else [3]
    with pytest.raises(TypeError, match=rf"normgrad::{op}: input has dtype torch.float64; the Ascend C"):
        getattr(torch.ops.normgrad, op)(x, size, None, None, 1e-5)


# ---- memory format ------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(2, 8, 5, 3), (2, 8, 3, 2, 4)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_channels_last_input_keeps_its_memory_format(shape: tuple[int, ...], dtype: torch.dtype) -> None:
    # F.group_norm keeps channels_last (3d) in y and in dx (aten's backward); so must we. LayerNorm's
    # outputs are contiguous in torch, whatever the input's format.
    fmt = torch.channels_last if len(shape) == 4 else torch.channels_last_3d
    gen = torch.Generator().manual_seed(9)
    x = randn(shape, gen, dtype, 2.0, 0.5).contiguous(memory_format=fmt)
    dy = randn(shape, gen, dtype).contiguous(memory_format=fmt)
    a, r = x.clone().requires_grad_(), x.clone().requires_grad_()
    y, y_ref = ngt.group_norm(a, 4), torch.nn.functional.group_norm(r, 4)
    assert y_ref.is_contiguous(memory_format=fmt) and not y_ref.is_contiguous()
    assert y.is_contiguous(memory_format=fmt) and y.stride() == y_ref.stride()
    assert torch.equal(y, y_ref)  # the forward is torch's own
    (dx,) = torch.autograd.grad(y, a, dy)
    (dx_ref,) = torch.autograd.grad(y_ref, r, dy)
    assert dx.is_contiguous(memory_format=fmt) and dx.stride() == dx_ref.stride()
    assert rel_err(dx, dx_ref) <= 2 * TOL[dtype]
    dy_bn, x_bn, *stats = bn_case(shape, dtype)
    dx_bn = ops.batch_norm_elemt_backward(dy_bn.contiguous(memory_format=fmt),
                                          x_bn.contiguous(memory_format=fmt), *stats)
    assert dx_bn.is_contiguous(memory_format=fmt)
    assert torch.equal(dx_bn, ops.batch_norm_elemt_backward(dy_bn, x_bn, *stats))
    y_ln = ngt.layer_norm(x, shape[-1])
    assert y_ln.is_contiguous() and torch.equal(y_ln, torch.nn.functional.layer_norm(x, shape[-1:]))


# ---- torch_npu path (registration only: no NPU here) --------------------------------------------

def test_enable_npu_without_the_extension_names_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    # torch_npu importing (a stand-in module) but no compiled normgrad._npu_ops in this install
    monkeypatch.setitem(sys.modules, "torch_npu", types.ModuleType("torch_npu"))
    monkeypatch.setattr(ngt, "_npu_extension_path", lambda: None)
    want = (r"enable_npu: the NPU extension normgrad\._npu_ops is not built in this install; "
            r"it is built by `pip install --no-build-isolation \.`")
    with pytest.raises(ImportError, match=want):
        ngt.enable_npu()
    assert not torch._C._dispatch_has_kernel_for_dispatch_key("normgrad::group_norm_backward", "PrivateUse1")


@pytest.mark.skipif(importlib.util.find_spec("torch_npu") is not None, reason="torch_npu is installed")
def test_enable_npu_without_torch_npu_says_why() -> None:
    with pytest.raises(ImportError, match=r"enable_npu: torch_npu cannot be imported"):
        ngt.enable_npu()
