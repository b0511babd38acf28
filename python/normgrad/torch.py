"""normgrad's operators as PyTorch custom ops (torch.library, namespace ``normgrad``).

    import normgrad.torch as ngt
    y = ngt.group_norm(x, num_groups, weight, bias)       # backward runs normgrad's kernel
    dx, dw, db = torch.ops.normgrad.group_norm_backward(dy, x, mean, rstd, w, N, C, HxW, G, [True] * 3)

Ops (schemas are torch's, argument for argument):
  normgrad::group_norm_backward       like aten::native_group_norm_backward
  normgrad::layer_norm_backward       like aten::native_layer_norm_backward
  normgrad::batch_norm_elemt_backward like aten::batch_norm_backward_elemt
  normgrad::group_norm, normgrad::layer_norm   forward ops (torch's native_* forward) whose
                                      autograd formula calls the backward ops above.

On CPU the backward ops run the Ascend C kernels on normgrad's simulator through the NumPy API
(normgrad.ops). The ops are defined with Library.define rather than custom_op so that an output
whose output_mask entry is False comes back as None, exactly as aten's ops do. enable_npu()
loads the C++ extension normgrad._npu_ops (csrc/npu_ops.cpp), which registers the backward ops for
torch_npu's PrivateUse1 key (compile-checked here, never run: no NPU, no CANN).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np
import torch
import torch._prims_common

from normgrad.ops._args import require_int, require_ints

__all__ = ["enable_npu", "group_norm", "layer_norm"]

_NS = "normgrad"
SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)  # what the kernels take

_lib = torch.library.Library(_NS, "DEF")
_lib.define(
    "group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, Tensor? weight, "
    "SymInt N, SymInt C, SymInt HxW, int group, bool[3] output_mask) -> (Tensor, Tensor, Tensor)")
_lib.define(
    "layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, "
    "Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)")
_lib.define(
    "batch_norm_elemt_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor invstd, "
    "Tensor? weight, Tensor sum_dy, Tensor sum_dy_xmu, Tensor count) -> Tensor")
_lib.define(
    "group_norm(Tensor input, int num_groups, Tensor? weight, Tensor? bias, float eps) "
    "-> (Tensor, Tensor, Tensor)")
_lib.define(
    "layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) "
    "-> (Tensor, Tensor, Tensor)")


# ---- torch <-> NumPy ---------------------------------------------------------------------------

def _to_numpy(t: torch.Tensor | None) -> np.ndarray | None:
    """A NumPy view of a CPU tensor, strides kept (the NumPy API passes views to the kernel as
    strided tensors). bfloat16 goes through int16, the same bits, since NumPy has no bfloat16."""
    if t is None:
        return None
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def _to_torch(a: np.ndarray | None) -> torch.Tensor | None:
    if a is None:
        return None
    if a.dtype == np.dtype(ml_dtypes.bfloat16):
        return torch.from_numpy(np.ascontiguousarray(a).view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(a))


def _memory_format(x: torch.Tensor) -> torch.memory_format:
    """Tensor.suggest_memory_format(), which has no Python binding: torch's own port of it (safe
    on symbolic strides). aten's GroupNorm and BatchNorm kernels give y and dx this format, so a
    channels_last (3d) input gets channels_last results; LayerNorm's are always contiguous."""
    return torch._prims_common.suggest_memory_format(x)


