"""GroupNorm backward through aclnnGroupNormBackward on the simulator, against the float64 golden.

Shapes carry a reason: the Stable Diffusion UNet and a detection neck (the real models), ResNet-style
7x7 maps, and the edges of the tiling (HxW = 1, odd HxW, one channel per group, more than 8000
channels per group, a group larger than every core's Unified Buffer together, N = 1, group = 1).
"""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

import normgrad
from normgrad import _native
from normgrad.golden.group_norm_grad import group_norm_backward as golden
from normgrad.golden.group_norm_grad import group_norm_forward_stats

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
F32 = np.dtype(np.float32)
DTYPES = (F32, F16, BF16)
API = "aclnnGroupNormBackward"

# Relative error allowed per output dtype. Every output is computed in fp32 and rounded once:
# fp16 keeps 11 significant bits (half an ulp = 2^-11), bf16 8 (2^-8); the bound is doubled to
# leave room for the fp32 sums in front of the rounding. fp32 outputs carry only those sums:
# at most a few thousand sequential fp32 additions of like-sized terms (chunk, slot and sample
# order), each 2^-24 relative, so 1e-4.
TOLERANCE = {F32: 1e-4, F16: 2.0**-10, BF16: 2.0**-7}


def check_close(name: str, got: np.ndarray, want: np.ndarray, dtype: np.dtype) -> None:
    """|got - want| <= tol * (|want| + rms(want)): relative, with an absolute floor at the output's
    typical magnitude because dx and dgamma are differences of terms of that size (cancellation)."""
    assert got.dtype == dtype, f"{name}: dtype {got.dtype}, expected {dtype}"
    assert got.shape == want.shape, f"{name}: shape {got.shape}, expected {want.shape}"
    if want.size == 0:
        return
    g = got.astype(np.float64)
    tol = TOLERANCE[dtype]
    rms = float(np.sqrt(np.mean(want * want)))
    bad = np.abs(g - want) > tol * (np.abs(want) + rms)
    assert not bad.any(), (
        f"{name} ({dtype}): {int(bad.sum())} of {bad.size} off, worst |diff| "
        f"{float(np.max(np.abs(g - want))):.3g}, rms {rms:.3g}, tol {tol:.3g}"
    )


def make_inputs(rng: np.random.Generator, n: int, c: int, hw: int, g: int, dtype: np.dtype,
                with_gamma: bool = True):
    """dy, x, mean, rstd, gamma with mean/rstd the forward statistics of x (eps 1e-5)."""
    x = (rng.standard_normal((n, c, hw)) * 2 + 0.5).astype(dtype)
    dy = rng.standard_normal((n, c, hw)).astype(dtype)
    mean, rstd = group_norm_forward_stats(x, n, c, hw, g)
    gamma = (rng.standard_normal(c) * 0.5 + 1).astype(dtype) if with_gamma else None
    return dy, x, mean.astype(dtype), rstd.astype(dtype), gamma


def run_and_check(n, c, hw, g, dtype, seed=0, with_gamma=True, mask=(True, True, True)):
    rng = np.random.default_rng(seed)
    dy, x, mean, rstd, gamma = make_inputs(rng, n, c, hw, g, dtype, with_gamma)
    got = normgrad.group_norm_backward(dy, x, mean, rstd, gamma, n, c, hw, g, mask)
    want = golden(dy, x, mean, rstd, gamma, n, c, hw, g)
    for name, o, w, m in zip(("dx", "dgamma", "dbeta"), got, want, mask, strict=True):
        if m:
            check_close(name, o, w.reshape(o.shape), dtype)
        else:
            assert o is None, f"{name} was not requested but returned"
    return got


