// GroupNormGrad tiling candidate: re-read groups (mode kGngRereadGroups, kernel
// op_kernel/group_norm_grad_reread_groups.h), A2/A3 only (DataCopyPad, hard SyncAll).
// Each core owns whole groups; a group larger than the tile is read twice, the second read served
// by the L2 (the simulator's per-core reuse window, l2Bytes / blockDim). Three layouts
// (GroupNormGradRereadLayout):
//   owner        core k takes group k of every sample (g <= cores): dgamma/dbeta without a SyncAll;
//   runs         contiguous runs of the n*g groups: one SyncAll before dgamma/dbeta;
//   split phase  an even share of all pieces per core, all of it re-read, the barrier's latency
//                hidden under the dx of the groups wholly inside the share (the share's bytes
//                must then fit the core's L2 share three times over).
// It replaces the shared group-phase plan (whole groups, then split waves with one SyncAll each)
// only where its modeled time is lower; both are priced by GngModeledUs below with kTilingCost
// (docs/cost-model.md §4). SD-VAE 512 ch 128x128 fp32: 32 groups of 1 MiB per tensor, one per
// core, owner layout: no SyncAll instead of 11, 94.2 -> ~76 us.
#include <algorithm>

#include "group_norm_grad_tiling_plan.h"
#include "tiling_cost.h"
#include "tiling_math.h"

