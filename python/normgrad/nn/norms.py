"""normgrad.nn.GroupNorm and LayerNorm: torch.nn's modules with normgrad's backward kernels.

Subclasses that change only forward(): the parameters, buffers, state_dict keys, repr and
isinstance(m, torch.nn.GroupNorm) are torch's, so checkpoints load both ways and code that looks for
torch's norms (weight-decay filters, FSDP wrap policies) still finds them. The constructors check
first what torch's would let through or report without naming the module (num_groups = 0 is a
ZeroDivisionError there, float64 a dtype the kernels refuse only at the first backward).
"""

from __future__ import annotations

from typing import Any

import torch

from normgrad import torch as ngt
from normgrad.ops._args import require_int, require_ints


class GroupNorm(torch.nn.GroupNorm):
    """torch.nn.GroupNorm whose backward is normgrad::group_norm_backward (the forward is torch's,
    so y is F.group_norm's bit for bit). Input float32, float16 or bfloat16."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        who = "normgrad.nn.GroupNorm"
        channels = require_int(who, "num_channels", num_channels)
        groups = ngt.check_num_groups(who, num_groups, channels, "num_channels = {}")
        if dtype is not None:
            ngt.check_dtype(who, "dtype", dtype)
        super().__init__(groups, channels, eps, affine, device, dtype)

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002  (torch's argument name)
        return ngt.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)


class LayerNorm(torch.nn.LayerNorm):
    """torch.nn.LayerNorm whose backward is normgrad::layer_norm_backward (the forward is torch's,
    so y is F.layer_norm's bit for bit). Input float32, float16 or bfloat16."""

    def __init__(self, normalized_shape: int | list[int] | torch.Size, eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        who = "normgrad.nn.LayerNorm"
        shape = require_ints(who, "normalized_shape", normalized_shape)
        if any(n < 0 for n in shape):
            raise ValueError(f"{who}: normalized_shape {shape} has a negative dim")
        if dtype is not None:
            ngt.check_dtype(who, "dtype", dtype)
        super().__init__(shape, eps, elementwise_affine, bias, device, dtype)

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002
        return ngt.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)
