"""BatchNorm element-wise backward cases on real-model shapes for `normgrad check` and `normgrad bench`.

ResNet-50 at batch 32 (the four stages' block outputs and bottleneck widths), a detection backbone
at 1x32x352x640 and larger, and BatchNorm1d [N, C] inputs.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from normgrad.cases.base import Arrays, Case, Outputs, Tolerance
from normgrad.golden.batch_norm_elemt_grad import batch_norm_elemt_backward as golden
from normgrad.golden.batch_norm_elemt_grad import batch_stats

OP = "batch_norm_elemt_grad"
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16),
          "bfloat16": np.dtype(ml_dtypes.bfloat16)}
# dx = a*dy + nab*(x - mean) + nac in fp32 (about 5 roundings of 2^-24 on terms of size ~|dx|
# for standard-normal data), then one rounding to the dx dtype.
TOLERANCES = {
    "float32": Tolerance(atol=1e-5, rtol=1e-5, why="5 fp32 roundings on terms of magnitude ~1"),
    "float16": Tolerance(atol=1e-3, rtol=1e-3, why="dx rounded once to fp16 (2^-11) after fp32 math"),
    "bfloat16": Tolerance(atol=8e-3, rtol=8e-3, why="dx rounded once to bf16 (2^-8) after fp32 math"),
}


def _case(shape: tuple[int, ...], dtype: str, name: str, quick: bool = True) -> Case:
    np_dtype = DTYPES[dtype]

    def make_inputs(rng: np.random.Generator) -> Arrays:
        x = rng.standard_normal(shape, dtype=np.float32).astype(np_dtype)
        dy = rng.standard_normal(shape, dtype=np.float32).astype(np_dtype)
        st = batch_stats(dy, x)
        return {"dy": dy, "x": x, "mean": st["mean"].astype(np.float32),
                "invstd": st["invstd"].astype(np.float32),
                "weight": rng.standard_normal(shape[1], dtype=np.float32),
                "sum_dy": st["sum_dy"].astype(np.float32), "sum_dy_xmu": st["sum_dy_xmu"].astype(np.float32),
                "counter": np.array([x.size // shape[1]], np.int32)}

    def args(a: Arrays) -> tuple:
        names = ("dy", "x", "mean", "invstd", "weight", "sum_dy", "sum_dy_xmu", "counter")
        return tuple(a[n] for n in names)

    def run(a: Arrays) -> Outputs:
        from normgrad.ops.batch_norm_elemt_grad import batch_norm_elemt_backward

        return (batch_norm_elemt_backward(*args(a)),)

    def gold(a: Arrays) -> Outputs:
        return (golden(*args(a)),)

    c = shape[1]
    # docs/cost-model.md §5: 3*numel*s (dy, x, dx) + 5*C*p (mean, invstd, weight, sum_dy,
    # sum_dy_xmu) + the counter.
    min_bytes = 3 * int(np.prod(shape)) * np_dtype.itemsize + 5 * c * 4 + 4
    return Case(op=OP, name=name, dtype=dtype, shape="x".join(str(n) for n in shape), make_inputs=make_inputs,
                run=run, golden=gold, tolerance=TOLERANCES[dtype], min_bytes=min_bytes, output_names=("dx",),
                quick=quick, params={"numel": int(np.prod(shape)), "c": c})


# (shape, name, part of the quick check)
SHAPES = [
    ((20, 128), "[N, C] 20x128", True),
    ((256, 1024), "[N, C] 256x1024", True),
    ((4, 2048, 7, 7), "resnet-50 stage 4 N=4", True),
    ((4, 256, 56, 56), "resnet-50 stage 1 N=4", True),
    ((32, 256, 56, 56), "resnet-50 stage 1 N=32", False),
    ((32, 64, 56, 56), "resnet-50 stage 1 bottleneck N=32", False),
    ((32, 512, 28, 28), "resnet-50 stage 2 N=32", False),
    ((32, 1024, 14, 14), "resnet-50 stage 3 N=32", False),
    ((32, 256, 14, 14), "resnet-50 stage 3 bottleneck N=32", False),
    ((32, 2048, 7, 7), "resnet-50 stage 4 N=32", False),
    ((32, 512, 7, 7), "resnet-50 stage 4 bottleneck N=32", False),
    ((1, 32, 352, 640), "detection backbone 1x32x352x640", False),
    ((1, 64, 704, 1280), "detection backbone 1x64x704x1280", False),
]


def check_cases() -> list[Case]:
    return [_case(shape, dtype, name, quick) for dtype in DTYPES for shape, name, quick in SHAPES]


def bench_cases() -> list[Case]:
    return [_case(shape, dtype, name) for dtype in ("float32", "bfloat16") for shape, name, _ in SHAPES]
