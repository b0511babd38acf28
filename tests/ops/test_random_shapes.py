"""Property tests: every operator matches its float64 golden on shapes, dtypes, masks and SoCs
drawn by hypothesis (small shapes with odd sizes, so each example runs in milliseconds).

The per-operator checkers and their per-dtype tolerances are the ones of the operator's own
test module (justified there); this file only widens the set of shapes they are applied to.
Examples are derandomized so CI runs the same ones every time.
"""

from __future__ import annotations

import numpy as np
import test_batch_norm_elemt_grad as bn
import test_group_norm_grad as gn
import test_layer_norm_grad as ln
from hypothesis import given, settings
from hypothesis import strategies as st
from ml_dtypes import bfloat16

import normgrad

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True)
SIZES = st.sampled_from([1, 2, 3, 5, 7, 8, 9, 16, 31, 33, 49, 64, 100])
MASKS = st.tuples(st.booleans(), st.booleans(), st.booleans())
# (SoC, dtypes it has): the training series has no bfloat16.
SOCS = st.sampled_from([("ascend910b", (np.float32, np.float16, bfloat16)),
                        ("ascend910_93", (np.float32, np.float16, bfloat16)),
                        ("ascend910", (np.float32, np.float16)),
                        ("ascend950", (np.float32, np.float16, bfloat16))])


@SETTINGS
@given(soc=SOCS, n=st.integers(1, 4), groups=st.integers(1, 4), per_group=st.integers(1, 6), hw=SIZES,
       with_gamma=st.booleans(), mask=MASKS, pick=st.integers(0, 2), seed=st.integers(0, 2**16))
def test_group_norm_grad_matches_golden(soc, n, groups, per_group, hw, with_gamma, mask, pick, seed):
    name, dtypes = soc
    dtype = np.dtype(dtypes[pick % len(dtypes)])
    with normgrad.soc(name):
        gn.run_and_check(n, groups * per_group, hw, groups, dtype, seed, with_gamma, mask)


@SETTINGS
@given(soc=SOCS, lead=st.lists(SIZES, min_size=1, max_size=2), norm=st.lists(SIZES, min_size=1, max_size=2),
       with_weight=st.booleans(), mask=MASKS, pick=st.integers(0, 2), seed=st.integers(0, 2**16))
def test_layer_norm_grad_matches_golden(soc, lead, norm, with_weight, mask, pick, seed):
    name, dtypes = soc
    dtype = np.dtype(dtypes[pick % len(dtypes)])
    shape = tuple(lead) + tuple(norm)
    dy, x, ns, mean, rstd, w = ln.make_inputs(np.random.default_rng(seed), shape, len(norm), dtype,
                                              with_weight=with_weight)
    with normgrad.soc(name):
        ln.run_and_check(dy, x, ns, mean, rstd, w, mask)


@SETTINGS
@given(soc=SOCS, dims=st.lists(SIZES, min_size=2, max_size=5), with_weight=st.booleans(),
       pick=st.integers(0, 2), seed=st.integers(0, 2**16))
def test_batch_norm_elemt_grad_matches_golden(soc, dims, with_weight, pick, seed):
    name, dtypes = soc
    if name == "ascend910":
        # The operator serves Atlas A2/A3 and Ascend 950 only (docs/batch_norm_elemt_backward.md).
        return
    dtype = dtypes[pick % len(dtypes)]
    with normgrad.soc(name):
        bn.check(bn.make_inputs(tuple(dims), dtype, weight=with_weight, seed=seed))