SD_UNET = [(2, c, hw * hw, 32) for c in (320, 640, 1280) for hw in (64, 32, 16, 8)]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", SD_UNET, ids=lambda s: f"sd_unet_{s[1]}x{int(s[2] ** 0.5)}sq")
def test_stable_diffusion_unet(shape, dtype):
    run_and_check(*shape, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_detection_neck(dtype):
    # 8 x 256 x (100 x 152), 32 groups: groups of 121600 elements split over cores in many waves.
    run_and_check(8, 256, 100 * 152, 32, dtype, seed=1)


EDGES = {
    "resnet_7x7": (8, 512, 49, 32),      # odd HxW, rows padded to 32 bytes, many groups per tile
    "resnet_56x56": (4, 64, 56 * 56, 32),
    "hw_1": (16, 64, 1, 8),              # each channel one element
    "hw_14x14": (3, 96, 196, 6),
    "one_channel_per_group": (2, 32, 300, 32),
    "channels_per_group_8192": (2, 16384, 2, 2),
    "n_1": (1, 320, 1024, 32),           # fewer groups than cores: split waves only
    "group_1": (3, 64, 100, 1),
    "tiny": (1, 2, 3, 1),
    "odd_everything": (5, 33, 1023, 11),
    "n_5000": (5000, 4, 3, 2),           # more samples than one dgamma/dbeta copy takes (4095 rows)
    "neck_like_row_pieces": (2, 6, 40000, 3),  # rows cut into pieces, groups split in waves
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(EDGES))
def test_edges(name, dtype):
    run_and_check(*EDGES[name], dtype, seed=2)


@pytest.mark.parametrize("dtype", (F32, F16), ids=str)
def test_group_larger_than_all_cores_ub(dtype):
    # One group of 16 x 512 x 512: 4.2 M elements, more than 48 cores x 192 KiB hold, so each
    # core streams its slice twice, and rows are longer than one core's UB (row pieces).
    run_and_check(1, 16, 512 * 512, 1, dtype, seed=3)


@pytest.mark.parametrize("mask", list(itertools.product((True, False), repeat=3)), ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_output_mask(mask, dtype):
    run_and_check(2, 64, 196, 8, dtype, seed=4, mask=mask)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_gamma_null_means_ones(dtype):
    got = run_and_check(2, 64, 81, 16, dtype, seed=5, with_gamma=False)
    assert got[1].shape == (64,)


def test_strided_inputs_and_outputs():
    n, c, hw, g = 2, 32, 50, 4
    rng = np.random.default_rng(6)
    dy, x, mean, rstd, gamma = make_inputs(rng, n, c, hw, g, F32)
    dy_view = np.ascontiguousarray(dy.transpose(0, 2, 1)).transpose(0, 2, 1)  # (N, C, HxW) over NHWC
    x_big = np.zeros((n, c, hw * 2), F32)
    x_big[:, :, ::2] = x
    x_view = x_big[:, :, ::2]
    gamma_big = np.zeros(2 * c, F32)
    gamma_big[1::2] = gamma
    assert not dy_view.flags.c_contiguous and not x_view.flags.c_contiguous
    want = golden(dy, x, mean, rstd, gamma, n, c, hw, g)
    with (_native.tensor(dy_view) as t_dy, _native.tensor(x_view) as t_x, _native.tensor(mean) as t_mean,
          _native.tensor(rstd) as t_rstd, _native.tensor(gamma_big[1::2]) as t_gamma,
          _native.tensor(np.full((n, c, hw * 3), 7.0, F32)[:, :, 1::3]) as t_dx,
          _native.empty((c,), F32) as t_dgamma, _native.empty((c,), F32) as t_dbeta,
          _native.bool_array([True, True, True]) as mask):
        _native.call_aclnn(API, t_dy, t_x, t_mean, t_rstd, t_gamma, n, c, hw, g, mask,
                           t_dx, t_dgamma, t_dbeta)
        check_close("dx", t_dx.numpy(), want[0], F32)
        check_close("dgamma", t_dgamma.numpy(), want[1], F32)
        storage = t_dx.storage()
        untouched = np.concatenate([storage[:, :, 0::3], storage[:, :, 2::3]])
        assert np.all(untouched == 7.0), "dx wrote outside its view"


@pytest.mark.parametrize("dims", ["4d", "8d", "1d"])
def test_any_rank_with_matching_element_counts(dims):
    n, c, g = 2, 16, 4
    rng = np.random.default_rng(7)
    dy, x, mean, rstd, gamma = make_inputs(rng, n, c, 36, g, F16)
    shape = {"4d": (n, c, 6, 6), "8d": (n, c, 1, 2, 1, 3, 2, 3), "1d": (n * c * 36,)}[dims]
    got = normgrad.group_norm_backward(dy.reshape(shape), x.reshape(shape), mean.reshape(-1),
                                       rstd.reshape(-1), gamma, n, c, 36, g)
    want = golden(dy, x, mean, rstd, gamma, n, c, 36, g)
    check_close("dx", got[0], want[0].reshape(shape), F16)
    check_close("dbeta", got[2], want[2], F16)


@pytest.mark.parametrize("empty", ["n_0", "hxw_0"])
def test_empty_input_gives_zero_parameter_gradients(empty):
    n, hw = (0, 9) if empty == "n_0" else (2, 0)
    c, g = 8, 2
    dy = np.zeros((n, c, hw), F32)
    got = normgrad.group_norm_backward(dy, dy.copy(), np.zeros((n, g), F32), np.ones((n, g), F32),
                                       np.ones(c, F32), n, c, hw, g)
    assert got[0].shape == (n, c, hw)
    np.testing.assert_array_equal(got[1], np.zeros(c, F32))
    np.testing.assert_array_equal(got[2], np.zeros(c, F32))


def assert_bitwise_repeatable(shape, dtype, seed: int, soc: str = "ascend910b") -> None:
    """Two calls on the same inputs give the same bytes in every output."""
    dy, x, mean, rstd, gamma = make_inputs(np.random.default_rng(seed), *shape, dtype)
    with _native.soc(soc):
        first = normgrad.group_norm_backward(dy, x, mean, rstd, gamma, *shape)
        second = normgrad.group_norm_backward(dy, x, mean, rstd, gamma, *shape)
    for a, b in zip(first, second, strict=True):
        assert a.tobytes() == b.tobytes()


def single_launch(shape, dtype, seed: int, soc: str) -> dict:
    """The one kernel launch of a call on soc, for its traffic and core figures."""
    dy, x, mean, rstd, gamma = make_inputs(np.random.default_rng(seed), *shape, dtype)
    with _native.soc(soc):
        normgrad.group_norm_backward(dy, x, mean, rstd, gamma, *shape)
        (launch,) = _native.last_run()
    return launch


@pytest.mark.parametrize("shape",
                         [(2, 320, 4096, 32), (8, 64, 3000, 8), (1, 16, 512 * 512, 1), (8, 512, 49, 32)],
                         ids=["whole_plus_split", "split_waves", "two_pass", "channel_slabs"])
def test_deterministic_bitwise(shape):
    assert_bitwise_repeatable(shape, F32, seed=8)


def test_single_read_of_dy_and_x_on_a2():
    # Whole groups plus one split wave (SD-UNet 640 x 32x32 fp16): HBM moves at most 1 % more than
    # the minimum traffic (the wave's slice is read a second time from the L2, its barrier split
    # phase around the whole groups).
    n, c, hw, g = 2, 640, 1024, 32
    launch = single_launch((n, c, hw, g), F16, seed=9, soc="ascend910b")
    minimum = 3 * n * c * hw * 2
    assert launch["bytesIn"] - launch["l2HitBytes"] + launch["bytesOut"] <= 1.01 * minimum
    assert launch["blockDim"] == 48


# Re-read groups (A2/A3): each core owns whole groups, a group larger than its tile read twice
# (the second read an L2 hit). Core k owns group k of every sample when that is modeled faster
# (dgamma/dbeta with no SyncAll), else a contiguous run of groups.
REREAD = {
    "owner_two_passes": (2, 320, 4096, 32),          # fp32: half a group per tile
    "owner_runs_of_groups": (4, 256, 1024, 32),      # 8 rows a group: several groups a tile as runs
    "owner_one_group_a_tile": (2, 320, 1024, 32),    # 10 rows a group: runs would misalign sums
    "balanced_row_pieces": (1, 600, 9000, 100),      # 100 groups over 48 cores, rows in pieces
    "split_phase": (8, 128, 3136, 32),             # 16-bit: pieces over 48 cores, split-phase barrier
    "split_phase_edges": (3, 96, 5000, 4),         # fp32: 12 groups of 24 rows, most span two cores
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(REREAD))
def test_reread_groups(name, dtype):
    run_and_check(*REREAD[name], dtype, seed=16)


# Whole groups with a split-phase params barrier (A2/A3): 192 groups of 6 rows, 4 a core; each core
# raises its flag once its last tile's sums are stored and writes that tile's dx before waiting.
WHOLE_GROUP_SPLIT_PHASE = (3, 384, 1024, 64)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_whole_groups_split_phase_params_barrier(dtype):
    run_and_check(*WHOLE_GROUP_SPLIT_PHASE, dtype, seed=17)


def test_whole_groups_split_phase_bitwise():
    assert_bitwise_repeatable(WHOLE_GROUP_SPLIT_PHASE, F16, seed=18)


# Whole groups plus one split wave with the wave's barrier split phase (A2/A3): each core sums its
# slice of the wave, then its whole groups (the flag rides behind their sums), waits, and writes
# the slice's dx from a second read (an L2 hit). SD-UNet 1280 x 32x32 16-bit: 64 groups of 40 rows.
WAVE_SPLIT_PHASE = {
    "sd_1280x32sq": (2, 1280, 1024, 32),
    "wave_on_few_cores": (1, 392, 1024, 49),  # 48 groups whole, one group of 8 rows: 40 empty slices
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(WAVE_SPLIT_PHASE))
def test_whole_groups_and_one_wave_split_phase(name, dtype):
    run_and_check(*WAVE_SPLIT_PHASE[name], dtype, seed=22)


@pytest.mark.parametrize("mask", [m for m in itertools.product((True, False), repeat=3) if m[0]], ids=str)
def test_whole_groups_and_one_wave_split_phase_every_output_mask(mask):
    run_and_check(1, 392, 1024, 49, F16, seed=23, mask=mask)


@pytest.mark.parametrize("dtype", (F16, BF16), ids=str)
def test_whole_groups_and_one_wave_hide_the_wave_barrier_on_a2(dtype):
    n, c, hw, g = WAVE_SPLIT_PHASE["sd_1280x32sq"]
    launch = single_launch((n, c, hw, g), dtype, seed=24, soc="ascend910b")
    assert_bitwise_repeatable((n, c, hw, g), dtype, seed=24)
    assert launch["ok"] and not launch["warnings"]
    assert launch["blockDim"] == 48
    assert launch["syncUs"] == 0
    # The slice's second read is served by the L2: HBM sees dy and x once.
    assert launch["l2HitBytes"] > 0
    assert launch["bytesIn"] - launch["l2HitBytes"] + launch["bytesOut"] <= 1.01 * 3 * n * c * hw * 2


@pytest.mark.parametrize("mask", [m for m in itertools.product((True, False), repeat=3) if m[0]], ids=str)
@pytest.mark.parametrize("shape", [(4, 256, 1024, 32), (2, 320, 4096, 32)], ids=["runs", "two_passes"])
def test_reread_groups_every_output_mask(shape, mask):
    run_and_check(*shape, F32, seed=17, mask=mask)


@pytest.mark.parametrize("dtype", (F32, BF16), ids=str)
def test_reread_groups_gamma_null(dtype):
    run_and_check(1, 600, 9000, 100, dtype, seed=18, with_gamma=False)


@pytest.mark.parametrize("shape",
                         [(2, 320, 4096, 32), (1, 600, 9000, 100), (4, 256, 1024, 32), (3, 96, 5000, 4)],
                         ids=["owner_two_passes", "balanced", "owner_runs", "split_phase"])
def test_reread_groups_deterministic_bitwise(shape):
    assert_bitwise_repeatable(shape, F32, seed=19)


@pytest.mark.parametrize("dtype", (F16, BF16), ids=str)
def test_reread_groups_split_phase_hides_the_barrier_on_a2(dtype):
    # 256 groups of 4 rows x 3136, 21-22 rows a core: all sums first, a split-phase flag, dx of
    # the groups wholly inside the core's share (re-read from L2), the wait, then the two groups
    # shared with its neighbours; the inner dx covers the barrier's latency.
    n, c, hw, g = 8, 128, 3136, 32
    with _native.soc("ascend910b"):
        run_and_check(n, c, hw, g, dtype, seed=21)
        (launch,) = _native.last_run()
        assert_bitwise_repeatable((n, c, hw, g), dtype, seed=21)
    assert launch["ok"] and not launch["warnings"]
    assert launch["blockDim"] == 48
    assert launch["syncUs"] == 0
    assert launch["bytesIn"] - launch["l2HitBytes"] + launch["bytesOut"] <= 1.01 * 3 * n * c * hw * 2


def test_reread_groups_read_hbm_once_and_skip_every_sync_all_on_a2():
    # SD-UNet 320 x 64x64 fp32: 32 cores, each group k of both samples, 160 KiB per tensor read
    # twice; the second read hits the L2, so HBM sees dy and x once, and no core waits for another.
    n, c, hw, g = 2, 320, 4096, 32
    launch = single_launch((n, c, hw, g), F32, seed=20, soc="ascend910b")
    minimum = 3 * n * c * hw * 4
    assert launch["ok"] and not launch["warnings"]
    assert launch["blockDim"] == 32
    assert launch["syncUs"] == 0
    assert launch["l2HitBytes"] >= 0.45 * 2 * n * c * hw * 4  # half of each group re-read
    assert launch["bytesIn"] - launch["l2HitBytes"] + launch["bytesOut"] <= 1.01 * minimum


# Channel slabs (A2/A3, rows of at most 1 KiB): each core holds every sample of a channel range
# and exchanges only the sums of the groups it shares with its neighbours; or, where modeled
# faster, whole groups a core (fewer cores) and no exchange and no barrier at all.
SLABS = {
    "group_spans_6_cores": (8, 96, 256, 8),    # 2 channels a core inside groups of 12
    "group_spans_3_cores": (3, 1280, 36, 16),  # 26-27 channels a core, groups of 80
    "group_aligned_ranges": (2, 192, 64, 48),  # 4 channels a core = one group: nothing shared
    "one_group_a_core_odd_rows": (2, 96, 81, 8),  # 8 cores of 12 channels, rows of 81
    "n_1": (1, 480, 49, 32),
    "hw_1": (4, 96, 1, 4),
    "tiny": (1, 4, 3, 2),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(SLABS))
def test_channel_slabs(name, dtype):
    run_and_check(*SLABS[name], dtype, seed=10)


@pytest.mark.parametrize("mask", [m for m in itertools.product((True, False), repeat=3) if any(m)], ids=str)
@pytest.mark.parametrize("shape", [(8, 96, 256, 8), (2, 96, 81, 8)], ids=["spread", "whole_groups"])
def test_channel_slabs_every_output_mask(shape, mask):
    run_and_check(*shape, F16, seed=11, mask=mask)


@pytest.mark.parametrize("dtype", (F32, BF16), ids=str)
def test_channel_slabs_gamma_null(dtype):
    run_and_check(3, 1280, 36, 16, dtype, seed=12, with_gamma=False)


@pytest.mark.parametrize("dtype", (F16, BF16), ids=str)
@pytest.mark.parametrize("shape", [(2, 320, 64, 32), (2, 640, 64, 32), (2, 1280, 64, 32), (8, 512, 49, 32)],
                         ids=["sd_320x8sq", "sd_640x8sq", "sd_1280x8sq", "resnet_7x7"])
def test_short_16bit_rows_move_at_most_5_percent_above_the_minimum_on_a2(shape, dtype):
    # Whole groups plus split waves sent 16 bytes of sums per (n, c) through the workspace and
    # read them back: 1.056-1.059 x the minimum for these rows of 98-128 bytes.
    n, c, hw, g = shape
    with _native.soc("ascend910b"):
        run_and_check(n, c, hw, g, dtype, seed=13)
        (launch,) = _native.last_run()
    s = dtype.itemsize
    minimum = 3 * n * c * hw * s + 2 * n * g * s + 3 * c * s
    assert launch["ok"] and not launch["warnings"]
    assert launch["bytesIn"] + launch["bytesOut"] <= 1.05 * minimum
    assert launch["loadBalance"] >= 0.9
    # One group of every sample a core (32 cores): no shared group, so no barrier at all.
    assert launch["blockDim"] == 32
    assert launch["syncUs"] == 0


@pytest.mark.parametrize("dtype", (F32, BF16), ids=str)
@pytest.mark.parametrize(("shape", "mask"), [
    ((2, 320, 64, 32), (True, True, True)),     # channel slabs: gamma, mean, rstd of every sample
    ((3, 1280, 36, 16), (True, False, True)),   # channel slabs, groups spanning several cores
    ((2, 320, 1024, 32), (False, True, True)),  # dgamma/dbeta phase alone: mean, rstd per batch
    ((16, 256, 3136, 32), (False, True, False)),
], ids=["slab_sd_8sq", "slab_1280x6sq", "params_sd_32sq", "params_resnet_56"])
def test_stats_and_gamma_are_copied_into_ub_not_read_through_the_data_cache_on_a2(shape, mask, dtype):
    # A GM scalar read moves a 64-byte line per miss (sim DCache model): 12-100 KB per launch here
    # when each core read gamma, mean and rstd with GetValue; DataCopyPad moves the exact bytes.
    with _native.soc("ascend910b"):
        run_and_check(*shape, dtype, seed=14, mask=mask)
        (launch,) = _native.last_run()
    assert launch["ok"] and not launch["warnings"]
    assert launch["scalarGmBytesIn"] == 0
    assert launch["scalarGmBytesOut"] == 0


# ---- the error table of aclnnGroupNormBackward (docs/group_norm_grad.md) ----

# Sample rows (HxW = 1 on A2/A3): tiles of whole sample rows, per-group scalars broadcast over
# segments of S = C/G elements, dgamma/dbeta partials added in sample-chunk order after one SyncAll.
SAMPLE_ROWS = {
    "n_not_multiple_of_cores": (100, 256, 1, 32),  # S = 8
    "one_channel_per_group": (64, 64, 1, 64),      # S = 1: the stats are per element
    "c_per_group_8": (96, 256, 1, 32),
    "c_per_group_32": (200, 1024, 1, 32),
    "c_per_group_100": (50, 3200, 1, 32),          # segments padded to 32 bytes in UB
    "c_per_group_3": (33, 48, 1, 16),              # segments shorter than a block
    "c_8192": (6, 8192, 1, 32),
    "n_1": (1, 1024, 1, 32),
    "group_1": (40, 512, 1, 1),                    # one segment of 512 per sample
    "twelve_groups": (30, 96, 1, 12),              # group ranges whose stats rows are padded
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(SAMPLE_ROWS))
def test_sample_rows(name, dtype):
    run_and_check(*SAMPLE_ROWS[name], dtype, seed=11)


@pytest.mark.parametrize("mask", list(itertools.product((True, False), repeat=3)), ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_sample_rows_every_output_mask(mask, dtype):
    run_and_check(150, 256, 1, 32, dtype, seed=12, mask=mask)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(70, 256, 1, 32), (64, 64, 1, 64), (20, 300, 1, 3)],
                         ids=["s8", "s1", "s100"])
def test_sample_rows_gamma_null(shape, dtype):
    got = run_and_check(*shape, dtype, seed=13, with_gamma=False)
    assert got[1].shape == (shape[1],)


@pytest.mark.parametrize("dtype", (F32, BF16), ids=str)
@pytest.mark.parametrize("shape", [(512, 1024, 1, 32), (64, 8192, 1, 32), (256, 1024, 1, 1024)],
                         ids=["sample_chunks", "group_split", "s1"])
def test_sample_rows_deterministic_bitwise(shape, dtype):
    assert_bitwise_repeatable(shape, dtype, seed=14)


def test_sample_rows_read_once_on_all_cores():
    # 4096 x 1024 features, 32 groups, fp32: dy and x read once, dx written once, the dgamma/dbeta
    # partials about 1.6 % more, on every core.
    n, c, hw, g = 4096, 1024, 1, 32
    launch = single_launch((n, c, hw, g), F32, seed=15, soc="ascend910b")
    minimum = 3 * n * c * hw * 4
    assert launch["bytesIn"] + launch["bytesOut"] <= 1.05 * minimum
    assert launch["blockDim"] == 48
    assert launch["totalUs"] < 60.0  # 867 us with per-channel instructions


def _call(args: dict, n=2, c=8, hw=4, g=2, mask=(True, True, True)):
    with _native.bool_array(list(mask)) as m:
        tensors = {k: _native.tensor(v) if isinstance(v, np.ndarray) else v for k, v in args.items()}
        try:
            _native.call_aclnn(API, tensors["dy"], tensors["x"], tensors["mean"], tensors["rstd"],
                               tensors["gamma"], n, c, hw, g, m, tensors["dx"], tensors["dgamma"],
                               tensors["dbeta"])
        finally:
            for t in tensors.values():
                if isinstance(t, _native.DeviceTensor):
                    t.close()


def _good(n=2, c=8, hw=4, g=2, dtype=F32):
    return {"dy": np.ones((n, c, hw), dtype), "x": np.ones((n, c, hw), dtype),
            "mean": np.zeros((n, g), dtype), "rstd": np.ones((n, g), dtype), "gamma": np.ones(c, dtype),
            "dx": np.zeros((n, c, hw), dtype),
            "dgamma": np.zeros(c, dtype), "dbeta": np.zeros(c, dtype)}


ERROR_ROWS = [
    # (description, changes, kwargs, status, message fragment)
    ("gradOut null", {"dy": None}, {}, 161001, "gradOut is null"),
    ("input null", {"x": None}, {}, 161001, "input is null"),
    ("mean null", {"mean": None}, {}, 161001, "mean is null"),
    ("rstd null", {"rstd": None}, {}, 161001, "rstd is null"),
    ("gradInput null, mask[0]", {"dx": None}, {}, 161001, "gradInput is null but outputMask[0] is true"),
    ("gradGammaOut null, mask[1]", {"dgamma": None}, {}, 161001, "gradGammaOut is null but outputMask[1]"),
    ("gradBetaOut null, mask[2]", {"dbeta": None}, {}, 161001, "gradBetaOut is null but outputMask[2]"),
    ("gradOut dtype", {"dy": np.ones((2, 8, 4), np.int32)}, {}, 161002,
     "gradOut has dtype int32, expected float32, float16 or bfloat16"),
    ("input dtype", {"x": np.ones((2, 8, 4), F16)}, {}, 161002,
     "input has dtype float16, expected float32 like gradOut"),
    ("mean dtype", {"mean": np.zeros((2, 2), F16)}, {}, 161002, "mean has dtype float16"),
    ("rstd dtype", {"rstd": np.ones((2, 2), BF16)}, {}, 161002, "rstd has dtype bfloat16"),
    ("output dtype", {"dx": np.zeros((2, 8, 4), F16)}, {}, 161002, "gradInput has dtype float16"),
    ("gradInput shape", {"dx": np.zeros((2, 32), F32)}, {}, 161002,
     "gradInput has shape [2, 32], expected input's"),
    ("gradGammaOut shape", {"dgamma": np.zeros((1, 8), F32)}, {}, 161002, "gradGammaOut has shape [1, 8]"),
    ("gradBetaOut shape", {"dbeta": np.zeros(9, F32)}, {}, 161002, "gradBetaOut has shape [9]"),
    ("group 0", {}, {"g": 0}, 161002, "group is 0, expected > 0"),
    ("C % group", {}, {"g": 3}, 161002, "C = 8 is not divisible by group = 3"),
    ("input numel", {"x": np.ones((2, 8, 5), F32)}, {}, 161002,
     "input [2, 8, 5] has 80 elements, expected N * C * HxW = 64"),
    ("mean numel", {"mean": np.zeros((2, 3), F32)}, {}, 161002,
     "mean [2, 3] has 6 elements, expected N * group = 4"),
    ("rstd numel", {"rstd": np.ones(5, F32)}, {}, 161002, "rstd [5] has 5 elements, expected N * group = 4"),
    ("gamma numel", {"gamma": np.ones(7, F32)}, {}, 161002, "gamma [7] has 7 elements, expected C = 8"),
]


@pytest.mark.parametrize("row", ERROR_ROWS, ids=[r[0] for r in ERROR_ROWS])
def test_error_table(row):
    _, changes, kwargs, status, fragment = row
    args = _good()
    args.update(changes)
    with pytest.raises(normgrad.AclnnError) as info:
        _call(args, **kwargs)
    assert info.value.status == status
    assert fragment in info.value.message
    assert "aclnnGroupNormBackward" in info.value.message


def test_masked_off_outputs_may_be_null():
    args = _good()
    args.update({"dx": None, "dgamma": None})
    _call(args, mask=(False, False, True))


def test_output_mask_needs_three_entries():
    with pytest.raises(normgrad.AclnnError) as info:
        _call(_good(), mask=(True, True))
    assert info.value.status == 161002 and "outputMask has 2 elements, expected 3" in info.value.message


def test_bf16_rejected_where_the_soc_has_none():
    with _native.soc("ascend910"), pytest.raises(normgrad.AclnnError) as info:
        _call(_good(dtype=BF16))
    assert info.value.status == 161002
    assert "bfloat16" in info.value.message and "ascend910" in info.value.message


# ---- Atlas training series (ascend910): no DataCopyPad, no hard SyncAll, fp32 and fp16 ----

TRAINING_EDGES = {
    "sd_unet_320x64sq": (2, 320, 64 * 64, 32),   # fp16 whole groups; fp32 split waves, soft SyncAll
    "resnet_7x7": (8, 512, 49, 32),             # odd rows: head blocks + overlapping tail block
    "hw_1": (16, 64, 1, 8),                     # rows below one block: packed dx on one core
    "hw_3_tensor_below_one_block": (1, 2, 3, 1),  # 6 elements: outputs staged in whole blocks
    "hw_9": (2, 8, 9, 4),                       # fp32: block + tail; fp16: below one block
    "hw_17_c_below_block": (1, 3, 17, 3),       # C = 3: dgamma/dbeta shorter than a block
    "one_channel_per_group": (2, 32, 300, 32),
    "channels_per_group_8192": (2, 16384, 2, 2),
    "n_1": (1, 320, 1024, 32),
    "group_1": (3, 64, 100, 1),
    "odd_everything": (5, 33, 1023, 11),
    "c_not_block_multiple": (2, 100, 49, 4),    # last dgamma block rewritten from the last 8/16 channels
    "neck_like_row_pieces": (2, 6, 40000, 3),   # split rows, odd last piece
    "odd_row_pieces": (1, 4, 70001, 2),
    "two_pass": (1, 16, 512 * 512, 1),          # a group larger than all 32 cores' UB
}


@pytest.mark.parametrize("dtype", (F32, F16), ids=str)
@pytest.mark.parametrize("name", sorted(TRAINING_EDGES))
def test_training_series_edges(name, dtype):
    with _native.soc("ascend910"):
        run_and_check(*TRAINING_EDGES[name], dtype, seed=11)
        (launch,) = _native.last_run()
    assert launch["soc"] == "ascend910" and launch["warnings"] == [], launch["warnings"]


@pytest.mark.parametrize("mask", list(itertools.product((True, False), repeat=3)), ids=str)
@pytest.mark.parametrize("dtype", (F32, F16), ids=str)
def test_training_series_every_output_mask(mask, dtype):
    with _native.soc("ascend910"):
        run_and_check(2, 64, 197, 8, dtype, seed=12, mask=mask)


@pytest.mark.parametrize("mask", [(False, True, True), (False, True, False), (True, False, True)], ids=str)
def test_training_series_short_rows_masks(mask):
    # HxW = 3 fp16 rows: dx is packed on one core; without dx all cores add their sums atomically.
    with _native.soc("ascend910"):
        run_and_check(4, 96, 3, 8, F16, seed=16, mask=mask)


@pytest.mark.parametrize("dtype", (F32, F16), ids=str)
def test_training_series_gamma_null(dtype):
    with _native.soc("ascend910"):
        run_and_check(2, 40, 13, 8, dtype, seed=13, with_gamma=False)


@pytest.mark.parametrize("shape",
                         [(2, 320, 4096, 32), (16, 64, 1, 8), (1, 16, 512 * 512, 1), (2, 6, 40000, 3)],
                         ids=["split_waves", "packed_rows", "two_pass", "row_pieces"])
def test_training_series_deterministic_bitwise(shape):
    assert_bitwise_repeatable(shape, F32, seed=14, soc="ascend910")


def test_training_series_reads_dy_and_x_once_on_all_cores():
    # SD-UNet 320 x 64x64 fp16 on 32 cores: whole groups, so dy and x are read once; the piece sums
    # take one 32-byte block each (2 x 640 x 32 bytes written and read back, < 1 %).
    n, c, hw, g = 2, 320, 4096, 32
    launch = single_launch((n, c, hw, g), F16, seed=15, soc="ascend910")
    minimum = 3 * n * c * hw * 2
    assert launch["bytesIn"] + launch["bytesOut"] <= 1.01 * minimum
    assert launch["blockDim"] == 32


def test_python_argument_errors_name_the_argument():
    with pytest.raises(TypeError, match="grad_out must be a numpy.ndarray"):
        one = np.ones(1, F32)
        normgrad.group_norm_backward([1.0], one, one, one, None, 1, 1, 1, 1)
    z = np.ones((1, 2, 2), F32)
    with pytest.raises(TypeError, match="group must be an int"):
        normgrad.group_norm_backward(z, z, np.ones(1, F32), np.ones(1, F32), None, 1, 2, 2, 1.0)


# ---- the golden against torch's autograd, once ----

def test_golden_matches_torch_autograd():
    torch = pytest.importorskip("torch")
    n, c, hw, g = 3, 12, 10, 4
    rng = np.random.default_rng(10)
    x = rng.standard_normal((n, c, hw))
    dy = rng.standard_normal((n, c, hw))
    gamma = rng.standard_normal(c)
    tx = torch.tensor(x, requires_grad=True)
    tw = torch.tensor(gamma, requires_grad=True)
    tb = torch.zeros(c, dtype=torch.float64, requires_grad=True)
    y = torch.nn.functional.group_norm(tx, g, tw, tb, eps=1e-5)
    y.backward(torch.tensor(dy))
    mean, rstd = group_norm_forward_stats(x, n, c, hw, g)
    dx, dgamma, dbeta = golden(dy, x, mean, rstd, gamma, n, c, hw, g)
    np.testing.assert_allclose(dx, tx.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(dgamma, tw.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(dbeta, tb.grad.numpy(), rtol=1e-9, atol=1e-12)
