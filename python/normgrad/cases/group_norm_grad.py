"""GroupNorm backward cases on real-model shapes for `normgrad check` and `normgrad bench`.

Stable Diffusion UNet (N = 2, C in {320, 640, 1280}, 32 groups, 64² down to 8²), a detection neck
(FPN/RetinaNet-style N = 8, C = 256, 100 x 152), ResNet-style GroupNorm (7x7 and 56x56 maps), the
VAE decoder's 512 x 128² maps, and the tiling's edges (HxW = 1, one channel per group, more than
8000 channels per group, a group larger than every core's UB together).
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from normgrad.cases.base import Arrays, Case, Outputs, Tolerance
from normgrad.golden.group_norm_grad import group_norm_backward as golden
from normgrad.golden.group_norm_grad import group_norm_forward_stats

OP = "group_norm_grad"
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16),
          "bfloat16": np.dtype(ml_dtypes.bfloat16)}
# Relative bound of one rounding to the output dtype (fp16 2^-11, bf16 2^-8), doubled for the fp32
# sums in front of it; fp32 outputs carry only those sums (1e-4).
RELATIVE = {"float32": 1e-4, "float16": 2.0**-10, "bfloat16": 2.0**-7}


def _tolerance(dtype: str, n: int, hw: int) -> Tolerance:
    # dgamma/dbeta are sums of n*hw terms of size ~1 with mixed signs, so values near zero carry the
    # fp32 error of the whole sum, ~ relative bound * sqrt(n*hw); dx is O(1) and well inside it.
    rel = RELATIVE[dtype]
    return Tolerance(atol=rel * max(2.0, math.sqrt(n * hw) / 8), rtol=rel,
                     why=f"{dtype}: one output rounding after fp32 math; atol covers cancellation in "
                         f"sums of {n * hw} terms")


def _case(n: int, c: int, hw: int, g: int, dtype: str, name: str, quick: bool = True) -> Case:
    np_dtype = DTYPES[dtype]

    def make_inputs(rng: np.random.Generator) -> Arrays:
        x = (rng.standard_normal((n, c, hw), dtype=np.float32) * 2 + 0.5).astype(np_dtype)
        mean, rstd = group_norm_forward_stats(x, n, c, hw, g)
        return {
            "dy": rng.standard_normal((n, c, hw), dtype=np.float32).astype(np_dtype),
            "x": x,
            "mean": mean.astype(np_dtype),
            "rstd": rstd.astype(np_dtype),
            "gamma": (rng.standard_normal(c, dtype=np.float32) * 0.5 + 1).astype(np_dtype),
        }

    def run(a: Arrays) -> Outputs:
        from normgrad.ops.group_norm_grad import group_norm_backward

        return group_norm_backward(a["dy"], a["x"], a["mean"], a["rstd"], a["gamma"], n, c, hw, g)

    def gold(a: Arrays) -> Outputs:
        return golden(a["dy"], a["x"], a["mean"], a["rstd"], a["gamma"], n, c, hw, g)

    s = np_dtype.itemsize
    # docs/cost-model.md §5: 3*N*C*HW*s (dy, x, dx) + mean, rstd (N*G each) + gamma, dgamma, dbeta.
    min_bytes = 3 * n * c * hw * s + 2 * n * g * s + 3 * c * s
    return Case(op=OP, name=name, dtype=dtype, shape=f"{n}x{c}x{hw} g{g}", make_inputs=make_inputs, run=run,
                golden=gold, tolerance=_tolerance(dtype, n, hw), min_bytes=min_bytes,
                output_names=("dx", "dgamma", "dbeta"), quick=quick,
                params={"n": n, "c": c, "hw": hw, "g": g})


def _sd_unet(dtype: str, quick_sizes: tuple[int, ...]) -> list[Case]:
    return [_case(2, c, side * side, 32, dtype, f"sd-unet {c}ch {side}x{side}", quick=side in quick_sizes)
            for c in (320, 640, 1280) for side in (64, 32, 16, 8)]


def check_cases() -> list[Case]:
    cases = []
    for dtype in DTYPES:
        cases += _sd_unet(dtype, quick_sizes=(32, 8))
        cases += [
            _case(8, 256, 100 * 152, 32, dtype, "detection neck 100x152", quick=False),
            _case(8, 512, 49, 32, dtype, "resnet-50 gn 7x7"),
            _case(4, 64, 56 * 56, 32, dtype, "resnet-50 gn 56x56"),
            _case(16, 64, 1, 8, dtype, "HxW = 1"),
            _case(2, 32, 300, 32, dtype, "one channel per group"),
            _case(2, 16384, 2, 2, dtype, "8192 channels per group"),
            _case(1, 320, 1024, 32, dtype, "N = 1"),
            _case(3, 64, 100, 1, dtype, "group = 1"),
            _case(1, 16, 512 * 512, 1, dtype, "group larger than all cores' UB", quick=False),
        ]
    return cases


def bench_cases() -> list[Case]:
    cases = []
    for dtype in ("float32", "float16", "bfloat16"):
        cases += _sd_unet(dtype, quick_sizes=(64, 32, 16, 8))
        cases += [
            _case(8, 256, 100 * 152, 32, dtype, "detection neck 100x152"),
            _case(8, 512, 49, 32, dtype, "resnet-50 gn 7x7"),
            _case(16, 256, 56 * 56, 32, dtype, "resnet-50 gn 56x56"),
            _case(1, 512, 128 * 128, 32, dtype, "sd-vae decoder 512ch 128x128"),
        ]
    return cases
