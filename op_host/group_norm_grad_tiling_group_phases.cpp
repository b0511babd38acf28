// GroupNormGrad tiling candidates of the group-phase modes, which share one plan of up to three
// phases (kernels: op_kernel/group_norm_grad_whole_group.h, group_norm_grad_split_group.h,
// group_norm_grad_params.h):
//   1. whole groups, one core each, in full rounds over the cores;
//   2. the remaining groups in waves of whole groups spread over all cores, resident, piece sums
//      exchanged through the workspace and one SyncAll per wave;
//   3. dgamma/dbeta, channels split over cores.
// The plan's outcome names the mode (one candidate each, tried in the order of
// group_norm_grad_tiling.cpp): kGngParamsOnly (no dx: phase 2 streams once for the sums, then 3),
// kGngWholeGroup (phase 1 holds every group), kGngWholeGroupSplit (1 then 2), kGngSplitGroup
// (2 only), kGngTwoPass (a group exceeds every core's UB together: 2 streams each slice twice).
//
// Worked example, A2 (48 cores, 192 KiB UB), fp16, N = 2, C = 320, HxW = 64x64, G = 32:
//   a group is 10 rows x 4096 = 40960 elements, 160 KiB of dy + x in fp16: it fits one core with
//   a 1024-float working chunk, so 64 groups -> wholeGroupsPerCore = 1 (48 groups, no exchange),
//   and the other 16 groups form one split wave: 160 rows over 48 cores (3-4 rows each), resident,
//   sums exchanged through the workspace and one SyncAll. Every core moves the same bytes; dy and
//   x are read once. (On A2 the re-read groups candidate, group_norm_grad_tiling_reread_groups.cpp,
//   is modeled faster for this shape and takes it; the plan still prices the alternative.)
#include <algorithm>
#include <string>

#include "group_norm_grad_tiling_plan.h"
#include "tiling_cost.h"
#include "tiling_math.h"

