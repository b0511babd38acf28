"""The official-kernel models of `normgrad bench --compare`, on shapes computed by hand.

A fixed profile (the A2 figures of docs/sim.md, "Cost-model constants") keeps the figures independent
of the library; the sums below spell out every term so each can be checked on paper.
"""

from __future__ import annotations

import pytest

from normgrad import official_model as om

# A2: 48 cores, 192 KiB UB, 1.5 TB/s sustained (1.5e6 bytes/us), 32 B/cycle at 1.85 GHz (59 200
# bytes/us per core), 5 us launch, 2 us SyncAll, 192 MB L2.
A2 = {"name": "ascend910b", "family": "ascend910b", "aivCores": 48, "ubBytes": 196608, "hbmSustainedTBs": 1.5,
      "clockGHz": 1.85, "coreDmaBytesPerCycle": 32, "launchUs": 5.0, "syncAllUs": 2.0, "l2Bytes": 192 * 2**20}
HBM, PORT = 1.5e6, 59_200.0


def test_hit_fraction_is_the_share_of_the_tensor_within_the_capacity():
    assert om.hit_fraction(1.0, 2.0, 3.0) == 1.0
    assert om.hit_fraction(4.0, 5.0, 3.0) == 0.0
    assert om.hit_fraction(1.0, 2.0, 1.5) == pytest.approx(0.5)  # first half of the tensor
    assert om.hit_fraction(3.0, 1.0, 2.0) == pytest.approx(0.5)  # second half


def test_launch_time_is_launch_plus_the_slower_of_hbm_and_the_busiest_port_plus_syncs():
    hbm_bound = om.Launch("a", 48, 3e6, 1.5e6, 10.0, 10.0, l2_hit_bytes=1.5e6, syncs=2)
    assert om.launch_time_us(hbm_bound, A2) == pytest.approx(5 + 3e6 / HBM + 2 * 2)  # (3 - 1.5 + 1.5) MB
    port_bound = om.Launch("b", 1, 592_000.0, 0.0, 592_000.0, 0.0)
    assert om.launch_time_us(port_bound, A2) == pytest.approx(5 + 10.0)  # one core, 592 kB at 59.2 kB/us


@pytest.mark.parametrize(("cpg", "hw", "itemsize", "mode"), [
    (2, 4096, 4, 0),    # 8192 fp32: 3 * 32 KiB staged fits beside the 1120-byte reserve
    (2, 8192, 4, 1),    # the group does not fit; one channel (3 * 32 KiB) does
    (2, 16384, 4, 3),   # not even one channel
    (10, 4096, 2, 2),   # fp16 at 6 bytes staged: 2 channels of 72 KiB
    (16, 16384, 2, 3),  # sd-vae 512 channels / 32 groups, 128x128
    (2, 3136, 4, 0),    # resnet 56x56
    (4, 1, 4, 5),       # HxW = 1
])
def test_group_norm_mode_follows_the_official_ub_budget(cpg, hw, itemsize, mode):
    assert om.group_norm_mode(cpg, hw, itemsize, 196608) == mode


def test_group_norm_two_passes_and_their_l2_hits():
    # N=2, C=64, HxW=8192, G=32, fp32: mode 1, 64 tasks -> 2 per core on 32 cores, group = 2 * 8192 * 4.
    group = 65536
    task_in, stats = 4 * group, 2 * 64 + 2 * 4  # dy, x twice; mean/rstd cache lines and gamma
    bytes_in = 64 * (task_in + stats)
    bytes_out = 64 * group + 2 * 64 * 8 + 2 * 64 * 4  # dx, atomics of the partials, zeroed outputs
    hits = 64 * 2 * group  # 192 MB / 32 cores >> the 3 * group reuse distance: pass 2 all from L2
    busiest_in, busiest_out = 2 * (task_in + stats), 2 * (group + 2 * 2 * 4) + 2 * 64 * 4
    e = om.group_norm(2, 64, 8192, 32, 4, A2)
    (launch,) = e.launches
    assert (launch.cores, launch.syncs) == (32, 1)  # fp32 with N <= 2: no workspace stage
    assert (launch.bytes_in, launch.bytes_out, launch.l2_hit_bytes) == (bytes_in, bytes_out, hits)
    assert (launch.busiest_in, launch.busiest_out) == (busiest_in, busiest_out)
    expect = 5 + max((bytes_in - hits + bytes_out) / HBM, busiest_in / PORT) + 2
    assert expect == pytest.approx(5 + busiest_in / PORT + 2)  # the busiest port, not HBM, bounds it
    assert e.us == pytest.approx(expect)
    # An L2 whose per-core share is 2.5 groups: only the first half of pass 2 still hits.
    small = dict(A2, l2Bytes=32 * 2.5 * group)
    assert om.group_norm(2, 64, 8192, 32, 4, small).launches[0].l2_hit_bytes == pytest.approx(hits / 2)


