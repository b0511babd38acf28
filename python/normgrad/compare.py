"""Compares an operator output with its float64 golden under a Tolerance, for `normgrad check`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from normgrad.cases.base import Tolerance


@dataclass(frozen=True)
class Comparison:
    """How one output compares with its golden.

    max_abs is max |got - want| and max_rel is max |got - want| / |want| over the elements whose
    golden is non-zero (both 0.0 for an empty output; inf when a non-finite value disagrees).
    ok means every element satisfies |got - want| <= atol + rtol * |want|, and NaN/inf in the
    golden are matched exactly. worst is the largest |got - want| / (atol + rtol * |want|) over the
    elements, the share of its allowance the worst element uses: ok exactly when worst <= 1 (an
    element with a zero bound counts 0 when exact, inf otherwise). detail explains a failure with
    the worst element ('' when ok).
    """

    output: str
    ok: bool
    max_abs: float
    max_rel: float
    detail: str = ""
    worst: float = 0.0


def _failed(output: str, detail: str) -> Comparison:
    return Comparison(output, False, float("inf"), float("inf"), detail, float("inf"))


def compare(output: str, got: object, want: object, tol: Tolerance) -> Comparison | None:
    """Compares got with want elementwise; None when neither exists (an output not requested)."""
    if got is None and want is None:
        return None
    if got is None or want is None:
        missing, present = ("the operator", "golden") if got is None else ("golden", "the operator")
        return _failed(output, f"{output}: {missing} returned None but {present} returned an array")
    got_a = np.asarray(got)
    want_a = np.asarray(want)
    if got_a.shape != want_a.shape:
        shapes = f"shape {list(got_a.shape)} differs from golden {list(want_a.shape)}"
        return _failed(output, f"{output}: {shapes}")
    g = got_a.astype(np.float64)
    w = want_a.astype(np.float64)
    if g.size == 0:
        return Comparison(output, True, 0.0, 0.0)

    finite = np.isfinite(w)
    # Non-finite goldens (inf from an overflow the math predicts, NaN) must be reproduced exactly.
    nonfinite_ok = np.where(finite, np.isfinite(g), (g == w) | (np.isnan(g) & np.isnan(w)))
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf lands in the masked-out branch
        diff = np.where(finite & np.isfinite(g), np.abs(g - w), np.where(nonfinite_ok, 0.0, np.inf))
    bound = tol.atol + tol.rtol * np.where(finite, np.abs(w), 0.0)
    bad = diff > bound
    nonzero = finite & (w != 0)
    max_abs = float(diff.max())
    max_rel = float((diff[nonzero] / np.abs(w[nonzero])).max()) if nonzero.any() else 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(diff == 0, 0.0, diff / bound)  # a zero bound: 0 when exact, inf otherwise
    worst_share = float(share.max())
    if not bad.any():
        return Comparison(output, True, max_abs, max_rel, worst=worst_share)

    with np.errstate(divide="ignore", invalid="ignore"):
        excess = np.where(bad, diff / bound, 0.0)
    worst = np.unravel_index(int(np.argmax(np.nan_to_num(excess, nan=np.inf, posinf=np.inf))), g.shape)
    where = f"{output}[{', '.join(str(int(i)) for i in worst)}]" if g.ndim else output
    detail = (
        f"{int(bad.sum())} of {g.size} elements out of tolerance; worst {where}: got {float(g[worst])!r}, "
        f"want {float(w[worst])!r}, |diff| {diff[worst]:.3g} > {tol.atol:g} + {tol.rtol:g} * |want|"
    )
    return Comparison(output, False, max_abs, max_rel, detail, worst_share)
