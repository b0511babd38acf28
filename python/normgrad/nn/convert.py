"""normgrad.nn.convert: swap a model's torch.nn.GroupNorm/LayerNorm for normgrad's, and back."""

from __future__ import annotations

import torch

from normgrad.nn.norms import GroupNorm, LayerNorm

_TO_NORMGRAD: dict[type, type] = {torch.nn.GroupNorm: GroupNorm, torch.nn.LayerNorm: LayerNorm}
_TO_TORCH: dict[type, type] = {v: k for k, v in _TO_NORMGRAD.items()}


def convert(module: torch.nn.Module, *, back: bool = False) -> torch.nn.Module:
    """Makes every torch.nn.GroupNorm and torch.nn.LayerNorm in module (itself included) normgrad's
    (back=True: the reverse) and returns module.

    In place, by changing each module's class: normgrad's modules are subclasses that only replace
    forward(), so the very same Parameter objects (an optimizer built before keeps working), buffers,
    hooks, device, dtype and training flag stay. Only those exact classes are swapped; a user's
    subclass of torch.nn.LayerNorm has its own forward and is left alone.
    """
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"normgrad.nn.convert: module is a {type(module).__name__}, expected a "
                        f"torch.nn.Module")
    table = _TO_TORCH if back else _TO_NORMGRAD
    for m in module.modules():
        target = table.get(type(m))
        if target is not None:
            m.__class__ = target
    return module
