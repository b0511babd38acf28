"""normgrad.batch_norm_elemt_backward: BatchNorm element-wise backward through aclnnBatchNormElemtBackward."""

from __future__ import annotations

from contextlib import ExitStack

import numpy as np

from normgrad import _native
from normgrad.ops._args import BN_COUNTER, FLOATS, require_array

_API = "aclnnBatchNormElemtBackward"
_FUNC = "normgrad.batch_norm_elemt_backward"


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
    """dx = (grad_out - sum_dy/total - (x - mean) * invstd**2 * sum_dy_xmu/total) * invstd * weight.

    Channel axis 1 of the 2-8-D grad_out and x (float32, float16 or ml_dtypes.bfloat16, any layout:
    views are passed strided); mean, invstd, weight, sum_dy, sum_dy_xmu: [C], any float dtype each;
    weight None means ones; counter: int32, float16 or float32 of any shape, total = its sum.
    dx has x's dtype. Errors found by the aclnn layer raise normgrad.AclnnError (a ValueError with
    .status 161001/161002) naming the argument.
    """
    arrays = [require_array(_FUNC, name, value, BN_COUNTER if name == "counter" else FLOATS)
              for name, value in (("grad_out", grad_out), ("x", x), ("mean", mean), ("invstd", invstd),
                                  ("sum_dy", sum_dy), ("sum_dy_xmu", sum_dy_xmu), ("counter", counter))]
    if weight is not None:
        weight = require_array(_FUNC, "weight", weight)
    with ExitStack() as stack:
        dy_t, x_t, mean_t, invstd_t, sum_dy_t, sum_dy_xmu_t, counter_t = (
            stack.enter_context(_native.tensor(a, mapped=True)) for a in arrays)
        weight_t = stack.enter_context(_native.tensor(weight, mapped=True)) if weight is not None else None
        dx_t = stack.enter_context(_native.empty(x.shape, x.dtype))
        _native.call_aclnn(_API, dy_t, x_t, mean_t, invstd_t, weight_t, sum_dy_t, sum_dy_xmu_t, counter_t,
                           dx_t)
        return dx_t.take()
