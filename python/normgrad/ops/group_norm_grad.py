"""normgrad.group_norm_backward: GroupNorm backward through aclnnGroupNormBackward on the simulator."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack

import numpy as np

from normgrad import _native
from normgrad.ops._args import require_array, require_bools, require_int

_API = "aclnnGroupNormBackward"
_FUNC = "normgrad.group_norm_backward"


def group_norm_backward(
    grad_out: np.ndarray,
    x: np.ndarray,
    mean: np.ndarray,
    rstd: np.ndarray,
    gamma: np.ndarray | None,
    N: int,  # noqa: N803 - the aclnn interface's argument names
    C: int,  # noqa: N803
    HxW: int,  # noqa: N803
    group: int,
    output_mask: Sequence[bool] = (True, True, True),
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """(dx, dgamma, dbeta) of GroupNorm: the gradients with respect to x, gamma and beta.

    grad_out and x hold N*C*HxW elements in (N, C, *) order, mean and rstd N*group, gamma C (None
    means ones); all share one dtype: float32, float16 or ml_dtypes.bfloat16. Any layout is accepted
    (non-contiguous views are passed as strided tensors). dx has x's shape; dgamma and dbeta have
    gamma's shape ([C] without gamma); all have grad_out's dtype. An output whose output_mask entry
    is False is neither computed nor returned (None). Errors found by the aclnn layer raise
    normgrad.AclnnError (a ValueError with .status 161001 or 161002) naming the argument.
    """
    grad_out, x, mean, rstd = (require_array(_FUNC, name, value) for name, value in (
        ("grad_out", grad_out), ("x", x), ("mean", mean), ("rstd", rstd)))
    if gamma is not None:
        gamma = require_array(_FUNC, "gamma", gamma)
    n, c, hw, g = (require_int(_FUNC, name, value)
                   for name, value in (("N", N), ("C", C), ("HxW", HxW), ("group", group)))
    mask = require_bools(_FUNC, "output_mask", output_mask)
    # Without gamma the outputs dgamma/dbeta are [C]: allocate them only when C agrees with x, so
    # that a wrong C (2**40, say) is reported by the aclnn checks instead of allocated first.
    consistent = n >= 0 and c >= 0 and hw >= 0 and n * c * hw == x.size
    param_shape = gamma.shape if gamma is not None else ((c,) if consistent else (0,))
    with ExitStack() as stack:
        inputs = [stack.enter_context(_native.tensor(a, mapped=True)) if a is not None else None
                  for a in (grad_out, x, mean, rstd, gamma)]
        # Only the requested outputs are allocated (an unrequested dx would cost x's size).
        layouts = [(x.shape, grad_out.dtype), (param_shape, grad_out.dtype), (param_shape, grad_out.dtype)]
        outs = [stack.enter_context(_native.empty(*layouts[i])) if i < len(mask) and mask[i] else None
                for i in range(3)]
        mask_arg = stack.enter_context(_native.bool_array(mask))
        _native.call_aclnn(_API, *inputs, n, c, hw, g, mask_arg, *outs)
        result = tuple(o.take() if o is not None else None for o in outs)
    return result[0], result[1], result[2]
