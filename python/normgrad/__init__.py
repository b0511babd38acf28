"""normgrad: Ascend C norm-backward kernels, run here on the CPU simulator of the Ascend C runtime.

    import normgrad
    dx, dgamma, dbeta = normgrad.group_norm_backward(dy, x, mean, rstd, gamma, N, C, HxW, group)
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# Public name -> module that defines it. Loaded on first use so that importing normgrad never
# needs the native library (the CLI's --help, for one).
_EXPORTS = {
    "group_norm_backward": "normgrad.ops.group_norm_grad",
    "layer_norm_backward": "normgrad.ops.layer_norm_grad",
    "batch_norm_elemt_backward": "normgrad.ops.batch_norm_elemt_grad",
    "AclnnError": "normgrad.errors",
    "set_soc": "normgrad._native",
    "soc": "normgrad._native",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'normgrad' has no attribute '{name}'")
    return getattr(importlib.import_module(module), name)


__all__ = sorted(_EXPORTS)
