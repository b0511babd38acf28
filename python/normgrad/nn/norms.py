"""normgrad.nn.GroupNorm and LayerNorm: torch.nn's modules with normgrad's backward kernels.

Subclasses that change only forward(): the constructor, parameters, buffers, state_dict keys,
repr and isinstance(m, torch.nn.GroupNorm) are torch's, so checkpoints load both ways and code that
looks for torch's norms (weight-decay filters, FSDP wrap policies) still finds them.
"""

from __future__ import annotations

import torch

from normgrad import torch as ngt


class GroupNorm(torch.nn.GroupNorm):
    """torch.nn.GroupNorm whose backward is normgrad::group_norm_backward (the forward is torch's,
    so y is F.group_norm's bit for bit). Input float32, float16 or bfloat16."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002  (torch's argument name)
        return ngt.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)


class LayerNorm(torch.nn.LayerNorm):
    """torch.nn.LayerNorm whose backward is normgrad::layer_norm_backward (the forward is torch's,
    so y is F.layer_norm's bit for bit). Input float32, float16 or bfloat16."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002
        return ngt.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)