namespace normgrad {
namespace {

// Splits rows longer than one core's UB into hwParts pieces of segLen (multiple of 64).
void ChooseRowPieces(uint64_t hw, uint64_t s, uint64_t chunkElems, uint64_t workspaceBatch, uint64_t budget,
                     const GngCopyPath& k, GroupNormGradTiling* t) {
  uint64_t perBlock = 32 / s;
  uint64_t fixed = GngTilePlanBytes(s, chunkElems, 0, 1, 1, workspaceBatch, k);
  uint64_t maxSeg = budget > fixed ? (budget - fixed) / (2 * s) / 64 * 64 : 0;
  if (AlignUp(hw, perBlock) <= maxSeg) {
    t->hwParts = 1;
    t->segLen = hw;
    t->lastSegLen = hw;
  } else {
    uint64_t parts = CeilDiv(hw, maxSeg);
    t->segLen = AlignUp(CeilDiv(hw, parts), 64);
    t->hwParts = CeilDiv(hw, t->segLen);
    t->lastSegLen = hw - (t->hwParts - 1) * t->segLen;
  }
  t->rowStride = AlignUp(t->segLen, perBlock);
}

// Groups per split wave: the busiest core's slots summed over the waves, plus one slot's time
// per wave for its SyncAll, is smallest. 16 groups of 10 slots on 48 cores: 160 slots, 4 on the
// busiest core; 24 groups per wave instead fill 48 cores with exactly 5 each.
uint64_t BalancedWave(uint64_t groups, uint64_t maxPerWave, uint64_t groupSlots, uint64_t cores) {
  uint64_t best = maxPerWave;
  uint64_t bestCost = ~0ull;
  for (uint64_t perWave = maxPerWave; perWave >= 1 && perWave + 8 > maxPerWave / 2; --perWave) {
    uint64_t cost = 0;
    for (uint64_t done = 0; done < groups; done += perWave) {
      cost += CeilDiv(std::min(perWave, groups - done) * groupSlots, cores) + 1;
    }
    if (cost < bestCost) {
      bestCost = cost;
      best = perWave;
    }
  }
  return best;
}

// Groups that must be split over cores go in waves of whole groups, one SyncAll each. Finer row
// pieces (and the smaller chunk) can fill a core's UB better and make a wave of whole groups fill
// all cores: fewer waves. Detection neck fp32, rows of 15200: one row per core, 6 groups a wave,
// 43 waves; thirds of a row (5120) with a 1024 chunk fit 4 per core, 8 groups a wave, 32 waves.
void RefineRowPieces(uint64_t s, uint64_t budget, uint64_t groups, uint64_t cores, const GngCopyPath& k,
                     GroupNormGradTiling* t) {
  auto waves = [&](uint64_t chunk, uint64_t parts, GroupNormGradTiling* out) -> uint64_t {
    uint64_t seg = parts == 1 ? t->hw : AlignUp(CeilDiv(t->hw, parts), 64);
    uint64_t realParts = CeilDiv(t->hw, seg);
    uint64_t stride = AlignUp(seg, 32 / s);
    uint64_t groupSlots = t->channelsPerGroup * realParts;
    uint64_t batch = GngWorkspaceBatch(groupSlots);
    uint64_t perWave = std::min(groups, cores * GngMaxSlots(s, chunk, stride, 1, batch, budget, k) / groupSlots);
    if (out != nullptr) {
      out->chunkElems = chunk;
      out->hwParts = realParts;
      out->segLen = seg;
      out->lastSegLen = t->hw - (realParts - 1) * seg;
      out->rowStride = stride;
    }
    if (perWave == 0) return ~0ull;
    // Modeled time in element-times of one core (3 * s bytes an element): the busiest core's
    // resident elements per wave, one DMA issue per piece and a SyncAll per wave
    // (kTilingCost, docs/cost-model.md §4).
    uint64_t wave = BalancedWave(groups, perWave, groupSlots, cores);
    uint64_t cost = 0;
    for (uint64_t done = 0; done < groups; done += wave) {
      uint64_t busiest = CeilDiv(std::min(wave, groups - done) * groupSlots, cores);
      cost += busiest * (stride + kTilingCost.dmaIssueBytes / (3 * s)) + kTilingCost.syncAllCoreShareBytes / (3 * s);
    }
    return cost;
  };
  uint64_t bestChunk = t->chunkElems;
  uint64_t bestParts = t->hwParts;
  uint64_t best = waves(bestChunk, bestParts, nullptr);
  for (uint64_t chunk : {2048u, 1024u}) {
    for (uint64_t parts = t->hwParts; parts <= t->hwParts + 8 && CeilDiv(t->hw, parts) >= 64; ++parts) {
      uint64_t w = waves(chunk, parts, nullptr);
      if (w * 100 < best * 97) {  // more pieces cost DMAs the model above only estimates: want 3 %
        best = w;
        bestChunk = chunk;
        bestParts = parts;
      }
    }
  }
  waves(bestChunk, bestParts, t);
}

}  // namespace

// Block-copy mode: each core's channel range starts on a 32-byte block of dgamma/dbeta and
// batches are whole blocks, so no two cores write one block (see GroupNormGradParams).
void GngChooseParamBatches(uint64_t s, uint64_t budget, GroupNormGradTiling* t) {
  const uint64_t unit = t->blockCopyOnly ? 32 / s : 1;
  uint64_t perCore = AlignUp(CeilDiv(t->c, t->blockDim), unit);
  if (t->blockCopyOnly) {
    t->paramChannelsPerCore = perCore;
    t->paramChannelsRemainder = 0;
  } else {
    t->paramChannelsPerCore = t->c / t->blockDim;
    t->paramChannelsRemainder = t->c % t->blockDim;
  }
  uint64_t channels = std::min<uint64_t>(perCore, 2048);
  for (;;) {
    auto bytes = [&](uint64_t rows) {
      return GngUbSum(GngParamUb(s, channels, rows, t->hwParts, t->channelsPerGroup, t->g, t->blockCopyOnly != 0));
    };
    uint64_t rowBytes = bytes(1) - bytes(0);
    uint64_t small = bytes(0);
    uint64_t rows = budget > small ? (budget - small) / rowBytes : 0;
    rows = std::min<uint64_t>({rows, t->n, kGngMaxSlotsPerTile});
    if (rows >= 1 || channels == unit) {
      t->paramBatchChannels = channels;
      t->paramBatchRows = std::max<uint64_t>(rows, 1);
      return;
    }
    channels = std::max<uint64_t>(channels / 2 / unit * unit, unit);
  }
}

namespace {

// Block-copy mode writes a piece's last block ending at the piece's end, inside the piece: the
// last piece of a split row must hold at least one block. Cutting the row into one more piece
// moves the remainder; give up after 64 tries (rows of ~10^8 elements).
bool FixShortLastPiece(uint64_t s, GroupNormGradTiling* t) {
  const uint64_t perBlock = 32 / s;
  for (uint64_t parts = t->hwParts; parts < t->hwParts + 64; ++parts) {
    if (parts == 1) return true;
    uint64_t seg = AlignUp(CeilDiv(t->hw, parts), 64);
    uint64_t realParts = CeilDiv(t->hw, seg);
    uint64_t last = t->hw - (realParts - 1) * seg;
    if (realParts == 1 || last >= perBlock) {
      t->hwParts = realParts;
      t->segLen = realParts == 1 ? t->hw : seg;
      t->lastSegLen = realParts == 1 ? t->hw : last;
      t->rowStride = AlignUp(t->segLen, perBlock);
      return true;
    }
  }
  return false;
}

// The plan of the three phases for the request (every field but mode and ubBytesUsed).
void PlanGroupPhases(const GngPlanInput& in, GngGroupPhases* out) {
  GroupNormGradTiling t = in.base;
  const uint64_t s = in.elemBytes;
  const uint64_t budget = in.budget;
  const uint64_t coreCount = in.coreCount;
  const uint64_t groups = t.n * t.g;
  const GngCopyPath& k = in.path;
  // A bigger chunk halves the per-instruction overhead; a smaller one leaves room for more
  // resident data. Take 1024 only when it keeps a group whole on one core or holds more slots.
  uint64_t score[2] = {0, 0};
  const uint64_t chunks[2] = {2048, 1024};
  for (int i = 0; i < 2; ++i) {
    GroupNormGradTiling probe = t;
    ChooseRowPieces(t.hw, s, chunks[i], kGngWorkspaceBatchFloats, budget, k, &probe);
    uint64_t whole = GngMaxSlots(s, chunks[i], probe.rowStride, 1, 0, budget, k);
    uint64_t batch = GngWorkspaceBatch(t.channelsPerGroup * probe.hwParts);
    uint64_t split = GngMaxSlots(s, chunks[i], probe.rowStride, 1, batch, budget, k);
    bool wholeFits = probe.hwParts == 1 && t.channelsPerGroup <= whole;
    score[i] = wholeFits ? 1ull << 32 : (probe.hwParts == 1 ? split : 0);
  }
  t.chunkElems = score[1] > score[0] ? chunks[1] : chunks[0];
  ChooseRowPieces(t.hw, s, t.chunkElems, kGngWorkspaceBatchFloats, budget, k, &t);
  if (t.needDx &&
      !(t.hwParts == 1 && t.channelsPerGroup <= GngMaxSlots(s, t.chunkElems, t.rowStride, 1, 0, budget, k))) {
    RefineRowPieces(s, budget, groups, std::min<uint64_t>(coreCount, groups * t.channelsPerGroup), k, &t);
  }
  if (t.blockCopyOnly && !FixShortLastPiece(s, &t)) {
    out->why = "no row cut leaves a last piece of one 32-byte block";
    return;
  }
  t.groupSlots = t.channelsPerGroup * t.hwParts;
  const uint64_t workspaceBatch = GngWorkspaceBatch(t.groupSlots);
  const uint64_t totalSlots = groups * t.groupSlots;
  t.blockDim = static_cast<uint32_t>(std::min<uint64_t>(coreCount, totalSlots));
  const uint64_t cores = t.blockDim;

  // Phase 1: whole groups, one core each, in full rounds over the cores.
  uint64_t single = GngMaxSlots(s, t.chunkElems, t.rowStride, 1, 0, budget, k);
  if (t.needDx && t.hwParts == 1 && t.groupSlots <= single && groups >= cores) {
    t.wholeGroupsPerCore = groups / cores;
    uint64_t dbl = GngMaxSlots(s, t.chunkElems, t.rowStride, 2, 0, budget, k);
    uint64_t perTileDouble = dbl / t.groupSlots;
    if (t.wholeGroupsPerCore >= 2 && perTileDouble >= 1) {
      t.wholeBufferNum = 2;
      t.wholeGroupsPerTile = std::min(perTileDouble, CeilDiv(t.wholeGroupsPerCore, 2));
    } else {
      t.wholeBufferNum = 1;
      t.wholeGroupsPerTile = std::min(single / t.groupSlots, t.wholeGroupsPerCore);
    }
    t.wholeTileSlots = t.wholeGroupsPerTile * t.groupSlots;
  }

  // Phase 2: the remaining groups in waves spread over all cores.
  uint64_t rest = groups - t.wholeGroupsPerCore * cores;
  t.splitTileSlots = GngMaxSlots(s, t.chunkElems, t.rowStride, 1, workspaceBatch, budget, k);
  if (t.splitTileSlots == 0) {
    out->why = "a row piece does not fit the Unified Buffer";
    return;
  }
  if (rest > 0) {
    uint64_t perWave = t.needDx ? cores * t.splitTileSlots / t.groupSlots : rest;
    // A group larger than every core's UB together: nothing stays resident, so one wave of all
    // the groups streams each core's slice twice with a single SyncAll.
    out->streamed = perWave == 0;
    t.waveGroups = out->streamed ? rest : BalancedWave(rest, std::min(perWave, rest), t.groupSlots, cores);
  }
  out->rest = rest;

  // Phase 3 and the workspace.
  GngChooseParamBatches(s, budget, &t);
  bool needParams = t.needDgamma || t.needDbeta;
  // The piece-sum planes; at least 512 bytes because the kernel is MIX_AIV_1_0 (hard SyncAll),
  // whose launches need a non-empty workspace. Soft SyncAll's flags follow the planes.
  t.workspaceBytes = 512;
  if (needParams || rest > 0) {
    t.planeBytes = AlignUp(t.n * t.c * t.hwParts * 4, 512);
    t.workspaceBytes = 2 * t.planeBytes;
  }
  t.syncOffset = t.workspaceBytes;
  if (t.softSync) t.workspaceBytes += AlignUp(uint64_t{t.blockDim} * 32, 512);
  // Whole groups only (kGngWholeGroup): dx of a tile needs only its own groups' sums, so a core
  // raises a split-phase flag once its last tile's sums are stored and writes that tile's dx
  // before it waits for the others (hard SyncAll hardware with DataCopyPad: A2/A3).
  const bool hardPad = t.needDx && !t.softSync && !t.blockCopyOnly;
  t.paramsSplitPhase = rest == 0 && needParams && hardPad ? 1 : 0;
  // Whole groups plus one split wave (kGngWholeGroupSplit): the wave's SyncAll becomes split phase
  // around the whole groups (op_kernel/group_norm_grad.cpp, RunWaveSplitPhase), at the price of a
  // second read of the core's slice, after the whole groups. Taken when that read is an L2 hit
  // (the bytes the core moves in between, times the cores, within the L2 with a 10 % margin) and
  // costs the core's port less than the barrier the last whole tile's dx bytes hide.
  if (rest > 0 && t.waveGroups >= rest && !out->streamed && t.wholeGroupsPerCore > 0 && hardPad) {
    const uint64_t sliceBytes = GngWaveSliceBytes(t, rest, s);
    const uint64_t groupBytes = t.channelsPerGroup * t.hw * s;
    const uint64_t between = 2 * sliceBytes + 3 * t.wholeGroupsPerCore * groupBytes;
    const double rereadUs = 2.0 * static_cast<double>(sliceBytes) / kTilingCost.coreDmaBytesPerUs;
    if (between * cores <= kTilingCost.l2Bytes * 9 / 10 &&
        GngSplitPhaseHiddenUs(t) > rereadUs) {
      t.paramsSplitPhase = 1;
    }
  }
  // The plan's own figure (the whole-group phase as planned, GngTilePlanBytes) must fit.
  const uint64_t planned = std::max<uint64_t>(
      {t.wholeGroupsPerCore > 0 ? GngTilePlanBytes(s, t.chunkElems, t.rowStride, t.wholeTileSlots, t.wholeBufferNum,
                                                   0, k)
                                : 0,
       GroupNormGradSplitUbBytes(t), needParams ? GroupNormGradParamUbBytes(t) : 0u});
  if (planned > budget) {
    // In practice rows so long (HxW beyond about 4e8 elements on A2) that the piece sums of a
    // channel batch outgrow the UB: a shape limit, not a bug.
    out->why = "rows of HxW = " + std::to_string(t.hw) + " elements cut into " + std::to_string(t.hwParts) +
               " pieces need " + std::to_string(planned) + " bytes of Unified Buffer per core, more than the " +
               std::to_string(budget) + " available: HxW is too large for this SoC";
    return;
  }
  out->t = t;
}

}  // namespace

double GngSplitPhaseHiddenUs(const GroupNormGradTiling& t) {
  const uint64_t perTile = t.wholeGroupsPerTile;
  const uint64_t lastGroups = t.wholeGroupsPerCore - (t.wholeGroupsPerCore - 1) / perTile * perTile;
  return static_cast<double>(lastGroups * t.channelsPerGroup * t.hw * KernelDtypeBytes(t.dtype)) /
         kTilingCost.coreDmaBytesPerUs;
}

uint64_t GngWaveSliceBytes(const GroupNormGradTiling& t, uint64_t waveGroups, uint64_t s) {
  return CeilDiv(waveGroups * t.groupSlots, uint64_t{t.blockDim}) * t.segLen * s;
}

const GngGroupPhases& GngGroupPhasesOf(const GngPlanInput& in, GngGroupPhases* cache) {
  if (!cache->done) {
    PlanGroupPhases(in, cache);
    cache->done = true;
  }
  return *cache;
}

namespace {

// Takes the request for `mode` when `fits` holds for the shared plan (or the plan failed: then no
// tiling exists and *why says why).
template <typename Fits>
bool TakeGroupPhases(const GngPlanInput& in, GngGroupPhases* cache, GroupNormGradMode mode, Fits fits,
                     GroupNormGradTiling* t, std::string* why) {
  const GngGroupPhases& plan = GngGroupPhasesOf(in, cache);
  if (!plan.why.empty()) {
    *why = plan.why;
    return true;
  }
  if (!fits(plan)) return false;
  *t = plan.t;
  t->mode = mode;
  t->ubBytesUsed = GroupNormGradUbBytes(*t);
  return true;
}

}  // namespace

bool GngPlanParamsOnly(const GngPlanInput& in, GngGroupPhases* cache, GroupNormGradTiling* t, std::string* why) {
  if (in.base.needDx) return false;
  return TakeGroupPhases(in, cache, kGngParamsOnly, [](const GngGroupPhases&) { return true; }, t, why);
}

bool GngPlanWholeGroup(const GngPlanInput& in, GngGroupPhases* cache, GroupNormGradTiling* t, std::string* why) {
  return TakeGroupPhases(in, cache, kGngWholeGroup, [](const GngGroupPhases& p) { return p.rest == 0; }, t, why);
}

bool GngPlanWholeGroupSplit(const GngPlanInput& in, GngGroupPhases* cache, GroupNormGradTiling* t,
                            std::string* why) {
  auto fits = [](const GngGroupPhases& p) { return p.rest > 0 && !p.streamed && p.t.wholeGroupsPerCore > 0; };
  return TakeGroupPhases(in, cache, kGngWholeGroupSplit, fits, t, why);
}

bool GngPlanSplitGroup(const GngPlanInput& in, GngGroupPhases* cache, GroupNormGradTiling* t, std::string* why) {
  auto fits = [](const GngGroupPhases& p) { return p.rest > 0 && !p.streamed && p.t.wholeGroupsPerCore == 0; };
  return TakeGroupPhases(in, cache, kGngSplitGroup, fits, t, why);
}

bool GngPlanTwoPass(const GngPlanInput& in, GngGroupPhases* cache, GroupNormGradTiling* t, std::string* why) {
  return TakeGroupPhases(in, cache, kGngTwoPass, [](const GngGroupPhases& p) { return p.rest > 0 && p.streamed; },
                         t, why);
}

}  // namespace normgrad
