"""Float64 reference of LayerNorm backward, derived from the forward y = (x - mean) * rstd * w + b.

With M rows (the leading dims) of D elements (normalized_shape), xhat = (x - mean) * rstd, g = dy * w:
    dx     = rstd * (g - mean_D(g) - xhat * mean_D(g * xhat))
    dgamma = sum_M(dy * xhat),  dbeta = sum_M(dy)
The same expression PyTorch's native_layer_norm_backward evaluates with the given mean and rstd.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def layer_norm_backward(
    grad_out: np.ndarray,
    x: np.ndarray,
    normalized_shape: Sequence[int],
    mean: np.ndarray,
    rstd: np.ndarray,
    weight: np.ndarray | None = None,
    output_mask: Sequence[bool] = (True, True, True),
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """(dx, dweight, dbias) in float64; an entry is None where output_mask is False."""
    shape = tuple(int(n) for n in normalized_shape)
    lead = x.ndim - len(shape)
    rows = int(np.prod(x.shape[:lead], dtype=np.int64))
    cols = int(np.prod(shape, dtype=np.int64))
    dy = np.asarray(grad_out, dtype=np.float64).reshape(rows, cols)
    xs = np.asarray(x, dtype=np.float64).reshape(rows, cols)
    mu = np.asarray(mean, dtype=np.float64).reshape(rows, 1)
    rs = np.asarray(rstd, dtype=np.float64).reshape(rows, 1)
    w = np.ones(cols) if weight is None else np.asarray(weight, dtype=np.float64).reshape(cols)
    xhat = (xs - mu) * rs
    dx = dweight = dbias = None
    if output_mask[0]:
        g = dy * w
        if cols > 0:
            dx = rs * (g - g.mean(axis=1, keepdims=True) - xhat * (g * xhat).mean(axis=1, keepdims=True))
        else:
            dx = g
        dx = dx.reshape(x.shape)
    if output_mask[1]:
        dweight = (dy * xhat).sum(axis=0).reshape(shape)
    if output_mask[2]:
        dbias = dy.sum(axis=0).reshape(shape)
    return dx, dweight, dbias


def forward_stats(
    x: np.ndarray, normalized_shape: Sequence[int], eps: float = 1e-5
) -> tuple[np.ndarray, np.ndarray]:
    """(mean, rstd) of the forward pass in float64, shaped [A1..Ai, 1..1] as the forward op returns them."""
    nd = len(tuple(normalized_shape))
    axes = tuple(range(x.ndim - nd, x.ndim))
    xs = np.asarray(x, dtype=np.float64)
    mean = xs.mean(axis=axes, keepdims=True)
    var = xs.var(axis=axes, keepdims=True)
    return mean, 1.0 / np.sqrt(var + eps)
