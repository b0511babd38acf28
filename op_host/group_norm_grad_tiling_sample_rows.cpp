// GroupNormGrad tiling candidate: sample rows (mode kGngSampleRows, kernel
// op_kernel/group_norm_grad_sample_rows.h). Takes HxW = 1 on a chip with DataCopyPad and hard
// SyncAll when a core's segments fit the UB: tiles of whole sample rows, split over cores by
// sample chunks and group ranges, the split chosen by a modeled time (docs/cost-model.md).
#include <algorithm>
#include <vector>

#include "group_norm_grad_tiling_plan.h"
#include "tiling_cost.h"
#include "tiling_math.h"

namespace normgrad {

uint64_t GngSampleRowsStatsStride(const GroupNormGradTiling& t, uint64_t groups) {
  const uint64_t s = KernelDtypeBytes(t.dtype);
  return groups == t.g ? groups : AlignUp(groups * s, 32) / s;
}

uint64_t GngSampleRowsUbBytes(const GroupNormGradTiling& t, uint64_t rows, uint64_t groups, uint64_t segStride,
                              uint64_t bufferNum) {
  return GngUbSum(GngSampleRowsUb({KernelDtypeBytes(t.dtype), rows, groups, segStride, t.channelsPerGroup,
                                   GngSampleRowsStatsStride(t, groups), static_cast<uint32_t>(bufferNum),
                                   t.needDx != 0, t.needDgamma != 0, t.needDbeta != 0, t.hasGamma != 0}));
}

namespace {

// Sample rows: estimated vector cycles per element of a core (the kernel's instruction mix at 64
// fp32 lanes a cycle): ~8 full-width ops, 5 broadcast ops at Sp / 64 lane use when Sp < 64 (full
// width for S = 1 and 8-lane segments), two segment sums (3 cycles per reduce repeat; block and
// block folds for contiguous 8/16/32), 3 casts for 16-bit.
double VectorCyclesPerElement(const GroupNormGradTiling& t) {
  const uint64_t seg = t.channelsPerGroup;
  const uint64_t sp = seg == 1 ? 1 : AlignUp(seg, 32 / KernelDtypeBytes(t.dtype));
  const double lanes = (seg == 1 || sp == 8) ? 64.0 : static_cast<double>(std::min<uint64_t>(64, sp));
  const bool blockSums = GngBlockSums(seg, sp);
  const double sums = seg == 1 ? 0.0 : 2.0 * (blockSums ? 2.0 : 3.0 * 64.0 / std::min<uint64_t>(64, sp));
  const double ops = 8.0 + 5.0 * 64.0 / lanes + sums + (t.dtype != kDtypeFloat32 ? 3.0 : 0.0);
  return ops / 64.0;
}

// Sample rows: core k = pn * Pg + pg takes sample chunk pn and groups [pg, pg + 1) * G / Pg. The
// split minimises a modeled time: the HBM time of all bytes (data plus, for Pn > 1, the dgamma/
// dbeta partials written and read back) or the busiest core's bytes at one core's DMA rate,
// whichever is larger, plus a SyncAll when Pn > 1. Group splits keep a core's groups a multiple of
// 32 bytes of stats (contiguous in UB) and of 8 floats when S = 1.
constexpr double kSampleRowsPartialShare = 0.04;
bool ChooseSampleRows(uint64_t s, uint64_t budget, uint64_t cores, GroupNormGradTiling* t) {
  if (t->hw != 1 || t->blockCopyOnly || t->softSync) return false;
  const uint64_t seg = t->channelsPerGroup;
  const uint64_t segStride = seg == 1 ? 1 : AlignUp(seg, 32 / s);
  if (segStride > 2040) return false;  // level-0 repeat strides of <= 255 blocks
  const uint64_t unit = seg == 1 ? std::max<uint64_t>(8, 32 / s) : 32 / s;
  // The partials (8 bytes per channel, chunk and output: written, read back) stay under
  // kSampleRowsPartialShare of the minimum traffic, as LayerNorm's kPartialTrafficShare.
  const uint64_t nParams = (t->needDgamma ? 1 : 0) + (t->needDbeta ? 1 : 0);
  const double chunkCap = nParams == 0 ? 1e300 : kSampleRowsPartialShare * 3.0 * t->n * s / (8.0 * nParams);
  struct Split {
    uint64_t pn, pg;
    double us;
    double slack;  // vector time plus the partials' HBM time: the tie-break
  };
  std::vector<Split> splits;
  double best = 1e300;
  for (uint64_t pg = 1; pg <= std::min<uint64_t>(t->g, cores); ++pg) {
    if (t->g % pg != 0) continue;
    const uint64_t groups = t->g / pg;
    if (seg == 1 && groups % unit != 0) continue;  // S = 1: rows are the stats rows, 32-byte aligned
    if (GngSampleRowsUbBytes(*t, 1, groups, segStride, 1) > budget) continue;
    for (uint64_t pn = 1; pn <= std::min<uint64_t>(t->n, cores / pg); ++pn) {
      if (pn > 1 && static_cast<double>(pn) > chunkCap) break;
      const double bytesPerRow = static_cast<double>(t->c * 3 + t->g * 2) * s;
      const double partial = pn > 1 ? 8.0 * nParams * pn * t->c : 0.0;
      const double total = bytesPerRow * t->n + partial;
      const double busiest = static_cast<double>(CeilDiv(t->n, pn)) * bytesPerRow / pg;
      // Padded stats rows cost two Brcb instructions (~10 cycles each) per row.
      const double perRow = GngSampleRowsStatsStride(*t, groups) != groups ? 20.0 : 0.0;
      const double vector = static_cast<double>(CeilDiv(t->n, pn)) *
                            ((t->c / pg) * VectorCyclesPerElement(*t) + perRow) / kTilingCost.cyclesPerUs;
      const double us =
          std::max({total / kTilingCost.hbmBytesPerUs, busiest / kTilingCost.coreDmaBytesPerUs, vector}) +
          (pn > 1 && nParams > 0 ? kTilingCost.syncAllUs : 0.0);
      splits.push_back(Split{pn, pg, us, vector + partial / kTilingCost.hbmBytesPerUs});
      best = std::min(best, us);
    }
  }
  // Within 1 % of the best modeled time (HBM-bound splits tie): the most cores (balance on
  // hardware), then the least vector time plus partial traffic.
  double slack = 1e300;
  for (const Split& c : splits) {
    if (c.us > best * 1.01) continue;
    const uint64_t cur = t->sampleRows.sampleSplit * t->sampleRows.groupSplit;
    if (c.pn * c.pg > cur || (c.pn * c.pg == cur && c.slack < slack)) {
      slack = c.slack;
      t->sampleRows.sampleSplit = c.pn;
      t->sampleRows.groupSplit = c.pg;
      t->sampleRows.groups = t->g / c.pg;
    }
  }
  if (best >= 1e300) return false;
  t->sampleRows.segStride = segStride;
  const uint64_t pn = t->sampleRows.sampleSplit;
  const uint64_t rowsMax = CeilDiv(t->n, pn);
  const uint64_t rowElems = t->sampleRows.groups * segStride;
  // Rows per tile: what fits, but a few tiles per core so loads overlap compute, and not below
  // ~4096 elements a tile (per-instruction cost). DMA block counts stay <= 4095.
  uint64_t bufferNum = GngSampleRowsUbBytes(*t, 1, t->sampleRows.groups, segStride, 2) <= budget ? 2 : 1;
  uint64_t fit = 1;
  while (fit < rowsMax && GngSampleRowsUbBytes(*t, fit + 1, t->sampleRows.groups, segStride, bufferNum) <= budget) {
    ++fit;
  }
  const bool paddedWhole = segStride != seg && seg > 1 && t->sampleRows.groups == t->g;
  const uint64_t maxBlocks = paddedWhole ? kGngMaxSlotsPerTile / t->g : kGngMaxSlotsPerTile;
  if (maxBlocks == 0) return false;
  fit = std::min(fit, maxBlocks);
  const uint64_t want = std::max(CeilDiv(rowsMax, 4), CeilDiv(4096, rowElems));
  t->sampleRows.rowsPerTile = std::min(fit, want);
  t->sampleRows.bufferNum = bufferNum;
  t->mode = kGngSampleRows;
  t->blockDim = static_cast<uint32_t>(pn * t->sampleRows.groupSplit);
  t->chunkElems = 0;
  t->hwParts = 1;
  t->segLen = 1;
  t->lastSegLen = 1;
  t->rowStride = segStride;
  t->groupSlots = seg;
  t->workspaceBytes = 512;  // MIX_AIV_1_0 launches need a workspace
  if (pn > 1 && (t->needDgamma || t->needDbeta)) {
    t->planeBytes = AlignUp(pn * t->c * 4, 512);
    t->workspaceBytes = 2 * t->planeBytes;
    t->sampleRows.stage2Channels = CeilDiv(t->c, t->blockDim);
    uint64_t batch = std::min<uint64_t>(t->sampleRows.stage2Channels, 4096);
    while (batch > 1 && GngUbSum(GngStage2Ub(s, pn, batch)) > budget) batch /= 2;
    t->sampleRows.stage2Batch = batch;
  }
  t->syncOffset = t->workspaceBytes;
  t->ubBytesUsed = GroupNormGradUbBytes(*t);
  return t->ubBytesUsed <= budget;
}

}  // namespace

bool GngPlanSampleRows(const GngPlanInput& in, GngGroupPhases* /*cache*/, GroupNormGradTiling* t,
                       std::string* /*why*/) {
  GroupNormGradTiling rows = in.base;
  if (!ChooseSampleRows(in.elemBytes, in.budget, in.coreCount, &rows)) return false;
  *t = rows;
  return true;
}

}  // namespace normgrad
