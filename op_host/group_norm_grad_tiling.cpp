// GroupNormGrad host tiling: (shape, dtype, outputs wanted, SoC) -> GroupNormGradTiling.
// The modes are candidates (group_norm_grad_tiling_<mode>.cpp, group-phase modes in
// group_norm_grad_tiling_group_phases.cpp) tried in the order of kCandidates: the first that takes
// the request plans it. This file holds the list, the UB figures of the kernel's phases (sums of
// group_norm_grad_ub_layout.h) and the slot search the tile phases share.
#include "group_norm_grad_tiling.h"

#include <algorithm>

#include "group_norm_grad_tiling_plan.h"
#include "tiling_math.h"

namespace normgrad {
namespace {

// One line per mode, in order of preference.
constexpr GngCandidate kCandidates[] = {
    GngPlanSampleRows,       // HxW = 1: tiles of sample rows
    GngPlanChannelSlab,      // every core holds all n of its channel range
    GngPlanParamsOnly,       // no dx: one streaming pass for the sums
    GngPlanRereadGroups,     // whole groups per core, re-read from L2: where modeled faster than the plan
    GngPlanWholeGroup,       // every group on one core
    GngPlanWholeGroupSplit,  // whole groups, then the rest split over all cores
    GngPlanSplitGroup,       // groups split over cores, each slice resident
    GngPlanTwoPass,          // a group exceeds every core's UB together: slices streamed twice
};

}  // namespace

GngCopyPath GngCopyPathOf(const GroupNormGradTiling& t) {
  GngCopyPath k;
  k.blockCopy = t.blockCopyOnly != 0;
  k.dense = k.blockCopy && t.hw < 32 / KernelDtypeBytes(t.dtype);
  k.syncBytes = t.softSync ? AlignUp(uint64_t{t.blockDim} * 32, 32) : 0;
  return k;
}

uint64_t GngTilePlanBytes(uint64_t s, uint64_t chunkElems, uint64_t rowStride, uint64_t slots, uint64_t bufferNum,
                          uint64_t workspaceBatch, const GngCopyPath& k, uint32_t dxBuffers) {
  return GngUbSum(GngTileUb({s, chunkElems, rowStride, slots, static_cast<uint32_t>(bufferNum), workspaceBatch,
                             k.blockCopy, k.dense, k.syncBytes, dxBuffers}));
}

uint64_t GngMaxSlots(uint64_t s, uint64_t chunkElems, uint64_t rowStride, uint64_t bufferNum, uint64_t workspaceBatch,
                     uint64_t budget, const GngCopyPath& k) {
  uint64_t lo = 0;
  uint64_t hi = kGngMaxSlotsPerTile;
  while (lo < hi) {  // largest slots with GngTilePlanBytes <= budget (monotone in slots)
    uint64_t mid = (lo + hi + 1) / 2;
    if (GngTilePlanBytes(s, chunkElems, rowStride, mid, bufferNum, workspaceBatch, k) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

uint64_t GngWorkspaceBatch(uint64_t groupSlots) {
  return std::min<uint64_t>(AlignUp(groupSlots, 8), kGngWorkspaceBatchFloats);
}

std::string GroupNormGradTilingFor(const GroupNormGradRequest& req, const SocFeatures& soc,
                                   GroupNormGradTiling* tiling) {
  if (req.n <= 0 || req.c <= 0 || req.hw <= 0 || req.group <= 0 || req.c % req.group != 0) {
    return "tiling needs n, c, hw, group > 0 and c divisible by group";
  }
  if (soc.vectorCores == 0 || GngUbBudget(soc) == 0) return "the SoC has no usable vector core";
  GngPlanInput in{};
  GroupNormGradTiling& t = in.base;
  t.n = req.n;
  t.c = req.c;
  t.hw = req.hw;
  t.g = req.group;
  t.channelsPerGroup = t.c / t.g;
  t.dtype = req.dtype;
  t.needDx = req.needDx;
  t.needDgamma = req.needDgamma;
  t.needDbeta = req.needDbeta;
  t.hasGamma = req.hasGamma;
  t.blockCopyOnly = soc.hasDataCopyPad ? 0 : 1;
  t.softSync = soc.hasHardSyncAll ? 0 : 1;
  in.elemBytes = KernelDtypeBytes(req.dtype);
  in.budget = GngUbBudget(soc);
  // Block copies with rows shorter than a block: dx is packed densely in order, on one core.
  // Without dx all cores take part (piece sums are added atomically, inputs only read).
  const bool dense = t.blockCopyOnly && t.needDx && t.hw < 32 / in.elemBytes;
  in.coreCount = dense ? 1 : soc.vectorCores;
  t.blockDim = static_cast<uint32_t>(in.coreCount);  // provisional, for the soft SyncAll scratch
  in.path = GngCopyPathOf(t);
  GngGroupPhases groupPhases;
  for (GngCandidate candidate : kCandidates) {
    GroupNormGradTiling planned{};
    std::string why;
    if (!candidate(in, &groupPhases, &planned, &why)) continue;
    if (!why.empty()) return why;
    *tiling = planned;
    return "";
  }
  return "no GroupNormGrad mode takes this request";  // the group-phase modes cover every outcome
}

// ---- UB figures: sums of the layouts the kernel's phases allocate ----

uint32_t GroupNormGradWholeUbBytes(const GroupNormGradTiling& t) {
  if (t.wholeGroupsPerCore == 0) return 0;
  const GngCopyPath k = GngCopyPathOf(t);
  return static_cast<uint32_t>(GngUbSum(GngTileUb({KernelDtypeBytes(t.dtype), t.chunkElems, t.rowStride,
                                                   t.wholeTileSlots, t.wholeBufferNum, 0, k.blockCopy, k.dense, 0})));
}

uint32_t GroupNormGradSplitUbBytes(const GroupNormGradTiling& t) {
  if (t.waveGroups == 0) return 0;
  return static_cast<uint32_t>(GngTilePlanBytes(KernelDtypeBytes(t.dtype), t.chunkElems, t.rowStride,
                                                t.splitTileSlots, 1, GngWorkspaceBatch(t.groupSlots),
                                                GngCopyPathOf(t)));
}

uint32_t GroupNormGradParamUbBytes(const GroupNormGradTiling& t) {
  return static_cast<uint32_t>(GngUbSum(GngParamUb(KernelDtypeBytes(t.dtype), t.paramBatchChannels,
                                                   t.paramBatchRows, t.hwParts, t.channelsPerGroup, t.g,
                                                   t.blockCopyOnly != 0)));
}

uint32_t GroupNormGradSlabUbBytes(const GroupNormGradTiling& t) {
  if (t.mode != kGngChannelSlab) return 0;
  const uint64_t most = t.paramChannelsPerCore + (t.paramChannelsRemainder > 0 ? 1 : 0);
  return static_cast<uint32_t>(GngTilePlanBytes(KernelDtypeBytes(t.dtype), t.chunkElems, t.rowStride,
                                                t.slabTileSlots, 1, 0, GngCopyPathOf(t),
                                                GngSlabDxBuffers(t.chunkElems, t.rowStride, t.slabTileSlots)) +
                               GngSlabUbBytes(t, most));
}

uint32_t GroupNormGradSampleRowsUbBytes(const GroupNormGradTiling& t) {
  if (t.mode != kGngSampleRows) return 0;
  const GroupNormGradSampleRowsTiling& r = t.sampleRows;
  uint64_t bytes = GngSampleRowsUbBytes(t, r.rowsPerTile, r.groups, r.segStride, r.bufferNum);
  if (r.stage2Batch > 0) {
    bytes = std::max(bytes, GngUbSum(GngStage2Ub(KernelDtypeBytes(t.dtype), r.sampleSplit, r.stage2Batch)));
  }
  return static_cast<uint32_t>(bytes);
}

uint32_t GroupNormGradUbBytes(const GroupNormGradTiling& t) {
  const bool params = t.needDgamma || t.needDbeta;
  switch (t.mode) {
    case kGngSampleRows:
      return GroupNormGradSampleRowsUbBytes(t);
    case kGngChannelSlab:
      return GroupNormGradSlabUbBytes(t);
    case kGngWholeGroup: {
      // Between the whole groups and dgamma/dbeta the soft SyncAll takes its scratch alone.
      const uint32_t sync = params && t.softSync ? t.blockDim * 32 : 0;
      return std::max({GroupNormGradWholeUbBytes(t), sync, params ? GroupNormGradParamUbBytes(t) : 0u});
    }
    case kGngRereadGroups:  // its tile reads group sums back from the workspace
      return std::max(static_cast<uint32_t>(GngTilePlanBytes(KernelDtypeBytes(t.dtype), t.chunkElems, t.rowStride,
                                                             t.splitTileSlots, 1, GngWorkspaceBatch(t.groupSlots),
                                                             GngCopyPathOf(t))),
                      params ? GroupNormGradParamUbBytes(t) : 0u);
    default:
      return std::max({GroupNormGradWholeUbBytes(t), GroupNormGradSplitUbBytes(t),
                       params ? GroupNormGradParamUbBytes(t) : 0u});
  }
}

uint64_t GngSlabUbBytes(const GroupNormGradTiling& t, uint64_t most) {
  return GngUbSum(GngSlabUb(KernelDtypeBytes(t.dtype), t.n, most, t.channelsPerGroup, t.g, t.hasGamma != 0));
}

}  // namespace normgrad