def test_group_norm_n_above_2_adds_the_workspace_stage_and_a_second_sync():
    e = om.group_norm(4, 64, 8192, 32, 4, A2)
    (launch,) = e.launches
    assert launch.syncs == 2
    # dx, partial atomics N*C*8, zeroed workspace ceil(N/2)*C*8 plus fp32 outputs, two-half stage 2.
    assert launch.bytes_out == 128 * 65536 + 4 * 64 * 8 + (2 * 64 * 8 + 2 * 64 * 4) + 4 * 64 * 4


@pytest.mark.parametrize(("cols", "itemsize", "template"), [
    (768, 4, "single_read"), (12176, 2, "single_read"), (767, 4, "common"), (48, 2, "common"),
    (50, 4, "transpose"), (12177, 2, "workspace"),
])
def test_layer_norm_template_by_row_length(cols, itemsize, template):
    assert om.layer_norm_template(cols, itemsize) == template


def test_layer_norm_single_read_charges_per_row_atomics():
    # 96 rows x 1024 fp32: 2 rows per core on 48 cores; 11 rows per UB pass, so gamma loads once.
    row_in, row_out, gamma = 2 * 4096 + 8, 4096 + 2 * 1024 * 4, 4096  # dx plus dy and dy*x^ atomics
    finals_in = 48 * 2 * 1024 * 4  # every core's two partial rows, read after the SyncAll
    bytes_in = 96 * row_in + 48 * gamma + finals_in
    bytes_out = 96 * row_out + 48 * 2 * 1024 * 4 + 2 * 1024 * 4  # rows, zeroed slots, dgamma/dbeta
    busiest_in = 2 * row_in + gamma + 48 * 2 * 64 * 4  # one 64-column chunk of the final reduction
    e = om.layer_norm(96, 1024, 4, A2)
    (launch,) = e.launches
    assert (launch.bytes_in, launch.bytes_out, launch.busiest_in) == (bytes_in, bytes_out, busiest_in)
    assert e.us == pytest.approx(5 + (bytes_in + bytes_out) / HBM + 2)


def test_layer_norm_one_row_runs_on_one_core():
    # M = 1, 1e6 fp32 columns (workspace template): the whole row goes through one core's port.
    e = om.layer_norm(1, 1_000_000, 4, A2)
    assert e.us > 5 + 1_000_000 * (2 * 4 + 4 + 8) / PORT


def test_batch_norm_elemt_composition_launch_by_launch():
    # 20 x 128 fp32 (2560 elements): counter cast, sum, two divisions, five broadcasts, the kernel.
    numel, c = 2560, 128
    fp32 = om.batch_norm_elemt(numel, c, 4, A2)
    assert len(fp32.launches) == 10 and len(om.batch_norm_elemt(numel, c, 2, A2).launches) == 13
    kernel = fp32.launches[-1]
    assert (kernel.bytes_in, kernel.bytes_out) == (7 * numel * 4, numel * 4)
    assert kernel.l2_hit_bytes == 5 * numel * 4  # the broadcasts were just written
    # Each launch here is bounded by its one core's port (1 core: 2560 < two 3072-element tiles).
    expect = (10 * 5 + 2 * 4 / PORT + 2 * (4 * c + 4) / PORT + 5 * numel * 4 / PORT
              + 7 * numel * 4 / PORT)
    assert fp32.us == pytest.approx(expect)


def test_no_model_for_the_training_series():
    profile = dict(A2, name="Ascend910ProA", family="ascend910")  # any chip of the family
    assert om.estimate("group_norm_grad", {"n": 2, "c": 64, "hw": 8192, "g": 32}, 4, profile) is None
    assert om.estimate("layer_norm_grad", {"rows": 96, "cols": 1024}, 4, A2) is not None


def test_official_group_norm_limit_on_c_per_group_is_a2_a3_only():
    # The official API refuses C / group > 8000 (and C > 240000) on A2/A3 only: no official time there.
    assert om.official_group_norm_refusal(16384, 2, "ascend910b") is not None  # 8192 per group
    assert "8000" in om.official_group_norm_refusal(16384, 2, "ascend910_93")
    assert om.official_group_norm_refusal(16000, 2, "ascend910b") is None  # exactly 8000
    assert "240000" in om.official_group_norm_refusal(240032, 32, "ascend910b")
    for family in ("ascend950", "ascend910"):
        assert om.official_group_norm_refusal(16384, 2, family) is None
        assert om.official_group_norm_refusal(240032, 32, family) is None
    assert om.estimate("group_norm_grad", {"n": 2, "c": 16384, "hw": 2, "g": 2}, 4, A2) is None
    assert om.estimate("group_norm_grad", {"n": 2, "c": 16000, "hw": 2, "g": 2}, 4, A2) is not None
