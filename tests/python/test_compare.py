"""normgrad.compare: the pass/fail rule and error figures of `normgrad check`, on hand-made arrays."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from normgrad.cases.base import Tolerance
from normgrad.compare import compare

EXACT = Tolerance(0.0, 0.0, "copies")
LOOSE = Tolerance(1e-3, 1e-2, "test")


def test_identical_arrays_pass_with_zero_error():
    x = np.array([1.0, -2.0, 0.0], dtype=np.float32)
    c = compare("dx", x, x.astype(np.float64), EXACT)
    assert c.ok and c.max_abs == 0.0 and c.max_rel == 0.0 and c.detail == ""


def test_bound_is_atol_plus_rtol_times_want():
    want = np.array([100.0, 0.0])
    # 100 * 1e-2 + 1e-3 = 1.001 allowed at element 0; 1e-3 at element 1.
    assert compare("dx", np.array([101.0, 0.001]), want, LOOSE).ok
    c = compare("dx", np.array([101.01, 0.0]), want, LOOSE)
    assert not c.ok
    assert np.isclose(c.max_abs, 1.01) and np.isclose(c.max_rel, 0.0101)
    assert "1 of 2 elements out of tolerance; worst dx[0]: got 101.01, want 100.0" in c.detail


def test_relative_error_ignores_zero_goldens():
    c = compare("db", np.array([0.0005, 2.0]), np.array([0.0, 2.0]), LOOSE)
    assert c.ok and c.max_abs == 0.0005 and c.max_rel == 0.0


def test_worst_element_is_reported_by_index():
    want = np.zeros((2, 3))
    got = want.copy()
    got[1, 2] = 0.5
    got[0, 0] = 0.01
    c = compare("dgamma", got, want, LOOSE)
    assert not c.ok and "2 of 6 elements" in c.detail and "worst dgamma[1, 2]: got 0.5" in c.detail


def test_nan_and_inf_must_match_the_golden():
    want = np.array([np.inf, np.nan, 1.0])
    assert compare("dx", np.array([np.inf, np.nan, 1.0]), want, EXACT).ok
    assert not compare("dx", np.array([-np.inf, np.nan, 1.0]), want, LOOSE).ok
    bad = compare("dx", np.array([1.0, 2.0, np.nan]), np.array([1.0, 2.0, 3.0]), LOOSE)
    assert not bad.ok and bad.max_abs == np.inf


def test_bfloat16_outputs_are_compared_as_their_values():
    want = np.array([1.0, 3.0, -0.5])
    assert compare("dx", want.astype(ml_dtypes.bfloat16), want, EXACT).ok


def test_shape_mismatch_and_missing_outputs_fail():
    mismatch = compare("dx", np.zeros(3), np.zeros((1, 3)), EXACT)
    assert "shape [3] differs from golden [1, 3]" in mismatch.detail
    assert "the operator returned None" in compare("dbeta", None, np.zeros(2), EXACT).detail
    assert compare("dbeta", None, None, EXACT) is None


def test_empty_outputs_pass():
    c = compare("dx", np.zeros((0, 4), np.float16), np.zeros((0, 4)), EXACT)
    assert c.ok and c.max_abs == 0.0
