"""normgrad.layer_norm_backward: LayerNorm backward through aclnnLayerNormBackward on the simulator."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack

import numpy as np

from normgrad import _native
from normgrad.ops._args import require_array, require_bools, require_ints

_API = "aclnnLayerNormBackward"
_FUNC = "normgrad.layer_norm_backward"


def layer_norm_backward(
    grad_out: np.ndarray,
    x: np.ndarray,
    normalized_shape: Sequence[int],
    mean: np.ndarray,
    rstd: np.ndarray,
    weight: np.ndarray | None = None,
    bias: np.ndarray | None = None,
    output_mask: Sequence[bool] = (True, True, True),
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """(dx, dweight, dbias) of LayerNorm over the trailing normalized_shape dims of x.

    grad_out and x: float32, float16 or bfloat16 (ml_dtypes), any layout (views are passed strided).
    mean, rstd: [A1..Ai, 1..1] (or any shape with M elements), same dtype, at least as wide as x.
    weight: None means ones; bias is only checked. dweight/dbias have weight's dtype (x's without
    weight). Outputs whose output_mask entry is False are None. Argument errors the aclnn layer finds
    raise normgrad.AclnnError (a ValueError with .status 161001/161002) naming the argument.
    """
    grad_out, x, mean, rstd = (require_array(_FUNC, name, value) for name, value in (
        ("grad_out", grad_out), ("x", x), ("mean", mean), ("rstd", rstd)))
    if weight is not None:
        weight = require_array(_FUNC, "weight", weight)
    if bias is not None:
        bias = require_array(_FUNC, "bias", bias)
    shape = require_ints(_FUNC, "normalized_shape", normalized_shape)
    mask = require_bools(_FUNC, "output_mask", output_mask)
    param_dtype = weight.dtype if weight is not None else x.dtype
    # dweight/dbias have normalized_shape, allocated only when it matches x's trailing dims: a
    # wrong normalized_shape ([2**28] for x of 4 x 16, say) is reported by the aclnn checks
    # instead of allocated first.
    matches = 0 < len(shape) <= x.ndim and tuple(x.shape[x.ndim - len(shape):]) == tuple(shape)
    param_shape = shape if matches else [0]
    with ExitStack() as stack:
        t = [stack.enter_context(_native.tensor(a, mapped=True)) if a is not None else None
             for a in (grad_out, x, mean, rstd, weight, bias)]
        # Only the requested outputs are allocated (an unrequested dx would cost x's size).
        layouts = [(x.shape, x.dtype), (param_shape, param_dtype), (param_shape, param_dtype)]
        outs = [stack.enter_context(_native.empty(*layouts[i])) if i < len(mask) and mask[i] else None
                for i in range(3)]
        norm = stack.enter_context(_native.int_array(shape))
        mask_arg = stack.enter_context(_native.bool_array(mask))
        _native.call_aclnn(_API, t[0], t[1], norm, t[2], t[3], t[4], t[5], mask_arg, *outs)
        result = tuple(o.take() if o is not None else None for o in outs)
    return result[0], result[1], result[2]
