"""normgrad.nn.SyncBatchNorm: BatchNorm over the union of every rank's batch (torch.distributed),
whose input gradient is normgrad::batch_norm_elemt_backward.

Forward, per channel, on each rank r with n_r values (n_r = 0 allowed):
  1. local mean_r and variance var_r (float32, torch.var_mean);
  2. one all_gather of [n_r, mean_r, var_r] in float64 (cast on the device), copied to the host;
  3. Chan's combination on the host, summed in rank order in float64: N = sum n_r, m2_r = n_r var_r,
     mean = sum n_r mean_r / N, var = (sum m2_r + n_r (mean_r - mean)^2) / N, invstd = 1/sqrt(var + eps).
  y = (x - mean) * invstd * weight + bias in float32, returned in x's dtype and memory format.
Backward:
  1. local sum_dy = sum dy, sum_dy_xmu = sum dy * (x - mean) (float32); dweight = sum_dy_xmu * invstd
     and dbias = sum_dy are this rank's, as in torch.nn.SyncBatchNorm: the data-parallel wrapper
     (DDP) all-reduces parameter gradients;
  2. one all_reduce (SUM) of [sum_dy, sum_dy_xmu];
  3. dx = normgrad::batch_norm_elemt_backward(dy, x, mean, invstd, weight, sum_dy, sum_dy_xmu, counter)
     with counter the per-rank counts n_r (int32) from the forward's gather.

Why an all_gather of local moments rather than an all_reduce of sum(x) and sum(x^2): ranks with
different batch sizes combine exactly, a float32 sum of squares loses the variance to cancellation
when |mean| >> std, the per-rank counts the kernel's counter takes come with it, and summing in rank
order gives every rank the same bits whatever the backend's reduction order. torch.nn.SyncBatchNorm
gathers too (mean and invstd, in the input's dtype).

Every rank must call forward and backward the same number of times (they are collectives), a rank
with an empty batch included. Without an initialized process group (or with one rank) there are no
collectives: the same math on the local batch. In eval mode the running statistics are used, through
torch's F.batch_norm (and its backward), as torch.nn.SyncBatchNorm does.

Under DistributedDataParallel, which averages the ranks' parameter gradients, the loss of rank r is
its samples' summed loss times world_size / N for the gradient of the whole batch's mean loss, with
shards of any size (docs/torch.md, examples/sync_batch_norm_ddp.py).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist
import torch.nn.functional as F  # noqa: N812
from torch.nn.modules.batchnorm import _BatchNorm

import normgrad.torch  # noqa: F401  (defines torch.ops.normgrad.*)

_WHO = "normgrad.nn.SyncBatchNorm"


def _channel_view(v: torch.Tensor, ndim: int) -> torch.Tensor:
    return v.reshape((1, -1) + (1,) * (ndim - 2))


def _reduce_dims(x: torch.Tensor) -> list[int]:
    return [0, *range(2, x.dim())]


def _all_gather(t: torch.Tensor, group: Any, world_size: int) -> torch.Tensor:
    """(world_size, *t.shape), row r from rank r. gloo has no all_gather_into_tensor: a list."""
    if world_size == 1:
        return t.unsqueeze(0)
    parts = [torch.empty_like(t) for _ in range(world_size)]
    dist.all_gather(parts, t, group=group)
    return torch.stack(parts)


def _global_stats(x: torch.Tensor, eps: float, group: Any, world_size: int) -> tuple:
    """mean and invstd (float32, [C]), unbiased variance (float64, for the running estimate) and
    the per-rank counts (int32, [world_size]) over all ranks' batches, on the host.

    On the device only float32 reductions, casts and the gather (HCCL gathers any dtype); the
    (world_size, 1 + 2C) float64 combination runs on the host, where float64 arithmetic exists on
    every backend (NPUs have little of it). The host needs the total for the check below anyway."""
    c = x.shape[1]
    n = x.numel() // c if c else 0
    local = torch.zeros(1 + 2 * c, dtype=torch.float64, device=x.device)
    local[0] = n
    if n > 0:
        var, mean = torch.var_mean(x.float(), dim=_reduce_dims(x), correction=0)
        local[1:1 + c] = mean
        local[1 + c:] = var
    rows = _all_gather(local, group, world_size).cpu()
    counts, means, m2s = rows[:, 0], rows[:, 1:1 + c], rows[:, 1 + c:] * rows[:, :1]
    total = counts.sum()
    if total <= 1:
        # Every rank sees the same total, so every rank raises: no rank is left waiting.
        raise ValueError(f"{_WHO}: expected more than 1 value per channel when training, got "
                         f"{int(total)} over {world_size} rank(s)")
    mean = (counts[:, None] * means).sum(0) / total
    var = (m2s + counts[:, None] * (means - mean) ** 2).sum(0) / total
    invstd = (var + eps).rsqrt()
    return mean.float(), invstd.float(), var * total / (total - 1), counts.to(torch.int32)


def _on(device: torch.device, dtype: torch.dtype, t: torch.Tensor) -> torch.Tensor:
    """t (on the host) cast there, then copied to device: no float64 arithmetic on the device."""
    return t.to(dtype).to(device)


class _SyncBatchNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None,
                running_mean: torch.Tensor | None, running_var: torch.Tensor | None, eps: float,
                momentum: float, group: Any, world_size: int) -> torch.Tensor:
        mean, invstd, unbiased_var, counts = _global_stats(x, eps, group, world_size)
        if running_mean is not None and running_var is not None:
            running_mean.mul_(1 - momentum).add_(_on(running_mean.device, running_mean.dtype, mean),
                                                 alpha=momentum)
            running_var.mul_(1 - momentum).add_(_on(running_var.device, running_var.dtype, unbiased_var),
                                                alpha=momentum)
        mean, invstd = _on(x.device, torch.float32, mean), _on(x.device, torch.float32, invstd)
        counts = _on(x.device, torch.int32, counts)
        scale = invstd if weight is None else invstd * weight.float()
        shift = -mean * scale if bias is None else bias.float() - mean * scale
        nd = x.dim()
        y = (x.float() * _channel_view(scale, nd) + _channel_view(shift, nd)).to(x.dtype)
        ctx.save_for_backward(x, weight, mean, invstd, counts)
        ctx.group, ctx.world_size = group, world_size
        ctx.bias_dtype = None if bias is None else bias.dtype
        return y

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple:
        x, weight, mean, invstd, counts = ctx.saved_tensors
        needs_dx, needs_dw, needs_db = ctx.needs_input_grad[:3]
        c, dims = x.shape[1], _reduce_dims(x)
        if x.numel() > 0:
            dy32 = dy.float()
            sum_dy = dy32.sum(dims)
            sum_dy_xmu = (dy32 * (x.float() - _channel_view(mean, x.dim()))).sum(dims)
        else:
            sum_dy = sum_dy_xmu = torch.zeros(c, dtype=torch.float32, device=x.device)
        # This rank's parameter gradients, before the all_reduce (see the module docstring).
        dw = (sum_dy_xmu * invstd).to(weight.dtype) if needs_dw and weight is not None else None
        db = sum_dy.to(ctx.bias_dtype) if needs_db and ctx.bias_dtype is not None else None
        dx = None
        if needs_dx:
            # requires_grad is the same on every rank (same model), so all ranks take this branch.
            sums = torch.cat([sum_dy, sum_dy_xmu])
            if ctx.world_size > 1:
                dist.all_reduce(sums, op=dist.ReduceOp.SUM, group=ctx.group)
            dx = torch.ops.normgrad.batch_norm_elemt_backward(
                dy, x, mean, invstd, weight, sums[:c], sums[c:], counts)
        return dx, dw, db, None, None, None, None, None, None


class SyncBatchNorm(_BatchNorm):
    """torch.nn.SyncBatchNorm's constructor, parameters, buffers, state_dict keys, process_group and
    convert_sync_batchnorm, running on any device torch.distributed has a backend for (gloo on CPU,
    HCCL on NPU) and whose input gradient is normgrad::batch_norm_elemt_backward. Input (N, C, *) in
    float32, float16 or bfloat16; N may be 0 on some ranks. See the module docstring for the algorithm.

    A _BatchNorm (as BatchNorm2d is) but not a torch.nn.SyncBatchNorm: DistributedDataParallel
    refuses any torch.nn.SyncBatchNorm in a CPU module ("SyncBatchNorm layers only work with GPU
    modules"), which would rule out gloo; code that looks for batch norms through _BatchNorm (weight
    decay filters, torch.nn.SyncBatchNorm.convert_sync_batchnorm) still finds this one."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, process_group: Any = None,
                 device: Any = None, dtype: torch.dtype | None = None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device,
                         dtype=dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input: torch.Tensor) -> None:  # noqa: A002
        if input.dim() < 2:
            raise ValueError(f"{_WHO}: expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002  (torch's argument name)
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError(f"{_WHO}: input has 0 channels (dimension 1); expected at least one")
        for name, t in (("input", input), ("weight", self.weight), ("bias", self.bias)):
            if t is not None and t.dtype not in (torch.float32, torch.float16, torch.bfloat16):
                raise TypeError(f"{_WHO}: {name} has dtype {t.dtype}; the Ascend C kernel supports "
                                f"torch.float32, torch.float16 and torch.bfloat16")
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average, as torch's
                momentum = 1.0 / float(self.num_batches_tracked.item())
        if not use_batch_stats:
            return F.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                                False, momentum, self.eps)
        track = self.training and self.track_running_stats
        group, world_size = None, 1
        if dist.is_available() and dist.is_initialized():
            group = self.process_group or dist.group.WORLD
            world_size = dist.get_world_size(group)
        return _SyncBatchNormFunction.apply(
            input, self.weight, self.bias, self.running_mean if track else None,
            self.running_var if track else None, self.eps, momentum, group, world_size)

    @classmethod
    def convert_sync_batchnorm(cls, module: torch.nn.Module, process_group: Any = None) -> torch.nn.Module:
        """torch.nn.SyncBatchNorm.convert_sync_batchnorm, making normgrad's SyncBatchNorm: every
        BatchNorm*d (and torch's SyncBatchNorm) in module becomes one sharing its parameters and
        buffers. Returns module, or the new layer if module itself is a batch norm. The class each
        layer had is kept for revert_sync_batchnorm."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, cls):
            out = _rebuilt(module, cls, process_group)
            if type(module) in _REVERTS_TO:
                out._normgrad_converted_from = type(module)
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out

    @classmethod
    def revert_sync_batchnorm(cls, module: torch.nn.Module) -> torch.nn.Module:
        """The reverse of convert_sync_batchnorm: every normgrad SyncBatchNorm in module becomes the
        class it was converted from when that was torch's BatchNorm1d/2d/3d or SyncBatchNorm (for
        single-process evaluation, export or conv-bn fusion, which look for those classes), sharing
        its parameters and buffers; any other (built directly, or from a user's subclass, whose
        constructor may differ) becomes torch.nn.SyncBatchNorm (our constructor). Returns module, or
        the new layer."""
        out = module
        if isinstance(module, cls):
            target = getattr(module, "_normgrad_converted_from", torch.nn.SyncBatchNorm)
            out = _rebuilt(module, target, module.process_group)
        for name, child in module.named_children():
            out.add_module(name, cls.revert_sync_batchnorm(child))
        return out


_REVERTS_TO = (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d, torch.nn.BatchNorm3d, torch.nn.SyncBatchNorm)


def _rebuilt(module: _BatchNorm, target: type, process_group: Any) -> _BatchNorm:
    """A target (a _BatchNorm class) with module's settings, sharing module's parameters and buffers
    (the very objects: an optimizer built before keeps working), training flag and qconfig, as
    torch.nn.SyncBatchNorm.convert_sync_batchnorm does. process_group goes to the SyncBatchNorm kinds."""
    sync = issubclass(target, (SyncBatchNorm, torch.nn.SyncBatchNorm))
    extra = {"process_group": process_group} if sync else {}
    out = target(module.num_features, module.eps, module.momentum, module.affine,
                 module.track_running_stats, bias=module.bias is not None, **extra)
    if module.affine:
        out.weight = module.weight
        out.bias = module.bias
    out.running_mean = module.running_mean
    out.running_var = module.running_var
    out.num_batches_tracked = module.num_batches_tracked
    out.train(module.training)
    if hasattr(module, "qconfig"):
        out.qconfig = module.qconfig
    return out