namespace normgrad {
namespace {

constexpr double kVectorIssueCycles = 10.0;  // one vector instruction's issue (docs/cost-model.md §3)

// Vector cycles of the tile (op_kernel/group_norm_grad_tile.h) per element and per piece of len
// elements, fitted to the simulator's counts (ESTIMATE, docs/cost-model.md §4): 64-lane repeats
// of sums (Mul, two accumulations) and dx (Muls, Adds, Axpy), plus four casts in and one out for
// 16-bit data; instructions issue per chunk and row for 64-lane accumulators, or, for many short
// rows a chunk, per 64 lanes of the chunk's row fold.
double VectorCycles(const GroupNormGradTiling& t, uint64_t s, const GngLoad& load) {
  const double repeats = s == 4 ? 6.0 : 11.0;
  const uint64_t len = t.segLen;
  const uint64_t rows = len <= t.chunkElems ? t.chunkElems / len : 0;
  const bool fold = rows > 0 && 2 * rows >= len / 64;
  const double perPiece = fold ? (2.0 * static_cast<double>(CeilDiv(len, 64)) + 7.0) / static_cast<double>(rows) + 2.0
                               : repeats * static_cast<double>(CeilDiv(len, t.chunkElems)) + 3.0;
  return static_cast<double>(load.elems) / 64.0 * repeats +
         kVectorIssueCycles * perPiece * static_cast<double>(load.pieces);
}

}  // namespace

double GngModeledUs(const GroupNormGradTiling& t, uint64_t s, const GngLoad& load) {
  const double hbmBytes = 3.0 * static_cast<double>(t.n * t.c * t.hw * s);
  const double vectorUs = VectorCycles(t, s, load) / kTilingCost.cyclesPerUs;
  const double portUs = static_cast<double>(load.inBytes) / kTilingCost.coreDmaBytesPerUs;
  const double fillUs = static_cast<double>((load.copySlots * t.rowStride + t.chunkElems) * s) /
                        kTilingCost.coreDmaBytesPerUs;
  const double coreUs = std::max(portUs, vectorUs) + static_cast<double>(1 + load.syncs) * fillUs;
  const double syncUs = static_cast<double>(load.syncs) * kTilingCost.syncAllUs;
  return std::max(hbmBytes / kTilingCost.hbmBytesPerUs, coreUs) +
         (load.syncs > 0 ? std::max(syncUs - std::min(load.hiddenUs, kTilingCost.syncAllUs), 0.0) : 0.0);
}

namespace {

// The shared plan's busiest core: its whole groups plus its share of every split wave.
GngLoad PlanLoad(const GngGroupPhases& plan, uint64_t s) {
  const GroupNormGradTiling& t = plan.t;
  GngLoad load;
  const uint64_t groupElems = t.channelsPerGroup * t.hw;
  load.elems = t.wholeGroupsPerCore * groupElems;
  load.pieces = t.wholeGroupsPerCore * t.groupSlots;
  load.copySlots = t.wholeTileSlots;
  for (uint64_t done = 0; t.waveGroups > 0 && done < plan.rest; done += t.waveGroups) {
    const uint64_t pieces = std::min(t.waveGroups, plan.rest - done) * t.groupSlots;
    load.elems += CeilDiv(pieces, t.blockDim) * t.segLen;
    load.pieces += CeilDiv(pieces, t.blockDim);
    load.copySlots = std::min(t.splitTileSlots, CeilDiv(pieces, t.blockDim));
    ++load.syncs;
  }
  load.inBytes = 2 * load.elems * s * (plan.streamed ? 2 : 1);
  if (plan.rest == 0 && (t.needDgamma || t.needDbeta)) load.syncs = 1;
  if (t.paramsSplitPhase) {
    // The split-phase barrier is charged only past the dx the last tile writes between the set
    // and the wait; with a split wave, its slice is read a second time (from the L2).
    load.hiddenUs = GngSplitPhaseHiddenUs(t);
    if (plan.rest > 0) load.inBytes += 2 * GngWaveSliceBytes(t, plan.rest, s);
  }
  return load;
}

// This mode's busiest core with `most` groups: pass 2 re-reads all but the resident last tile of a
// group, or with split phase every group (and its barrier costs what pass 2 does not cover).
GngLoad RereadLoad(const GroupNormGradTiling& t, uint64_t s, uint64_t most) {
  GngLoad load;
  const uint64_t groupElems = t.channelsPerGroup * t.hw;
  const bool owner = t.rereadLayout == kGngRereadOwner;
  const bool params = t.needDgamma || t.needDbeta;
  load.elems = most * groupElems;
  load.pieces = most * t.groupSlots;
  load.copySlots = t.wholeGroupsPerTile == 0 ? t.splitTileSlots
                                              : t.groupSlots * (owner ? 1 : t.wholeGroupsPerTile);
  uint64_t reread = 0;
  if (t.wholeGroupsPerTile == 0) {
    const uint64_t lastTile = t.groupSlots - (t.groupSlots - 1) / t.splitTileSlots * t.splitTileSlots;
    reread = groupElems * (t.groupSlots - lastTile) / t.groupSlots;
  }
  load.inBytes = 2 * most * (groupElems + reread) * s;
  load.syncs = t.rereadLayout == kGngRereadRuns && params ? 1 : 0;
  if (t.rereadLayout == kGngRereadRunsSplitPhase) {
    // `most` counts pieces here: the busiest share, all of it read twice. The barrier is hidden
    // when the dx of the groups wholly inside the share (at least the share less two groups)
    // takes the core's port at least one SyncAll's time.
    load.pieces = most;
    load.elems = most * t.segLen;
    load.inBytes = 4 * load.elems * s;
    const uint64_t inner = most > 2 * t.groupSlots ? most - 2 * t.groupSlots : 0;
    const double pass2Us = static_cast<double>(2 * inner * t.segLen * s) / kTilingCost.coreDmaBytesPerUs;
    load.syncs = pass2Us >= kTilingCost.syncAllUs ? 0 : 1;
  }
  return load;
}

// The plan for one layout, or false when a re-read would miss the L2 or a tile holds no piece.
bool PlanLayout(const GngPlanInput& in, const GroupNormGradTiling& geometry, GroupNormGradRereadLayout layout,
                GroupNormGradTiling* out, uint64_t* most) {
  GroupNormGradTiling t = geometry;
  t.paramsSplitPhase = 0;  // the shared plan's whole-group barrier; this mode has its own
  const uint64_t s = in.elemBytes;
  const uint64_t groups = t.n * t.g;
  const bool owner = layout == kGngRereadOwner;
  const bool params = t.needDgamma || t.needDbeta;
  if (layout == kGngRereadRunsSplitPhase && !params) return false;  // no barrier to hide
  t.mode = kGngRereadGroups;
  t.rereadLayout = layout;
  const uint64_t pieces = groups * t.groupSlots;
  const bool split = layout == kGngRereadRunsSplitPhase;
  t.blockDim = static_cast<uint32_t>(owner ? t.g : std::min(in.coreCount, split ? pieces : groups));
  *most = owner ? t.n : CeilDiv(split ? pieces : groups, t.blockDim);  // split phase: pieces
  t.wholeGroupsPerCore = 0;
  t.wholeGroupsPerTile = 0;
  t.wholeTileSlots = 0;
  t.wholeBufferNum = 1;
  t.waveGroups = 0;
  t.splitTileSlots = GngMaxSlots(s, t.chunkElems, t.rowStride, 1, GngWorkspaceBatch(t.groupSlots), in.budget,
                                 in.path);
  if (t.splitTileSlots == 0) return false;
  // Between a byte's two reads the core moves the rest of pass 1, pass 2 so far and dx: at most
  // three times the bytes of one tensor read in between (a group; with split phase the whole
  // run), which must stay within the core's share of the L2.
  const uint64_t groupBytes = t.channelsPerGroup * t.hw * s;
  if (split) {
    if (3 * *most * t.segLen * s * t.blockDim > kTilingCost.l2Bytes * 9 / 10) return false;
  } else if (t.groupSlots <= t.splitTileSlots) {
    // Runs of one group each publish their sums run by run from 32-byte aligned UB offsets.
    const bool runsOk = !owner || !params || t.groupSlots % 8 == 0;
    t.wholeGroupsPerTile = runsOk ? std::min(t.splitTileSlots / t.groupSlots, *most) : 1;
  } else if (3 * groupBytes * t.blockDim > kTilingCost.l2Bytes * 9 / 10) {
    return false;
  }
  GngChooseParamBatches(s, in.budget, &t);
  t.planeBytes = AlignUp(t.n * t.c * t.hwParts * 4, 512);
  t.workspaceBytes = 2 * t.planeBytes;
  t.syncOffset = t.workspaceBytes;
  t.ubBytesUsed = GroupNormGradUbBytes(t);
  if (t.ubBytesUsed > in.budget) return false;
  *out = t;
  return true;
}

}  // namespace

bool GngPlanRereadGroups(const GngPlanInput& in, GngGroupPhases* cache, GroupNormGradTiling* out,
                         std::string* /*why*/) {
  const GroupNormGradTiling& base = in.base;
  if (!base.needDx || base.blockCopyOnly || base.softSync) return false;
  const GngGroupPhases& plan = GngGroupPhasesOf(in, cache);
  if (!plan.why.empty()) return false;  // the group-phase candidates report it
  const uint64_t s = in.elemBytes;
  // Taken only when 2 % faster than the plan: the vector and fill terms are estimates (within
  // ~1 % of the simulator on the suite), and a tie keeps the plan's launches.
  double best = 0.98 * GngModeledUs(plan.t, s, PlanLoad(plan, s));
  bool taken = false;
  // The plan's chunk, 2048, 4096 or 8192: fewer instructions per element, fewer slots a tile
  // (which only the core's port feels, through a smaller resident last tile). 8192 only refines
  // an owner layout already taken with a smaller chunk (SD-UNet 320 ch 32x32 16-bit: 8.72 ->
  // 8.05 us), never replaces the plan or adds a barrier: its estimate is the least certain, and
  // against a barrier the ranking hangs on the barrier's cost (640 ch 32x32 16-bit: 0.2 % faster
  // with a 2 us SyncAll, 6.6 % slower with 1 us; 3 x 256 x 32x32 g16 16-bit would take runs with
  // a SyncAll and run 9.03 -> 10.16 us).
  for (uint64_t chunk : {plan.t.chunkElems, uint64_t{2048}, uint64_t{4096}, uint64_t{8192}}) {
    GroupNormGradTiling geometry = plan.t;
    geometry.chunkElems = chunk;
    for (GroupNormGradRereadLayout layout : {kGngRereadOwner, kGngRereadRuns, kGngRereadRunsSplitPhase}) {
      if (layout == kGngRereadOwner && base.g > in.coreCount) continue;
      if (chunk == 8192 && (layout != kGngRereadOwner || !taken || out->rereadLayout != kGngRereadOwner)) continue;
      GroupNormGradTiling t{};
      uint64_t most = 0;
      if (!PlanLayout(in, geometry, layout, &t, &most)) continue;
      const double us = GngModeledUs(t, s, RereadLoad(t, s, most));
      if (us < best) {
        best = us;
        *out = t;
        taken = true;
      }
    }
  }
  return taken;
}

}  // namespace normgrad
