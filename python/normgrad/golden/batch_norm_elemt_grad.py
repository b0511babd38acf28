"""Float64 golden of BatchNorm element-wise backward (PyTorch's batch_norm_backward_elemt).

For y = (x - mean) * invstd * weight + bias with mean and invstd the batch statistics of x over
every axis but 1 (gathered over all ranks), the true dL/dx is

    dx = (dy - sum_dy/total - (x - mean) * invstd**2 * sum_dy_xmu/total) * invstd * weight

with sum_dy = sum(dy), sum_dy_xmu = sum(dy * (x - mean)) per channel and total = the number of
elements per channel, i.e. the sum of the per-rank counts in counter.
"""

from __future__ import annotations

import numpy as np


def _per_channel(v: np.ndarray, ndim: int) -> np.ndarray:
    return np.asarray(v, dtype=np.float64).reshape((1, -1) + (1,) * (ndim - 2))


def batch_norm_elemt_backward(
    grad_out: np.ndarray,
    x: np.ndarray,
    mean: np.ndarray,
    invstd: np.ndarray,
    weight: np.ndarray | None,
    sum_dy: np.ndarray,
    sum_dy_xmu: np.ndarray,
    counter: np.ndarray,
) -> np.ndarray:
    """dx in float64 (arguments as normgrad.batch_norm_elemt_backward takes them)."""
    total = np.asarray(counter, dtype=np.float64).sum()
    nd = x.ndim
    x64 = np.asarray(x, dtype=np.float64)
    dy64 = np.asarray(grad_out, dtype=np.float64)
    inv = _per_channel(invstd, nd)
    w = _per_channel(weight, nd) if weight is not None else 1.0
    mean_dy = _per_channel(sum_dy, nd) / total
    mean_dy_xmu = _per_channel(sum_dy_xmu, nd) / total
    return (dy64 - mean_dy - (x64 - _per_channel(mean, nd)) * inv * inv * mean_dy_xmu) * inv * w


def batch_stats(dy: np.ndarray, x: np.ndarray, eps: float = 1e-5) -> dict[str, np.ndarray]:
    """mean, invstd, sum_dy, sum_dy_xmu of one rank's batch, as a training forward and the
    reduce step of the backward compute them (float64)."""
    axes = (0,) + tuple(range(2, x.ndim))
    x64 = np.asarray(x, dtype=np.float64)
    dy64 = np.asarray(dy, dtype=np.float64)
    mean = x64.mean(axis=axes)
    var = x64.var(axis=axes)
    xmu = x64 - _per_channel(mean, x.ndim)
    return {
        "mean": mean,
        "invstd": 1.0 / np.sqrt(var + eps),
        "sum_dy": dy64.sum(axis=axes),
        "sum_dy_xmu": (dy64 * xmu).sum(axis=axes),
    }