def _like_input(out: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    # The NumPy API returns C-contiguous arrays; a channels_last input gets its gradient back in
    # its own format, as from aten (a copy, on this CPU path only).
    return out.contiguous(memory_format=_memory_format(x))


def _require_tensor(func: str, name: str, value: object) -> None:
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{func}: {name} must be a torch.Tensor, got {type(value).__name__}")


def check_dtype(who: str, name: str, dtype: torch.dtype) -> None:
    """TypeError naming who (the function: "normgrad::layer_norm", "normgrad.nn.LayerNorm"), the
    argument and the dtype unless it is one the kernels take (SUPPORTED_DTYPES). name "dtype" is a
    module constructor's dtype argument."""
    if dtype not in SUPPORTED_DTYPES:
        subject = "dtype is" if name == "dtype" else f"{name} has dtype"
        raise TypeError(f"{who}: {subject} {dtype}; the Ascend C kernel supports "
                        f"torch.float32, torch.float16 and torch.bfloat16")


def check_num_groups(who: str, num_groups: object, channels: int, channels_text: str) -> int:
    """num_groups as an int if it is a positive int dividing channels, else TypeError/ValueError
    naming who and num_groups; channels_text.format(channels) names the channels in the message."""
    groups = require_int(who, "num_groups", num_groups)
    if groups <= 0:
        raise ValueError(f"{who}: num_groups = {groups}; expected a positive number of groups")
    if channels % groups != 0:
        raise ValueError(f"{who}: num_groups = {groups} does not divide {channels_text.format(channels)}")
    return groups


def _mask(op: str, output_mask: Sequence[bool]) -> list[bool]:
    mask = [bool(m) for m in output_mask]
    if len(mask) != 3:
        raise ValueError(f"normgrad::{op}: output_mask has {len(mask)} entries, expected 3")
    return mask


# ---- GroupNorm backward ------------------------------------------------------------------------

def _gn_param_dtype(x: torch.Tensor, weight: torch.Tensor | None) -> torch.dtype:
    return weight.dtype if weight is not None else x.dtype


@torch.library.register_fake(f"{_NS}::group_norm_backward")
def _group_norm_backward_fake(grad_out: torch.Tensor, x: torch.Tensor, mean: torch.Tensor,
                              rstd: torch.Tensor, weight: torch.Tensor | None, N: Any, C: Any,  # noqa: N803
                              HxW: Any, group: int, output_mask: Sequence[bool]) -> tuple:  # noqa: N803
    mask = _mask("group_norm_backward", output_mask)
    dtype = _gn_param_dtype(x, weight)
    return (torch.empty_like(x, memory_format=_memory_format(x)) if mask[0] else None,
            x.new_empty((C,), dtype=dtype) if mask[1] else None,
            x.new_empty((C,), dtype=dtype) if mask[2] else None)


@torch.library.impl(f"{_NS}::group_norm_backward", "CPU", lib=_lib)
def _group_norm_backward_cpu(grad_out: torch.Tensor, x: torch.Tensor, mean: torch.Tensor,
                             rstd: torch.Tensor, weight: torch.Tensor | None, N: int, C: int,  # noqa: N803
                             HxW: int, group: int, output_mask: Sequence[bool]) -> tuple:  # noqa: N803
    from normgrad.ops.group_norm_grad import group_norm_backward

    op = "group_norm_backward"
    mask = _mask(op, output_mask)
    for name, t in (("grad_out", grad_out), ("input", x), ("mean", mean), ("rstd", rstd), ("weight", weight)):
        if t is not None:
            check_dtype(f"{_NS}::{op}", name, t.dtype)
    if grad_out.dtype != x.dtype:
        raise TypeError(f"normgrad::{op}: grad_out has dtype {grad_out.dtype}, expected input's {x.dtype}")
    args = [grad_out, x, mean, rstd, weight]
    if len({t.dtype for t in args if t is not None}) > 1:
        # torch's mixed precision (half/bf16 input, float32 stats and weight): the kernel takes one
        # dtype, so run it in float32 on the exactly widened input rather than round the stats.
        args = [t.float() if t is not None else None for t in args]
    dx, dw, db = group_norm_backward(*(_to_numpy(t) for t in args), N, C, HxW, group, mask)
    dtype = _gn_param_dtype(x, weight)
    return (_like_input(_to_torch(dx).to(x.dtype), x) if dx is not None else None,
            _to_torch(dw).to(dtype) if dw is not None else None,
            _to_torch(db).to(dtype) if db is not None else None)


# ---- LayerNorm backward ------------------------------------------------------------------------

@torch.library.register_fake(f"{_NS}::layer_norm_backward")
def _layer_norm_backward_fake(grad_out: torch.Tensor, x: torch.Tensor, normalized_shape: Sequence[Any],
                              mean: torch.Tensor, rstd: torch.Tensor, weight: torch.Tensor | None,
                              bias: torch.Tensor | None, output_mask: Sequence[bool]) -> tuple:
    mask = _mask("layer_norm_backward", output_mask)
    dtype = weight.dtype if weight is not None else x.dtype
    shape = tuple(normalized_shape)
    return (x.new_empty(x.shape) if mask[0] else None,
            x.new_empty(shape, dtype=dtype) if mask[1] else None,
            x.new_empty(shape, dtype=dtype) if mask[2] else None)


@torch.library.impl(f"{_NS}::layer_norm_backward", "CPU", lib=_lib)
def _layer_norm_backward_cpu(grad_out: torch.Tensor, x: torch.Tensor, normalized_shape: Sequence[int],
                             mean: torch.Tensor, rstd: torch.Tensor, weight: torch.Tensor | None,
                             bias: torch.Tensor | None, output_mask: Sequence[bool]) -> tuple:
    from normgrad.ops.layer_norm_grad import layer_norm_backward

    op = "layer_norm_backward"
    mask = _mask(op, output_mask)
    for name, t in (("grad_out", grad_out), ("input", x), ("mean", mean), ("rstd", rstd),
                    ("weight", weight), ("bias", bias)):
        if t is not None:
            check_dtype(f"{_NS}::{op}", name, t.dtype)
    # The kernel takes every dtype combination torch's forward produces (float32 stats and weight
    # with a half/bf16 input included), so the tensors go as they are.
    dx, dw, db = layer_norm_backward(*(_to_numpy(t) for t in (grad_out, x)), list(normalized_shape),
                                     *(_to_numpy(t) for t in (mean, rstd, weight, bias)), mask)
    return _to_torch(dx), _to_torch(dw), _to_torch(db)


# ---- BatchNorm element-wise backward -----------------------------------------------------------

@torch.library.register_fake(f"{_NS}::batch_norm_elemt_backward")
def _batch_norm_elemt_backward_fake(grad_out: torch.Tensor, x: torch.Tensor, mean: torch.Tensor,
                                    invstd: torch.Tensor, weight: torch.Tensor | None, sum_dy: torch.Tensor,
                                    sum_dy_xmu: torch.Tensor, count: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x, memory_format=_memory_format(x))


@torch.library.impl(f"{_NS}::batch_norm_elemt_backward", "CPU", lib=_lib)
def _batch_norm_elemt_backward_cpu(grad_out: torch.Tensor, x: torch.Tensor, mean: torch.Tensor,
                                   invstd: torch.Tensor, weight: torch.Tensor | None, sum_dy: torch.Tensor,
                                   sum_dy_xmu: torch.Tensor, count: torch.Tensor) -> torch.Tensor:
    from normgrad.ops.batch_norm_elemt_grad import batch_norm_elemt_backward

    op = "batch_norm_elemt_backward"
    for name, t in (("grad_out", grad_out), ("input", x), ("mean", mean), ("invstd", invstd),
                    ("weight", weight), ("sum_dy", sum_dy), ("sum_dy_xmu", sum_dy_xmu)):
        if t is not None:
            check_dtype(f"{_NS}::{op}", name, t.dtype)
    if count.dtype not in (torch.int32, torch.float16, torch.float32):
        raise TypeError(f"normgrad::{op}: count has dtype {count.dtype}, expected torch.int32 (as "
                        f"SyncBatchNorm passes it), torch.float16 or torch.float32")
    dx = batch_norm_elemt_backward(*(_to_numpy(t) for t in (grad_out, x, mean, invstd, weight, sum_dy,
                                                          sum_dy_xmu, count)))
    return _like_input(_to_torch(dx), x)


# ---- no double backward ------------------------------------------------------------------------

def _no_double_backward(name: str) -> Any:
    # Without an autograd formula torch would only warn and return zeros for a second derivative
    # through these ops (create_graph=True); an error is better than a silently wrong gradient.
    def backward(ctx: Any, *grads: Any) -> tuple:
        raise NotImplementedError(
            f"normgrad::{name}: double backward (a gradient of this gradient, create_graph=True) is "
            f"not supported; use torch.nn.functional's norm for second derivatives")

    return backward


for _name in ("group_norm_backward", "layer_norm_backward", "batch_norm_elemt_backward"):
    torch.library.register_autograd(f"{_NS}::{_name}", _no_double_backward(_name))


# ---- forward ops with autograd -----------------------------------------------------------------

def _check_forward_dtypes(who: str, x: torch.Tensor, weight: torch.Tensor | None,
                          bias: torch.Tensor | None) -> None:
    # The forward itself is torch's and would run in float64, but the backward kernel would not:
    # fail here, where the caller still knows which tensor it passed.
    for name, t in (("input", x), ("weight", weight), ("bias", bias)):
        if t is not None:
            _require_tensor(who, name, t)
            check_dtype(who, name, t.dtype)


def _stats_dtype(x: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None) -> torch.dtype:
    """The dtype of mean/rstd from torch's CPU native_group_norm/native_layer_norm: float32 for a
    half/bf16 input with float32 parameters (torch's mixed precision), else the input's."""
    mixed = x.dtype in (torch.float16, torch.bfloat16) and any(
        p is not None and p.dtype == torch.float32 for p in (weight, bias))
    return torch.float32 if mixed else x.dtype


@torch.library.impl(f"{_NS}::group_norm", "CompositeExplicitAutograd", lib=_lib)
def _group_norm_forward(x: torch.Tensor, num_groups: int, weight: torch.Tensor | None,
                        bias: torch.Tensor | None, eps: float) -> tuple:
    _check_forward_dtypes(f"{_NS}::group_norm", x, weight, bias)
    n, c = x.shape[0], x.shape[1]
    # aten's CPU kernel requires an input dense in its suggested memory format (F.group_norm makes
    # one the same way, so channels_last stays channels_last); the backward gets the original
    # view, which the kernel reads strided.
    hw = math.prod(x.shape[2:])
    return torch.ops.aten.native_group_norm(x.contiguous(memory_format=_memory_format(x)), weight, bias,
                                            n, c, hw, num_groups, eps)


@torch.library.register_fake(f"{_NS}::group_norm", lib=_lib)
def _group_norm_forward_fake(x: torch.Tensor, num_groups: int, weight: torch.Tensor | None,
                             bias: torch.Tensor | None, eps: float) -> tuple:
    _check_forward_dtypes(f"{_NS}::group_norm", x, weight, bias)
    if x.device.type != "cpu":
        return _group_norm_forward(x, num_groups, weight, bias, eps)  # that device's own meta kernel
    # aten's meta kernel gets the stats dtype of torch's mixed precision wrong on CPU (input dtype
    # where the CPU kernel returns float32), so the fake kernel says what the CPU kernel does.
    stats = x.new_empty((x.shape[0], num_groups), dtype=_stats_dtype(x, weight, bias))
    return (torch.empty_like(x, memory_format=_memory_format(x)), stats, torch.empty_like(stats))


def _group_norm_setup(ctx: Any, inputs: tuple, output: tuple) -> None:
    x, num_groups, weight, _, _ = inputs
    _, mean, rstd = output
    ctx.mark_non_differentiable(mean, rstd)
    ctx.save_for_backward(x, weight, mean, rstd)
    ctx.num_groups = num_groups


def _group_norm_grad(ctx: Any, dy: torch.Tensor, _dmean: Any, _drstd: Any) -> tuple:
    x, weight, mean, rstd = ctx.saved_tensors
    needs = ctx.needs_input_grad
    mask = [needs[0], needs[2], needs[3]]
    n, c = x.shape[0], x.shape[1]
    dx, dw, db = torch.ops.normgrad.group_norm_backward(
        dy, x, mean, rstd, weight, n, c, math.prod(x.shape[2:]), ctx.num_groups, mask)
    return dx, None, dw, db, None


torch.library.register_autograd(f"{_NS}::group_norm", _group_norm_grad, setup_context=_group_norm_setup)


@torch.library.impl(f"{_NS}::layer_norm", "CompositeExplicitAutograd", lib=_lib)
def _layer_norm_forward(x: torch.Tensor, normalized_shape: Sequence[int], weight: torch.Tensor | None,
                        bias: torch.Tensor | None, eps: float) -> tuple:
    _check_forward_dtypes(f"{_NS}::layer_norm", x, weight, bias)
    return torch.ops.aten.native_layer_norm(x, normalized_shape, weight, bias, eps)


@torch.library.register_fake(f"{_NS}::layer_norm", lib=_lib)
def _layer_norm_forward_fake(x: torch.Tensor, normalized_shape: Sequence[Any], weight: torch.Tensor | None,
                             bias: torch.Tensor | None, eps: float) -> tuple:
    _check_forward_dtypes(f"{_NS}::layer_norm", x, weight, bias)
    if x.device.type != "cpu":
        return _layer_norm_forward(x, normalized_shape, weight, bias, eps)  # that device's meta kernel
    # aten's meta kernel says float32 mean/rstd for a half/bf16 input (CUDA's rule); the CPU
    # kernel returns the input's dtype unless the parameters are float32 (torch's mixed precision).
    lead = x.shape[:x.dim() - len(normalized_shape)]
    stats = x.new_empty((*lead, *([1] * len(normalized_shape))), dtype=_stats_dtype(x, weight, bias))
    return (torch.empty_like(x, memory_format=torch.contiguous_format), stats, torch.empty_like(stats))


def _layer_norm_setup(ctx: Any, inputs: tuple, output: tuple) -> None:
    x, normalized_shape, weight, bias, _ = inputs
    _, mean, rstd = output
    ctx.mark_non_differentiable(mean, rstd)
    ctx.save_for_backward(x, weight, bias, mean, rstd)
    ctx.normalized_shape = list(normalized_shape)


def _layer_norm_grad(ctx: Any, dy: torch.Tensor, _dmean: Any, _drstd: Any) -> tuple:
    x, weight, bias, mean, rstd = ctx.saved_tensors
    needs = ctx.needs_input_grad
    dx, dw, db = torch.ops.normgrad.layer_norm_backward(
        dy, x, ctx.normalized_shape, mean, rstd, weight, bias, [needs[0], needs[2], needs[3]])
    return dx, None, dw, db, None


torch.library.register_autograd(f"{_NS}::layer_norm", _layer_norm_grad, setup_context=_layer_norm_setup)


def group_norm(x: torch.Tensor, num_groups: int, weight: torch.Tensor | None = None,
               bias: torch.Tensor | None = None, eps: float = 1e-5) -> torch.Tensor:
    """torch.nn.functional.group_norm whose backward is normgrad::group_norm_backward.

    x is (N, C, *); weight and bias (C,) or None. Only the gradients autograd asks for are computed.
    """
    who = "normgrad.torch.group_norm"
    _require_tensor(who, "input", x)
    if x.dim() < 2:
        raise ValueError(f"{who}: input has {x.dim()} dims {list(x.shape)}, expected at least 2 (N, C, *)")
    groups = check_num_groups(who, num_groups, x.shape[1], "the C = {} channels of input")
    _check_forward_dtypes(who, x, weight, bias)
    return torch.ops.normgrad.group_norm(x, groups, weight, bias, eps)[0]


def layer_norm(x: torch.Tensor, normalized_shape: int | Sequence[int], weight: torch.Tensor | None = None,
               bias: torch.Tensor | None = None, eps: float = 1e-5) -> torch.Tensor:
    """torch.nn.functional.layer_norm whose backward is normgrad::layer_norm_backward."""
    who = "normgrad.torch.layer_norm"
    _require_tensor(who, "input", x)
    shape = require_ints(who, "normalized_shape", normalized_shape)
    _check_forward_dtypes(who, x, weight, bias)
    return torch.ops.normgrad.layer_norm(x, shape, weight, bias, eps)[0]


# ---- torch_npu (PrivateUse1) -------------------------------------------------------------------

def _npu_extension_path() -> str | None:
    """The compiled NPU extension (normgrad/_npu_ops*.so, built by `pip install` where torch_npu
    imports), or None when this install has none."""
    import importlib.util

    spec = importlib.util.find_spec("normgrad._npu_ops")
    return spec.origin if spec is not None else None


def enable_npu() -> None:
    """Imports torch_npu and loads normgrad's NPU extension, which registers the three backward ops
    for NPU tensors (PrivateUse1) in C++ and calls aclnnGroupNormBackward, aclnnLayerNormBackward and
    aclnnBatchNormElemtBackward through torch_npu. Set ASCEND_CUSTOM_OPP_PATH to normgrad's OPP
    before the first import of torch_npu (it is read once, at load). Calling it again does nothing."""
    try:
        import torch_npu  # noqa: F401  (registers the "npu" device)
    except ImportError as err:
        raise ImportError(f"normgrad.torch.enable_npu: torch_npu cannot be imported ({err}); it needs "
                          f"an Ascend host with CANN installed") from err
    if torch._C._dispatch_has_kernel_for_dispatch_key(f"{_NS}::group_norm_backward", "PrivateUse1"):
        return
    path = _npu_extension_path()
    if path is None:
        raise ImportError("normgrad.torch.enable_npu: the NPU extension normgrad._npu_ops is not built in "
                          "this install; it is built by `pip install --no-build-isolation .` on a machine "
                          "where torch_npu imports and $ASCEND_HOME_PATH points at CANN (docs/torch.md)")
    torch.ops.load_library(path)  # its TORCH_LIBRARY_IMPL adds kernels to the schemas defined above
