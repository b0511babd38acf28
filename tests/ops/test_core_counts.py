"""Every operator against its float64 golden on every vector-core count a chip of each family has
(the chips of docs/soc-profiles.md, run by name) and on 1 and 7 cores (the what-if cap aiv_cores,
docs/sim.md), whose remainders no real count produces. The 48-core runs are the family defaults the
other test modules use; what this file adds is the tilings' and kernels' other splits.

The checkers and their per-dtype tolerances are the operators' own test modules' (justified there);
the shapes are one per kernel path, small enough that each run takes well under a second. Each
operator runs on the families its operator definition lists (AICore().AddConfig).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import ml_dtypes
import numpy as np
import pytest
import test_batch_norm_elemt_grad as bn
import test_group_norm_grad as gn
import test_layer_norm_grad as ln

import normgrad
from normgrad import _native, bench

F32, F16, BF16 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)

# The vector-core counts of the chips of each family (docs/soc-profiles.md); the first test checks
# this list against the profiles, so a chip with a new count fails it until the count is added.
# ascend310p: the AI cores of an AI-core kernel (10 on Ascend310P1, 8 on P3/P5/P7); normgrad does not
# launch on the separate vector cores (docs/layer_norm_grad.md, "Atlas inference series").
REAL_COUNTS = {"ascend910b": (48, 40), "ascend910_93": (48, 40), "ascend910": (32, 30), "ascend310p": (10, 8),
               # Ascend 950PR/950DT: 72, 64 and 56 cores, and the small cann-dev variants 950x/950y (16)
               # and 950z (8).
               "ascend950": (72, 64, 56, 16, 8)}
ODD_COUNTS = (1, 7)
CONFIGS = [(family, cores, False) for family, counts in REAL_COUNTS.items() for cores in counts] + \
          [(family, cores, True) for family in REAL_COUNTS for cores in ODD_COUNTS]
IDS = [f"{family}-{'capped-' if capped else ''}{cores}" for family, cores, capped in CONFIGS]


def served(op: str) -> tuple[list[tuple[str, int, bool]], list[str]]:
    """The configurations (and their ids) of the families whose operator definition serves op."""
    socs = bench.served_socs(op) or ()
    kept = [(c, i) for c, i in zip(CONFIGS, IDS, strict=True) if c[0] in socs]
    return [c for c, _ in kept], [i for _, i in kept]


def test_real_counts_are_every_count_a_chip_has():
    counts: dict[str, set[int]] = {}
    for p in _native.socs():
        counts.setdefault(p["family"], set()).add(int(p["aivCores"]))
    assert counts == {family: set(c) for family, c in REAL_COUNTS.items()}


@contextlib.contextmanager
def on_cores(family: str, cores: int, capped: bool) -> Iterator[None]:
    """Runs the block on a chip of `family` with `cores` vector cores: the first chip listed with that
    count, or (capped) the family's default chip under the what-if cap."""
    if capped:
        with normgrad.soc(family), _native.what_if(f"aiv_cores={cores}"):
            yield
        return
    name = next(p["name"] for p in _native.socs() if p["family"] == family and p["aivCores"] == cores)
    with normgrad.soc(name):
        yield


def dtypes_of(family: str) -> tuple[np.dtype, ...]:
    profile = next(p for p in _native.socs() if p["name"] == family)
    return (F32, F16, BF16) if profile["hasBf16"] else (F32, F16)


def widest_launch() -> int:
    return max(int(launch["blockDim"]) for launch in _native.last_run())


# (n, c, hw, g): one per GroupNorm kernel path on 48 cores; on fewer cores the tiling may pick
# another, which is the point.
GN_SHAPES = [(5, 33, 1023, 11), (3, 96, 196, 6), (2, 6, 40000, 3), (8, 96, 256, 8), (30, 96, 1, 12),
             (1, 16, 3000, 2), (2, 64, 1024, 32)]
# Six large groups split over every core: the shape that fills the 950's 72, 64 and 56 cores (the
# ones above stop at 48 or fewer there). Not run on the training series: see the xfail below.
GN_SPLIT_GROUPS = (2, 6, 100000, 3)


def gn_shapes(family: str) -> list[tuple[int, int, int, int]]:
    return GN_SHAPES + ([GN_SPLIT_GROUPS] if family != "ascend910" else [])
# (shape, normalized dims): rows over batches, rows split over cores, odd rows split, rows under one
# block, short rows, and many rows that fill every core. Rows fit one core's UB even where there is
# no two-pass mode (the training series at 1 core).
LN_SHAPES = [((48 * 3 + 5, 96), 1), ((7, 4096), 1), ((3, 9999), 1), ((50, 7), 1), ((197, 64), 1),
             ((3000, 129), 1)]
BN_SHAPES = [(4, 96, 7, 7), (3, 4, 3000), (4, 300, 7, 7), (20, 128), (2, 5, 600)]


@pytest.mark.parametrize("family,cores,capped", served("group_norm_grad")[0],
                         ids=served("group_norm_grad")[1])
def test_group_norm_grad_on_every_core_count(family, cores, capped):
    widest = 0
    with on_cores(family, cores, capped):
        for i, shape in enumerate(gn_shapes(family)):
            for dtype in dtypes_of(family):
                gn.run_and_check(*shape, dtype, seed=i)
                widest = max(widest, widest_launch())
    assert widest == cores  # some shape filled every core: the count was exercised


# Known bug, not fixed here (found while adding GN_SPLIT_GROUPS): on the training series' block-copy
# path with soft SyncAll, large groups split over some core counts (7 cores, fp32; also 3, 5, 9, 11,
# 13 with these or similar shapes) make the simulator's cross-core race detector report core 0's
# atomic add to a workspace block that core 1 reads with no barrier between. A2/A3 and the 950 run
# the same shapes on the same counts without a report.
@pytest.mark.xfail(strict=True, raises=normgrad.AclnnError,
                   reason="GroupNorm training-series split groups: cross-core GM race on 7 cores")
def test_group_norm_grad_training_series_split_groups_on_7_cores():
    with on_cores("ascend910", 7, True):
        gn.run_and_check(*GN_SPLIT_GROUPS, F32, seed=0)


@pytest.mark.parametrize("family,cores,capped", served("layer_norm_grad")[0],
                         ids=served("layer_norm_grad")[1])
def test_layer_norm_grad_on_every_core_count(family, cores, capped):
    widest = 0
    with on_cores(family, cores, capped):
        for i, (shape, nd) in enumerate(LN_SHAPES):
            for dtype in dtypes_of(family):
                ln.run_and_check(*ln.make_inputs(np.random.default_rng(i), shape, nd, dtype))
                widest = max(widest, widest_launch())
    assert widest == cores


@pytest.mark.parametrize("family,cores,capped", served("batch_norm_elemt_grad")[0],
                         ids=served("batch_norm_elemt_grad")[1])
def test_batch_norm_elemt_grad_on_every_core_count(family, cores, capped):
    widest = 0
    with on_cores(family, cores, capped):
        for i, shape in enumerate(BN_SHAPES):
            for dtype in dtypes_of(family):
                bn.check(bn.make_inputs(shape, dtype, seed=i))
                widest = max(widest, widest_launch())
    assert widest == cores
