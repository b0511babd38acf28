"""Drop-in torch.nn modules whose backward passes run normgrad's kernels.

    import normgrad.nn
    norm = normgrad.nn.GroupNorm(32, 256)        # torch.nn.GroupNorm's arguments, parameters, state_dict
    model = normgrad.nn.convert(model)           # torch.nn.GroupNorm/LayerNorm -> normgrad's, in place
    model = normgrad.nn.convert(model, back=True)
    bn = normgrad.nn.SyncBatchNorm(64)           # torch.nn.SyncBatchNorm over torch.distributed

Needs torch (pip install '.[torch]').
"""

from __future__ import annotations

from normgrad.nn.convert import convert
from normgrad.nn.norms import GroupNorm, LayerNorm
from normgrad.nn.sync_batch_norm import SyncBatchNorm

__all__ = ["GroupNorm", "LayerNorm", "SyncBatchNorm", "convert"]
