"""LayerNorm backward cases on real-model shapes for `normgrad check` and `normgrad bench`.

Language models: tokens x hidden (BERT/GPT-2 768, 1024; LLaMA-7B 4096, 13B 5120; 70B 8192;
GPT-3 12288; 16384). Vision: ViT-B N x 197 x 768, Swin-T stage 1 N x 3136 x 96. Whole-tensor
normalization (M = 1), as CANN's own system tests use heavily.
"""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np

from normgrad.cases.base import Arrays, Case, Outputs, Tolerance
from normgrad.golden.layer_norm_grad import forward_stats
from normgrad.golden.layer_norm_grad import layer_norm_backward as golden

OP = "layer_norm_grad"
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16),
          "bfloat16": np.dtype(ml_dtypes.bfloat16)}
# One rounding of the output dtype on top of fp32 math whose row/column sums have relative error
# around 1e-5 at these sizes; dweight/dbias are fp32 (weight fp32), so the dtype bound covers them.
TOLERANCES = {
    "float32": Tolerance(atol=1e-4, rtol=1e-4, why="fp32 math; sequential fp32 sums over up to 8192 rows"),
    "float16": Tolerance(atol=2e-3, rtol=2e-3, why="dx rounded once to fp16 (2^-11) after fp32 math"),
    "bfloat16": Tolerance(atol=1.6e-2, rtol=1.6e-2, why="dx rounded once to bf16 (2^-8) after fp32 math"),
}


# The block-copy architectures have no two-pass LayerNorm mode (it needs DataCopyPad and hard SyncAll,
# docs/layer_norm_grad.md): one row must fit in their cores' Unified Buffers together. A row of 1e6
# elements does not: in float32 on the training series' 32 cores, in float32 and float16 on the
# inference series' 8 (about 247 K float32 columns fit there).
_NO_TWO_PASS = "and it has no two-pass mode (that needs DataCopyPad and hard SyncAll)"


def _too_long(dtype: str) -> str:
    return f"a row of 1e6 {dtype} elements does not fit in its cores' Unified Buffers, {_NO_TWO_PASS}"


ONE_PASS_ONLY = {
    "float32": {"ascend910": _too_long("float32"), "ascend310p": _too_long("float32")},
    "float16": {"ascend310p": _too_long("float16")},
}


def _case(shape: tuple[int, ...], nd: int, dtype: str, name: str, quick: bool = True) -> Case:
    np_dtype = DTYPES[dtype]
    ns = shape[len(shape) - nd:]

    def make_inputs(rng: np.random.Generator) -> Arrays:
        x = rng.standard_normal(shape, dtype=np.float32).astype(np_dtype)
        mean, rstd = forward_stats(x, ns)
        return {
            "dy": rng.standard_normal(shape, dtype=np.float32).astype(np_dtype),
            "x": x,
            "mean": mean.astype(np.float32),
            "rstd": rstd.astype(np.float32),
            "weight": rng.standard_normal(ns, dtype=np.float32),
        }

    def run(a: Arrays) -> Outputs:
        from normgrad.ops.layer_norm_grad import layer_norm_backward

        return layer_norm_backward(a["dy"], a["x"], ns, a["mean"], a["rstd"], a["weight"])

    def gold(a: Arrays) -> Outputs:
        return golden(a["dy"], a["x"], ns, a["mean"], a["rstd"], a["weight"])

    rows = int(np.prod(shape[: len(shape) - nd]))
    cols = int(np.prod(ns))
    # docs/cost-model.md §5: 3*M*D*s + 2*M*p + 3*D*p (dy, x, dx; mean, rstd; gamma, dgamma, dbeta)
    min_bytes = 3 * rows * cols * np_dtype.itemsize + 2 * rows * 4 + 3 * cols * 4
    return Case(op=OP, name=name, dtype=dtype, shape="x".join(str(n) for n in shape), make_inputs=make_inputs,
                run=run, golden=gold, tolerance=TOLERANCES[dtype], min_bytes=min_bytes,
                output_names=("dx", "dweight", "dbias"), quick=quick,
                params={"rows": rows, "cols": cols})


def _whole_row(case: Case) -> Case:
    """The 1e6-element single row: beyond the block-copy architectures' one-pass limit (ONE_PASS_ONLY)."""
    return dataclasses.replace(case, rejected_on=ONE_PASS_ONLY.get(case.dtype, {}))


def check_cases() -> list[Case]:
    cases = []
    for dtype in DTYPES:
        cases += [
            _case((2048, 768), 1, dtype, "bert-base 2048 tokens"),
            _case((7, 4096), 1, dtype, "llama-7b 7 tokens"),
            _case((1, 16384), 1, dtype, "1 token, hidden 16384"),
            _case((2, 197, 768), 1, dtype, "vit-b N=2"),
            _case((1, 3136, 96), 1, dtype, "swin-t stage 1 N=1"),
            _whole_row(_case((1, 1000000), 1, dtype, "whole tensor, 1e6 elements", quick=False)),
            _case((8192, 4096), 1, dtype, "llama-7b 8192 tokens", quick=False),
            _case((2048, 12288), 1, dtype, "gpt-3 2048 tokens", quick=False),
        ]
    return cases


def bench_cases() -> list[Case]:
    cases = []
    for dtype in ("float32", "bfloat16"):
        for tokens in (1, 7, 2048, 8192):
            for hidden in (768, 1024, 4096, 5120, 8192, 12288, 16384):
                cases.append(_case((tokens, hidden), 1, dtype, f"lm {tokens}x{hidden}"))
        cases += [
            _case((32, 197, 768), 1, dtype, "vit-b N=32"),
            _case((32, 3136, 96), 1, dtype, "swin-t stage 1 N=32"),
            _whole_row(_case((1, 1000000), 1, dtype, "whole tensor 1e6")),
            _case((16, 8, 64, 64), 3, dtype, "3 trailing dims"),
        ]
    return cases
