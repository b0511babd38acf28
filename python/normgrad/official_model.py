"""Models of the official (Huawei ops-nn) kernels' algorithms on Atlas A2/A3, for `normgrad bench --compare`.

Each operator's model is a small function of the case's shape and dtype that lists the official
path's launches and, per launch, the bytes it moves, its cores and its all-core barriers (how the
official kernels work: the "Official kernels" section of each operator page in docs/). It is priced
with the constants of the SoC profile the simulator uses (`_native.socs()`, so `--what-if` changes
both sides alike) by the simulator's own rules (docs/cost-model.md §2, docs/sim.md):

    launch = launchUs + max(HBM bytes / sustained bandwidth, busiest core's in or out bytes / core port)
             + SyncAlls * syncAllUs
    HBM bytes = bytes in - L2 hits + bytes out

L2 hits follow the simulator's reuse-distance rule (docs/sim.md, "L2 cache"): a re-read by the core
that last touched the bytes hits when the bytes that core moved since, times the launch's cores, fit
in the L2. The official BatchNorm path also passes full-size tensors between launches; those re-reads
hit when the chip moved no more than the L2 since the write (the same rule at chip level; the
simulator gives our own kernels no such hits).

What the models leave out, all in the official kernels' favour: vector time (their kernels do at
least our arithmetic per element), DMA issue costs, pipeline fills and drains (they mostly do not
double-buffer), the serialisation of ordered atomics and of per-row scalar reads. So a speed-up
over the model is a lower bound of the speed-up over the algorithm.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# SoC families whose official kernels the models describe (ops-nn's A2/A3 code paths). Ascend 950
# has its own official kernels (ops-nn's arch35 "regbase" paths), which no model here describes.
MODELED_SOCS = ("ascend910b", "ascend910_93")

# The official GroupNormGrad's limits on C: its page (docs/group_norm_grad.md, "Official kernels")
# allows C / group <= 8000 on Atlas A2/A3 only, and ops-nn's aclnnGroupNormBackward checks it (with
# C <= 240000) only on that architecture (NpuArch DAV_2201); the 950 and the training series have no
# such limit. normgrad itself takes any C / group on every SoC.
OFFICIAL_GROUP_NORM_C_LIMITS = {"ascend910b": (8000, 240000), "ascend910_93": (8000, 240000)}


def official_group_norm_refusal(c: int, g: int, family: str) -> str | None:
    """Why the official aclnnGroupNormBackward refuses C channels in g groups on `family`, or None."""
    per_group_max, c_max = OFFICIAL_GROUP_NORM_C_LIMITS.get(family, (None, None))
    if per_group_max is not None and c // g > per_group_max:
        return f"the official kernel takes C / group <= {per_group_max} on {family}, got {c // g}"
    if c_max is not None and c > c_max:
        return f"the official kernel takes C <= {c_max} on {family}, got {c}"
    return None


@dataclass(frozen=True)
class Launch:
    """One kernel launch of the official path. Bytes are totals over the launch's cores.

    busiest_in / busiest_out are the GM->UB / UB->GM bytes of its busiest core (L2 hits included:
    they still take the core's port); l2_hit_bytes leave the HBM term only.
    """

    name: str
    cores: int
    bytes_in: float
    bytes_out: float
    busiest_in: float
    busiest_out: float
    l2_hit_bytes: float = 0.0
    syncs: int = 0


@dataclass(frozen=True)
class Estimate:
    """The modeled time of an official path and what it consists of."""

    launches: tuple[Launch, ...]
    us: float
    launch_us: tuple[float, ...] = field(default=())

    @property
    def bytes_moved(self) -> float:
        return sum(launch.bytes_in + launch.bytes_out for launch in self.launches)

    @property
    def syncs(self) -> int:
        return sum(launch.syncs for launch in self.launches)


def hit_fraction(d0: float, d1: float, capacity: float) -> float:
    """The share of a re-read tensor that hits the L2 when the reuse distance of its element at
    position f (0..1 through the tensor) is d0 + f * (d1 - d0) and a hit needs distance <= capacity."""
    if d0 <= capacity and d1 <= capacity:
        return 1.0
    if d0 > capacity and d1 > capacity:
        return 0.0
    crossing = (capacity - d0) / (d1 - d0)  # where d(f) == capacity, strictly inside (0, 1)
    return crossing if d0 <= capacity else 1.0 - crossing


def launch_time_us(launch: Launch, profile: Mapping[str, Any]) -> float:
    """The simulator's chip formula applied to a modeled launch (docs/cost-model.md §2)."""
    hbm_bytes = launch.bytes_in - launch.l2_hit_bytes + launch.bytes_out
    hbm_us = hbm_bytes / (float(profile["hbmSustainedTBs"]) * 1e12) * 1e6
    port_bytes_per_us = float(profile["coreDmaBytesPerCycle"]) * float(profile["clockGHz"]) * 1e3
    port_us = max(launch.busiest_in, launch.busiest_out) / port_bytes_per_us
    return float(profile["launchUs"]) + max(hbm_us, port_us) + launch.syncs * float(profile["syncAllUs"])


def price(launches: Sequence[Launch], profile: Mapping[str, Any]) -> Estimate:
    times = tuple(launch_time_us(launch, profile) for launch in launches)
    return Estimate(tuple(launches), sum(times), times)


def _align(n: int, unit: int) -> int:
    return -(-n // unit) * unit


# --- GroupNormGrad ---------------------------------------------------------------------------------

def group_norm_mode(c_per_group: int, hw: int, itemsize: int, ub_bytes: int) -> int:
    """The official tiling's mode: 5 (HxW = 1), 0 (a whole group fits the UB in fp32 staging with
    three copies), 1/2 (one or more channels fit) or 3 (one channel does not fit)."""
    per_block = 32 // itemsize
    staged = 4 if itemsize == 4 else 6  # the element plus its fp32 copy for 16-bit types
    reserve = 1024 + _align(c_per_group, per_block) * staged * 3
    unaligned = 2 * _align(hw, per_block) * 4 if hw % 8 and c_per_group > 1 else 0
    if hw == 1:
        return 5
    if (ub_bytes - reserve - unaligned) // (_align(c_per_group * hw, per_block) * staged * 3) > 0:
        return 0
    channels = (ub_bytes - reserve) // (_align(hw, per_block) * staged * 3)
    return 1 if channels == 1 else 2 if channels > 1 else 3


def _unaligned_share(hw: int, unit: int) -> float:
    """The share of channels j whose start j*hw is not a multiple of unit elements."""
    return sum((j * hw) % unit != 0 for j in range(unit)) / unit


def group_norm(n: int, c: int, hw: int, g: int, itemsize: int, profile: Mapping[str, Any]) -> Estimate:
    """GroupNormGrad: one launch, one (n, g) group per task, tasks in contiguous runs over the cores.

    Mode 0/5 read a group once (unaligned channels again, from L2); modes 1-3 read it twice, the
    second pass hitting L2 as far as the per-core share allows. Partial dgamma/dbeta go out with
    atomics (a workspace when N > 2 or the dtype is 16-bit), one or two SyncAlls, a stage-2 reduction.
    """
    cores_max = int(profile["aivCores"])
    tasks = n * g
    per_core = -(-tasks // cores_max)
    cores = -(-tasks // per_core)
    cpg = c // g
    group = cpg * hw * itemsize  # one tensor's bytes of one group
    mode = group_norm_mode(cpg, hw, itemsize, int(profile["ubBytes"]))
    stats = 2 * 64 + cpg * itemsize  # mean and rstd as scalar reads (one cache line each), gamma
    # Per task: in = reads of dy and x, out = dx; hits = re-reads served by the L2.
    if mode in (0, 5):
        extra = _unaligned_share(hw, 8) + _unaligned_share(hw, 32 // itemsize) if mode == 0 else 0.0
        task_in, task_hits = 2 * group * (1 + extra), 2 * group * extra
    else:
        share = float(profile["l2Bytes"]) / cores
        # Element f of pass 2: the rest of pass 1 (2*group*(1-f)) plus pass 2 before it (3*group*f).
        task_in = 4 * group
        task_hits = 2 * group * hit_fraction(2 * group, 3 * group, share)
    deterministic = n > 2
    partials = n * c * 8  # per-(n, c) dgamma and dbeta, atomically added
    if deterministic:
        zeroed = -(-n // 2) * c * 8 + 2 * c * 4
        stage2_in, stage2_out = -(-n // 2) * c * 8, (4 if itemsize == 4 else 2) * c * itemsize
    elif itemsize == 4:
        zeroed, stage2_in, stage2_out = 2 * c * 4, 0, 0
    else:
        zeroed = 2 * c * 4 if n == 2 else 0
        stage2_in, stage2_out = (2 * c * 4, 2 * c * itemsize) if n == 2 else (0, 0)
    syncs = 1 if itemsize == 4 and not deterministic else 2
    bytes_in = tasks * (task_in + stats) + stage2_in
    bytes_out = tasks * group + partials + zeroed + stage2_out
    busiest_in = per_core * (task_in + stats) + stage2_in / cores
    busiest_out = per_core * (group + 2 * cpg * 4) + zeroed + stage2_out / cores
    return price([Launch("GroupNormGrad", cores, bytes_in, bytes_out, busiest_in, busiest_out,
                         tasks * task_hits, syncs)], profile)


# --- LayerNormGradV3 -------------------------------------------------------------------------------

def layer_norm_template(cols: int, itemsize: int) -> str:
    """The official template for rows of `cols` elements: transpose, common, single_read or workspace."""
    if cols <= 64 and cols != _align(cols, 32 // itemsize):
        return "transpose"
    if cols < 768:
        return "common"
    return "single_read" if cols <= 12176 else "workspace"


def layer_norm(rows: int, cols: int, itemsize: int, profile: Mapping[str, Any],
               gamma_itemsize: int = 4) -> Estimate:
    """LayerNormGradV3: one launch; rows split in contiguous runs of ceil(rows / cores); dgamma and
    dbeta partials per core in a workspace, then one SyncAll and a column-chunked final reduction.

    single_read adds each row's dy and dy*x^ to the core's partials with an atomic DMA (8 bytes per
    column per row) and reloads gamma every UB pass of floor(12204 / cols) rows; workspace (cols >
    12176) also stores x^ and dy*gamma in fp32 and reads them back for dx, gamma reloaded per row.
    """
    cores_max = int(profile["aivCores"])
    per_core = -(-rows // cores_max)
    used = -(-rows // per_core)
    template = layer_norm_template(cols, itemsize)
    block_dim = used if template == "transpose" else cores_max
    col_v = _align(cols, 8)
    share = float(profile["l2Bytes"]) / block_dim
    row_in, row_out = 2 * cols * itemsize + 8, cols * itemsize  # dy, x, mean, rstd; dx
    gamma = cols * gamma_itemsize
    hits_per_row = 0.0
    if template == "single_read":
        rows_per_pass = max(1, 12204 // _align(cols, 32 // itemsize))
        row_out += 2 * col_v * 4
        passes = -(-per_core // rows_per_pass)
        gamma_loads = passes  # per core; every reload after the first can hit
        reload_distance = rows_per_pass * (row_in + row_out + gamma)
    elif template == "workspace":
        spill = 2 * cols * 4  # x^ and dy*gamma in fp32
        pass1 = row_in + gamma + spill + 2 * col_v * 4
        row_in += spill  # gamma's per-row reload is counted below
        row_out += spill + 2 * col_v * 4
        hits_per_row = spill * hit_fraction(pass1, spill + cols * itemsize, share)
        gamma_loads, reload_distance = per_core, pass1 + spill + cols * itemsize
    else:
        gamma_loads, reload_distance = 1, 0.0
    gamma_hits = (gamma_loads - 1) * gamma * hit_fraction(reload_distance, reload_distance, share)
    zeroed = 2 * col_v * 4  # each core's partial slot
    finals_in = used * 2 * col_v * 4
    if template == "transpose":  # block 0 alone sums the per-core partials
        final_busiest_in, final_out, final_busiest_out = finals_in, 2 * cols * 4, 2 * cols * 4
    else:
        chunks = -(-cols // 64)
        per_chunk = used * 2 * 64 * 4
        final_busiest_in = -(-chunks // block_dim) * per_chunk
        final_out, final_busiest_out = 2 * cols * 4, -(-chunks // block_dim) * 2 * 64 * 4
    gamma_total = (rows if template == "workspace" else used * gamma_loads) * gamma
    bytes_in = rows * row_in + gamma_total + finals_in
    bytes_out = rows * row_out + block_dim * zeroed + final_out
    busiest_in = per_core * row_in + gamma_loads * gamma + final_busiest_in
    busiest_out = per_core * row_out + zeroed + final_busiest_out
    hits = rows * hits_per_row + used * gamma_hits
    return price([Launch(f"LayerNormGradV3 ({template})", block_dim, bytes_in, bytes_out, busiest_in,
                         busiest_out, hits, 1)], profile)


# --- BatchNorm elemt backward (aclnnBatchNormElemtBackward's composition) --------------------------

@dataclass(frozen=True)
class _Step:
    name: str
    reads: tuple[tuple[str, int], ...]  # (tensor, bytes)
    writes: tuple[tuple[str, int], ...]
    elementwise: bool = True  # spread over the cores; else one core


def _elementwise_cores(numel: int, cores_max: int) -> int:
    # The official element-wise tiling: 3072-element tiles, two per core at least (ESTIMATE for
    # the generic Cast / BroadcastTo kernels, which follow the same pattern).
    return max(1, min(cores_max, -(-numel // (2 * 3072))))


def batch_norm_elemt_steps(numel: int, c: int, itemsize: int) -> list[_Step]:
    """The launches aclnnBatchNormElemtBackward composes on A2/A3 for contiguous dy/x of `itemsize`
    bytes, fp32 statistics and weight, an int32 counter: promote to fp32 (full-size casts of dy and
    x when 16-bit), sum the counter, two divisions, five full-size BroadcastTo of the [C] vectors,
    the element-wise kernel on seven full-size fp32 tensors, the cast of dx back."""
    full = numel * 4
    steps: list[_Step] = []
    dy, x = ("dy", numel * itemsize), ("x", numel * itemsize)
    if itemsize != 4:
        steps += [_Step("Cast dy", (dy,), (("dy32", full),)), _Step("Cast x", (x,), (("x32", full),))]
        dy, x = ("dy32", full), ("x32", full)
    steps += [_Step("Cast counter", (("counter", 4),), (("counter32", 4),), False),
              _Step("ReduceSum counter", (("counter32", 4),), (("total", 4),), False),
              _Step("RealDiv sum_dy", (("sum_dy", 4 * c), ("total", 4)), (("mean_dy", 4 * c),), False),
              _Step("RealDiv sum_dy_xmu", (("sum_dy_xmu", 4 * c), ("total", 4)), (("mean_dy_xmu", 4 * c),),
                    False)]
    vectors = ("mean", "invstd", "weight", "mean_dy", "mean_dy_xmu")
    steps += [_Step(f"BroadcastTo {v}", ((v, 4 * c),), ((f"{v}_b", full),)) for v in vectors]
    out = "dx32" if itemsize != 4 else "dx"
    steps.append(_Step("SyncBatchNormBackwardElemt", (dy, x, *((f"{v}_b", full) for v in vectors)),
                       ((out, full),)))
    if itemsize != 4:
        steps.append(_Step("Cast dx", (("dx32", full),), (("dx", numel * itemsize),)))
    return steps


def batch_norm_elemt(numel: int, c: int, itemsize: int, profile: Mapping[str, Any]) -> Estimate:
    """The official composition, priced launch by launch; a full-size tensor one launch writes and a
    later one reads hits the L2 as far as the chip's traffic in between fits in it."""
    steps = batch_norm_elemt_steps(numel, c, itemsize)
    traffic = [sum(b for _, b in s.reads) + sum(b for _, b in s.writes) for s in steps]
    written_by = {name: i for i, s in enumerate(steps) for name, _ in s.writes}
    l2 = float(profile["l2Bytes"])
    cores_max = int(profile["aivCores"])
    launches = []
    for i, step in enumerate(steps):
        hits = 0.0
        for name, nbytes in step.reads:
            if name in written_by:
                a = written_by[name]
                between = sum(traffic[a + 1:i])
                hits += nbytes * hit_fraction(traffic[a] + between, between + traffic[i], l2)
        cores = _elementwise_cores(numel, cores_max) if step.elementwise else 1
        bytes_in = sum(b for _, b in step.reads)
        bytes_out = sum(b for _, b in step.writes)
        launches.append(Launch(step.name, cores, bytes_in, bytes_out, bytes_in / cores, bytes_out / cores,
                               hits))
    return price(launches, profile)


# --- dispatch ----------------------------------------------------------------------------------------

def estimate(op: str, params: Mapping[str, int], itemsize: int,
             profile: Mapping[str, Any]) -> Estimate | None:
    """The official path's modeled time for case parameters `params` (Case.params) on profile; None
    when no model exists (an operator or SoC the models do not describe) or the official API refuses
    the call (official_group_norm_refusal)."""
    if profile["family"] not in MODELED_SOCS or not params:
        return None
    if op == "group_norm_grad":
        if official_group_norm_refusal(params["c"], params["g"], profile["family"]) is not None:
            return None  # the official API refuses the call: there is no time to compare with
        return group_norm(params["n"], params["c"], params["hw"], params["g"], itemsize, profile)
    if op == "layer_norm_grad":
        return layer_norm(params["rows"], params["cols"], itemsize, profile)
    if op == "batch_norm_elemt_grad":
        return batch_norm_elemt(params["numel"], params["c"], itemsize, profile)
    return None


def speedup(ours_us: float | None, official_us: float | None) -> float | None:
    """official / ours: above 1 means ours is faster."""
    if not ours_us or official_us is None or math.isnan(official_us):
        return None
    return official_us / ours_us
