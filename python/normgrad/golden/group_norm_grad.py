"""Float64 GroupNorm backward from the math: the exact gradient of
y = (x - mean) * rstd * gamma + beta over groups of C/group channels (PyTorch's semantics).

With x̂ = (x - mean) * rstd and M = (C/group) * HxW elements per group (n, g):
    dx     = rstd * (gamma*dy - mean_M(gamma*dy) - x̂ * mean_M(gamma*dy*x̂))
    dgamma = sum over n and HxW of dy * x̂
    dbeta  = sum over n and HxW of dy
mean and rstd are taken as given (as torch's native_group_norm_backward does); when they are the
statistics of x this is the gradient of group_norm itself.
"""

from __future__ import annotations

import numpy as np


def group_norm_backward(grad_out: np.ndarray, x: np.ndarray, mean: np.ndarray, rstd: np.ndarray,
                        gamma: np.ndarray | None, n: int, c: int, hw: int,
                        group: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(dx shaped like x, dgamma [C], dbeta [C]), all float64."""
    d = c // group
    dy = np.asarray(grad_out, dtype=np.float64).reshape(n, group, d, hw)
    xs = np.asarray(x, dtype=np.float64).reshape(n, group, d, hw)
    mu = np.asarray(mean, dtype=np.float64).reshape(n, group, 1, 1)
    rs = np.asarray(rstd, dtype=np.float64).reshape(n, group, 1, 1)
    w = np.ones((group, d, 1)) if gamma is None else np.asarray(gamma, dtype=np.float64).reshape(group, d, 1)
    xhat = (xs - mu) * rs
    dbeta = dy.sum(axis=(0, 3)).reshape(c)
    dgamma = (dy * xhat).sum(axis=(0, 3)).reshape(c)
    wdy = dy * w
    if n * c * hw == 0:
        return np.zeros(np.shape(x)), dgamma, dbeta
    dx = rs * (wdy - wdy.mean(axis=(2, 3), keepdims=True)
               - xhat * (wdy * xhat).mean(axis=(2, 3), keepdims=True))
    return dx.reshape(np.shape(x)), dgamma, dbeta


def group_norm_forward_stats(x: np.ndarray, n: int, c: int, hw: int, group: int,
                             eps: float = 1e-5) -> tuple[np.ndarray, np.ndarray]:
    """(mean, rstd) of x per (n, group) in float64, as group_norm's forward saves them."""
    xs = np.asarray(x, dtype=np.float64).reshape(n, group, -1)
    mean = xs.mean(axis=2)
    var = xs.var(axis=2)
    return mean, 1.0 / np.sqrt(var + eps)
