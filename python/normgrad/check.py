"""`normgrad check`: runs each case on the simulator and compares its outputs with the golden."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from normgrad.cases.base import Case
from normgrad.compare import Comparison, compare


def case_rng(case: Case, seed: int) -> np.random.Generator:
    """The case's input generator: a function of (seed, op, name, dtype, shape) only, so a case gets
    the same inputs whichever cases run before it or are filtered out."""
    key = zlib.crc32(f"{case.op}/{case.name}/{case.dtype}/{case.shape}".encode())
    return np.random.default_rng([seed, key])


@dataclass
class CaseResult:
    """The outcome of one case: a comparison per output, or the error that stopped the run."""

    case: Case
    comparisons: list[Comparison] = field(default_factory=list)
    error: str = ""  # "AclnnError: ..." when make_inputs, run or golden raised

    @property
    def ok(self) -> bool:
        return not self.error and all(c.ok for c in self.comparisons)


def run_case(case: Case, seed: int = 0) -> CaseResult:
    """Makes the inputs, runs the operator and the golden, and compares every output.

    Any exception from the case (a rejected argument, a kernel fault, a bug in the golden) is
    recorded in the result rather than raised, so one broken case does not hide the others.
    """
    result = CaseResult(case)
    try:
        inputs = case.make_inputs(case_rng(case, seed))
        got = list(case.run(inputs))
        want = list(case.golden(inputs))
    except Exception as err:  # noqa: BLE001 - reported per case, see docstring
        result.error = f"{type(err).__name__}: {err}"
        return result
    names = case.output_names
    if not len(got) == len(want) == len(names):
        result.error = (f"the case has {len(names)} output names {list(names)} but run returned "
                        f"{len(got)} outputs and golden {len(want)}")
        return result
    for name, g, w in zip(names, got, want, strict=True):
        comparison = compare(name, g, w, case.tolerance)
        if comparison is not None:
            result.comparisons.append(comparison)
    return result


def select(cases: Sequence[Case], dtype: str | None = None, full: bool = False) -> list[Case]:
    """The cases of the default suite (quick ones) or all with full, of one dtype if given."""
    return [c for c in cases if (full or c.quick) and (dtype is None or c.dtype == dtype)]
