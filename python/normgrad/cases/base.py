"""The contract between an operator's cases and the `normgrad check` / `normgrad bench` commands."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

Arrays = dict[str, np.ndarray]
Outputs = Sequence[np.ndarray | None]


@dataclass(frozen=True)
class Tolerance:
    """Elementwise |got - want| <= atol + rtol * |want|, with the reason for the numbers."""

    atol: float
    rtol: float
    why: str


@dataclass(frozen=True)
class Case:
    """One operator call on one shape and dtype, with its float64 golden.

    make_inputs(rng) builds the inputs; run(inputs) calls the operator through the aclnn API on the
    simulator and returns its outputs; golden(inputs) computes them in float64 from the math.
    min_bytes is the operator's minimum HBM traffic for this call (docs/cost-model.md §5). params
    are the shape's figures the official-kernel models take (normgrad.official_model.estimate):
    n, c, hw, g for GroupNorm; rows, cols for LayerNorm; numel, c for BatchNorm elemt.
    """

    op: str
    name: str
    dtype: str
    shape: str
    make_inputs: Callable[[np.random.Generator], Arrays]
    run: Callable[[Arrays], Outputs]
    golden: Callable[[Arrays], Outputs]
    tolerance: Tolerance
    min_bytes: int
    output_names: tuple[str, ...] = field(default=("dx",))
    quick: bool = True  # part of the default `normgrad check` suite (False: only with --full)
    params: Mapping[str, int] = field(default_factory=dict)
    # SoC families whose aclnn layer rejects this call (status 161002) by a documented limit of their
    # kernel, each with the limit; check and bench skip the case there (tests/python/test_cli.py keeps
    # every mark true: the family must still reject the call).
    rejected_on: Mapping[str, str] = field(default_factory=dict)
