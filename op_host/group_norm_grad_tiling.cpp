// GroupNormGrad host tiling: (shape, dtype, outputs wanted, SoC) -> GroupNormGradTiling.
//
// Worked example, A2 (48 cores, 192 KiB UB), fp16, N = 2, C = 320, HxW = 64x64, G = 32:
//   a group is 10 rows x 4096 = 40960 elements, 160 KiB of dy + x in fp16: it fits one core with
//   a 1024-float working chunk, so 64 groups -> wholeGroupsPerCore = 1 (48 groups, no exchange),
//   and the other 16 groups form one split wave: 160 rows over 48 cores (3-4 rows each), resident,
//   sums exchanged through the workspace and one SyncAll. Every core moves the same bytes; dy and
//   x are read once.
#include "group_norm_grad_tiling.h"
#include "tiling_cost.h"
#include "tiling_math.h"

#include <algorithm>
#include <vector>

namespace normgrad {
namespace {

constexpr uint64_t kMaxSlotsPerTile = 4095;  // DataCopyPad blockCount limit: one copy per tile
constexpr uint64_t kScratchBytes = 512;  // two 64-float row accumulators

uint64_t DtypeBytes(uint32_t dtype) { return KernelDtypeBytes(dtype); }

// What block-copy mode adds to a tile phase (all zero on A2/A3).
struct BlockMode {
  bool on = false;        // no DataCopyPad
  bool dense = false;     // rows shorter than a block: dx packed on one core
  uint64_t syncBytes = 0; // soft SyncAll's UB scratch
};

BlockMode BlockModeOf(const GroupNormGradTiling& t) {
  BlockMode k;
  k.on = t.blockCopyOnly != 0;
  k.dense = k.on && t.hw < 32 / DtypeBytes(t.dtype);
  k.syncBytes = t.softSync ? AlignUp(uint64_t{t.blockDim} * 32, 32) : 0;
  return k;
}

// UB bytes of one tile phase with `slots` slots per input and `bufferNum` buffers, as the
// kernel's InitBuffer calls lay it out (each buffer rounded up to 32 bytes).
uint64_t TileUbBytes(uint64_t s, uint64_t chunkElems, uint64_t rowStride, uint64_t slots,
                     uint64_t bufferNum, uint64_t workspaceBatch, const BlockMode& k) {
  uint64_t bytes = k.syncBytes;
  if (k.on) {
    if (s == 4) bytes += AlignUp(chunkElems * 4, 32);            // dy copy whose overlap lanes are zeroed
    bytes += 2 * 32;                                             // sums start at piece0 % 8 (atomic blocks)
    if (k.dense) bytes += AlignUp((chunkElems + 64 / s) * s, 32);  // packed dx + one block of history
  }
  bytes += 2 * bufferNum * AlignUp(slots * rowStride * s, 32);  // dy, x tiles (native dtype)
  bytes += 2 * AlignUp(chunkElems * s, 32);                            // dx chunk queue, 2 buffers
  if (s != 4) bytes += 2 * AlignUp(chunkElems * 4, 32);                // fp32 dy, x chunks
  bytes += 2 * AlignUp(chunkElems * 4, 32);                            // dy*x or fp32 dx; row-sum fold
  bytes += 2 * AlignUp(AlignUp(slots, 8) * 4, 32);                     // per-slot sums
  bytes += 2 * AlignUp(workspaceBatch * 4, 32);                               // group sums read back
  bytes += kScratchBytes;
  return bytes;
}

// Most slots per input a tile phase can hold in `budget` bytes (0 if not even one).
uint64_t MaxSlots(uint64_t s, uint64_t chunkElems, uint64_t rowStride, uint64_t bufferNum,
                  uint64_t workspaceBatch, uint64_t budget, const BlockMode& k) {
  uint64_t lo = 0;
  uint64_t hi = kMaxSlotsPerTile;
  while (lo < hi) {  // largest slots with TileUbBytes <= budget (monotone in slots)
    uint64_t mid = (lo + hi + 1) / 2;
    if (TileUbBytes(s, chunkElems, rowStride, mid, bufferNum, workspaceBatch, k) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// Groups the UB copy of mean/rstd spans for `channels` consecutive channels starting anywhere
// (the kernel's GngStatsSpan in op_kernel/group_norm_grad_tile.h: the same formula).
uint64_t GngStatsSpan(uint64_t channels, uint64_t d, uint64_t g) {
  return std::min<uint64_t>(channels == 0 ? 0 : (channels + 2 * d - 2) / d, g);
}

// UB bytes of mean and rstd for `rows` samples of the groups `channels` channels span, one
// 32-byte-aligned row per sample (GngScalars::Load).
uint64_t StatsUbBytes(uint64_t s, uint64_t rows, uint64_t channels, uint64_t d, uint64_t g) {
  return 2 * rows * AlignUp(GngStatsSpan(channels, d, g) * s, 32);
}

// dgamma/dbeta phase, as GroupNormGradParams lays it out; with DataCopyPad (t.blockCopyOnly == 0)
// it also holds the batch's mean/rstd rows.
uint64_t ParamUbBytes(uint64_t s, uint64_t batchChannels, uint64_t batchRows, const GroupNormGradTiling& t) {
  uint64_t bytes = 2 * AlignUp(batchRows * AlignUp(batchChannels * t.hwParts, 8) * 4, 32);  // db, ds
  bytes += 2 * AlignUp(AlignUp(batchChannels, 8) * 4, 32);   // fp32 dgamma, dbeta
  bytes += 2 * AlignUp(AlignUp(batchChannels, 16) * s, 32);  // cast outputs
  if (!t.blockCopyOnly) bytes += StatsUbBytes(s, batchRows, batchChannels, t.channelsPerGroup, t.g);
  return bytes;
}

// Channel slabs: UB bytes beyond the tile's, as GroupNormGradChannelSlab lays them out: its own
// head/tail partials (n x 4 floats), one neighbour's side (n x 2), the gathered group sums
// (n x 4), fp32 accumulators plus cast outputs for dgamma/dbeta of `channels` channels, and the
// UB copies of their gamma and of mean/rstd of every sample.
uint64_t SlabExtraUbBytes(uint64_t s, uint64_t channels, const GroupNormGradTiling& t) {
  const uint64_t n = t.n;
  uint64_t bytes = 2 * AlignUp(n * 4 * 4, 32) + AlignUp(n * 2 * 4, 32);
  bytes += 2 * AlignUp(AlignUp(channels, 8) * 4, 32);
  bytes += 2 * AlignUp(AlignUp(channels, 16) * s, 32);
  bytes += AlignUp(channels * s, 32) + StatsUbBytes(s, n, channels, t.channelsPerGroup, t.g);
  return bytes;
}

// Channel slabs: core k holds rows (n, c) for every n and the channels c of the dgamma/dbeta
// split, all resident, so it adds dgamma/dbeta over n in UB and only the group sums it shares
// with its neighbours cross the workspace. Taken when dx and dgamma or dbeta are wanted on a
// chip with DataCopyPad and hard SyncAll, rows are at most kSlabMaxRowBytes, the busiest core
// has at most 1/0.9 of the mean rows, and the slab fits one core's UB with a 2048 (else 1024)
// chunk.
// The other plans send 16 bytes of sums per row through the workspace, >= 0.5 % of the row's
// minimum traffic (3 x 1 KiB) up to here; longer rows gain less than a slab's few big loads
// cost (SD 640ch 32x32 fp16: traffic 1.0036 -> 1.0002 but +2 % modeled time).
constexpr uint64_t kSlabMaxRowBytes = 1024;
bool ChooseChannelSlabs(uint64_t s, uint64_t budget, uint64_t cores, const BlockMode& k, GroupNormGradTiling* t) {
  if (!t->needDx || !(t->needDgamma || t->needDbeta) || t->blockCopyOnly || t->softSync) return false;
  if (t->hw * s > kSlabMaxRowBytes) return false;
  const uint64_t most = CeilDiv(t->c, cores);
  if (t->c < cores || t->c * 10 < most * cores * 9) return false;
  const uint64_t slots = t->n * most;
  const uint64_t stride = AlignUp(t->hw, 32 / s);
  if (slots > kMaxSlotsPerTile) return false;
  for (uint64_t chunk : {2048u, 1024u}) {
    if (TileUbBytes(s, chunk, stride, slots, 1, 0, k) + SlabExtraUbBytes(s, most, *t) > budget) continue;
    t->mode = kGngChannelSlab;
    t->blockDim = static_cast<uint32_t>(cores);
    t->chunkElems = chunk;
    t->hwParts = 1;
    t->segLen = t->hw;
    t->lastSegLen = t->hw;
    t->rowStride = stride;
    t->groupSlots = t->channelsPerGroup;
    t->slabTileSlots = slots;
    t->paramChannelsPerCore = t->c / cores;
    t->paramChannelsRemainder = t->c % cores;
    return true;
  }
  return false;
}

// Sample rows: UB elements between stats rows of `groups` groups (DataCopyPad pads a row to 32 bytes
// unless the rows are the whole G, one contiguous block).
uint64_t SampleRowsStatsStride(const GroupNormGradTiling& t, uint64_t groups) {
  const uint64_t s = DtypeBytes(t.dtype);
  return groups == t.g ? groups : AlignUp(groups * s, 32) / s;
}

// Sample rows (HxW = 1): UB bytes of a tile of `rows` samples x `groups` segments of S = C/G
// elements padded to `segStride`, as GroupNormGradSampleRows::Init lays it out.
uint64_t SampleRowsUbBytes(const GroupNormGradTiling& t, uint64_t rows, uint64_t groups, uint64_t segStride,
                           uint64_t bufferNum) {
  const uint64_t s = DtypeBytes(t.dtype);
  const uint64_t seg = t.channelsPerGroup;
  const uint64_t rowElems = groups * segStride;
  const uint64_t tile = rows * rowElems;
  const uint64_t segs = rows * groups;
  const uint64_t segsA = AlignUp(segs, 8);
  const uint64_t statsA = AlignUp(rows * SampleRowsStatsStride(t, groups), 8);
  uint64_t bytes = 2 * bufferNum * AlignUp(tile * s, 32);           // dy, x queues
  if (t.needDx) bytes += bufferNum * AlignUp(tile * s, 32);          // dx queue
  if (s != 4) bytes += 2 * tile * 4 + AlignUp(statsA * s, 32);       // fp32 dy, x; raw stats
  bytes += tile * 4 + 2 * statsA * 4;                                // tmp; mean, rstd
  if (t.needDx) bytes += 2 * AlignUp(segs, 32) * 4;                  // segment sums / coefficients
  if (seg > 1) {
    bytes += 2 * (segsA + 8) * 32;                                   // Brcb'd mean, rstd
    if (t.needDx) bytes += segsA * 32;                               // Brcb'd second coefficient
    if (t.needDx && seg > 64) bytes += segs * 64 * 4;                // RowsSum fold
    const bool blockSums = segStride == seg && (seg == 8 || seg == 16 || seg == 32);
    if (t.needDx && blockSums) bytes += (segs * seg * 3 / 4 + 128) * 4;  // block-pair folds
  }
  if (t.needDx && t.hasGamma) bytes += rowElems * 4;                 // gamma row
  if (t.needDgamma) bytes += rowElems * 4;
  if (t.needDbeta) bytes += rowElems * 4;
  return bytes;
}

// Sample rows: estimated vector cycles per element of a core (the kernel's instruction mix at 64
// fp32 lanes a cycle): ~8 full-width ops, 5 broadcast ops at Sp / 64 lane use when Sp < 64 (full
// width for S = 1 and 8-lane segments), two segment sums (3 cycles per reduce repeat; block and
// block folds for contiguous 8/16/32), 3 casts for 16-bit.
double VectorCyclesPerElement(const GroupNormGradTiling& t) {
  const uint64_t seg = t.channelsPerGroup;
  const uint64_t sp = seg == 1 ? 1 : AlignUp(seg, 32 / DtypeBytes(t.dtype));
  const double lanes = (seg == 1 || sp == 8) ? 64.0 : static_cast<double>(std::min<uint64_t>(64, sp));
  const bool blockSums = sp == seg && (seg == 8 || seg == 16 || seg == 32);
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
    if (SampleRowsUbBytes(*t, 1, groups, segStride, 1) > budget) continue;
    for (uint64_t pn = 1; pn <= std::min<uint64_t>(t->n, cores / pg); ++pn) {
      if (pn > 1 && static_cast<double>(pn) > chunkCap) break;
      const double bytesPerRow = static_cast<double>(t->c * 3 + t->g * 2) * s;
      const double partial = pn > 1 ? 8.0 * nParams * pn * t->c : 0.0;
      const double total = bytesPerRow * t->n + partial;
      const double busiest = static_cast<double>(CeilDiv(t->n, pn)) * bytesPerRow / pg;
      // Padded stats rows cost two Brcb instructions (~10 cycles each) per row.
      const double perRow = SampleRowsStatsStride(*t, groups) != groups ? 20.0 : 0.0;
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
    const uint64_t cur = t->srSampleSplit * t->srGroupSplit;
    if (c.pn * c.pg > cur || (c.pn * c.pg == cur && c.slack < slack)) {
      slack = c.slack;
      t->srSampleSplit = c.pn;
      t->srGroupSplit = c.pg;
      t->srGroups = t->g / c.pg;
    }
  }
  if (best >= 1e300) return false;
  t->srSegStride = segStride;
  const uint64_t pn = t->srSampleSplit;
  const uint64_t rowsMax = CeilDiv(t->n, pn);
  const uint64_t rowElems = t->srGroups * segStride;
  // Rows per tile: what fits, but a few tiles per core so loads overlap compute, and not below
  // ~4096 elements a tile (per-instruction cost). DMA block counts stay <= 4095.
  uint64_t bufferNum = SampleRowsUbBytes(*t, 1, t->srGroups, segStride, 2) <= budget ? 2 : 1;
  uint64_t fit = 1;
  while (fit < rowsMax && SampleRowsUbBytes(*t, fit + 1, t->srGroups, segStride, bufferNum) <= budget) ++fit;
  const bool paddedWhole = segStride != seg && seg > 1 && t->srGroups == t->g;
  const uint64_t maxBlocks = paddedWhole ? kMaxSlotsPerTile / t->g : kMaxSlotsPerTile;
  if (maxBlocks == 0) return false;
  fit = std::min(fit, maxBlocks);
  const uint64_t want = std::max(CeilDiv(rowsMax, 4), CeilDiv(4096, rowElems));
  t->srRowsPerTile = std::min(fit, want);
  t->srBufferNum = bufferNum;
  t->mode = kGngSampleRows;
  t->blockDim = static_cast<uint32_t>(pn * t->srGroupSplit);
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
    t->srStage2Channels = CeilDiv(t->c, t->blockDim);
    uint64_t batch = std::min<uint64_t>(t->srStage2Channels, 4096);
    auto stageBytes = [&](uint64_t b) { return (pn + 1) * AlignUp(b, 8) * 4 + AlignUp(AlignUp(b, 16) * s, 32); };
    while (batch > 1 && stageBytes(batch) > budget) batch /= 2;
    t->srStage2Batch = batch;
  }
  t->syncOffset = t->workspaceBytes;
  t->ubBytesUsed = GroupNormGradSampleRowsUbBytes(*t);
  return t->ubBytesUsed <= budget;
}

// Splits rows longer than one core's UB into hwParts pieces of segLen (multiple of 64).
void ChooseRowPieces(uint64_t hw, uint64_t s, uint64_t chunkElems, uint64_t workspaceBatch, uint64_t budget,
                     const BlockMode& k, GroupNormGradTiling* t) {
  uint64_t perBlock = 32 / s;
  uint64_t fixed = TileUbBytes(s, chunkElems, 0, 1, 1, workspaceBatch, k);
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
void RefineRowPieces(uint64_t s, uint64_t budget, uint64_t groups, uint64_t cores, const BlockMode& k,
                     GroupNormGradTiling* t) {
  auto waves = [&](uint64_t chunk, uint64_t parts, GroupNormGradTiling* out) -> uint64_t {
    uint64_t seg = parts == 1 ? t->hw : AlignUp(CeilDiv(t->hw, parts), 64);
    uint64_t realParts = CeilDiv(t->hw, seg);
    uint64_t stride = AlignUp(seg, 32 / s);
    uint64_t groupSlots = t->channelsPerGroup * realParts;
    uint64_t batch = std::min<uint64_t>(AlignUp(groupSlots, 8), kGngWorkspaceBatchFloats);
    uint64_t perWave = std::min(groups, cores * MaxSlots(s, chunk, stride, 1, batch, budget, k) / groupSlots);
    if (out != nullptr) {
      out->chunkElems = chunk;
      out->hwParts = realParts;
      out->segLen = seg;
      out->lastSegLen = t->hw - (realParts - 1) * seg;
      out->rowStride = stride;
    }
    if (perWave == 0) return ~0ull;
    // Modeled time in element-times of one core: the busiest core's resident elements per wave
    // plus a SyncAll, worth ~62 KB of one core's HBM share (2 us at 31 GB/s) over 3 * s bytes per
    // element, plus ~340 bytes of DMA issue cost per piece.
    uint64_t wave = BalancedWave(groups, perWave, groupSlots, cores);
    uint64_t cost = 0;
    for (uint64_t done = 0; done < groups; done += wave) {
      uint64_t busiest = CeilDiv(std::min(wave, groups - done) * groupSlots, cores);
      cost += busiest * (stride + 340 / (3 * s)) + 62 * 1024 / (3 * s);
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

// Block-copy mode: each core's channel range starts on a 32-byte block of dgamma/dbeta and
// batches are whole blocks, so no two cores write one block (see GroupNormGradParams).
void ChooseParamBatches(uint64_t s, uint64_t budget,
                        GroupNormGradTiling* t) {
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
    uint64_t rowBytes = ParamUbBytes(s, channels, 1, *t) - ParamUbBytes(s, channels, 0, *t);
    uint64_t small = ParamUbBytes(s, channels, 0, *t);
    uint64_t rows = budget > small ? (budget - small) / rowBytes : 0;
    rows = std::min<uint64_t>({rows, t->n, kMaxSlotsPerTile});
    if (rows >= 1 || channels == unit) {
      t->paramBatchChannels = channels;
      t->paramBatchRows = std::max<uint64_t>(rows, 1);
      return;
    }
    channels = std::max<uint64_t>(channels / 2 / unit * unit, unit);
  }
}

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

}  // namespace

std::string GroupNormGradTilingFor(const GroupNormGradRequest& req, const GroupNormGradSoc& soc,
                                   GroupNormGradTiling* tiling) {
  if (req.n <= 0 || req.c <= 0 || req.hw <= 0 || req.group <= 0 || req.c % req.group != 0) {
    return "tiling needs n, c, hw, group > 0 and c divisible by group";
  }
  if (soc.coreCount == 0 || soc.ubBytes <= kGngUbReserveBytes) return "the SoC has no usable vector core";
  GroupNormGradTiling t{};
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
  const uint64_t s = DtypeBytes(req.dtype);
  const uint64_t budget = soc.ubBytes - kGngUbReserveBytes;
  const uint64_t groups = t.n * t.g;
  // Block-copy mode with rows shorter than a block: dx is packed densely in order, on one core.
  // Without dx all cores take part (piece sums are added atomically, inputs only read).
  const bool dense = t.blockCopyOnly && t.needDx && t.hw < 32 / s;
  const uint64_t coreCount = dense ? 1 : soc.coreCount;
  t.blockDim = static_cast<uint32_t>(coreCount);  // provisional, for BlockModeOf's sync scratch
  const BlockMode k = BlockModeOf(t);
  GroupNormGradTiling rows = t;
  if (ChooseSampleRows(s, budget, coreCount, &rows)) {
    *tiling = rows;
    return "";
  }
  if (ChooseChannelSlabs(s, budget, coreCount, k, &t)) {
    // Workspace: per core, n (db, ds) partials of its head group then n of its tail group.
    t.workspaceBytes = AlignUp(uint64_t{t.blockDim} * t.n * 4 * sizeof(float), 512);
    t.syncOffset = t.workspaceBytes;
    t.ubBytesUsed = GroupNormGradSlabUbBytes(t);
    *tiling = t;
    return "";
  }

  // A bigger chunk halves the per-instruction overhead; a smaller one leaves room for more
  // resident data. Take 1024 only when it keeps a group whole on one core or holds more slots.
  uint64_t score[2] = {0, 0};
  const uint64_t chunks[2] = {2048, 1024};
  for (int i = 0; i < 2; ++i) {
    GroupNormGradTiling probe = t;
    ChooseRowPieces(t.hw, s, chunks[i], kGngWorkspaceBatchFloats, budget, k, &probe);
    uint64_t whole = MaxSlots(s, chunks[i], probe.rowStride, 1, 0, budget, k);
    uint64_t batch = std::min<uint64_t>(AlignUp(t.channelsPerGroup * probe.hwParts, 8), kGngWorkspaceBatchFloats);
    uint64_t split = MaxSlots(s, chunks[i], probe.rowStride, 1, batch, budget, k);
    bool wholeFits = probe.hwParts == 1 && t.channelsPerGroup <= whole;
    score[i] = wholeFits ? 1ull << 32 : (probe.hwParts == 1 ? split : 0);
  }
  t.chunkElems = score[1] > score[0] ? chunks[1] : chunks[0];
  ChooseRowPieces(t.hw, s, t.chunkElems, kGngWorkspaceBatchFloats, budget, k, &t);
  if (t.needDx &&
      !(t.hwParts == 1 && t.channelsPerGroup <= MaxSlots(s, t.chunkElems, t.rowStride, 1, 0, budget, k))) {
    RefineRowPieces(s, budget, groups, std::min<uint64_t>(coreCount, groups * t.channelsPerGroup), k, &t);
  }
  if (t.blockCopyOnly && !FixShortLastPiece(s, &t)) return "no row cut leaves a last piece of one 32-byte block";
  t.groupSlots = t.channelsPerGroup * t.hwParts;
  const uint64_t workspaceBatch = std::min<uint64_t>(AlignUp(t.groupSlots, 8), kGngWorkspaceBatchFloats);
  const uint64_t totalSlots = groups * t.groupSlots;
  t.blockDim = static_cast<uint32_t>(std::min<uint64_t>(coreCount, totalSlots));
  const uint64_t cores = t.blockDim;

  // Phase 1: whole groups, one core each, in full rounds over the cores.
  uint64_t single = MaxSlots(s, t.chunkElems, t.rowStride, 1, 0, budget, k);
  if (t.needDx && t.hwParts == 1 && t.groupSlots <= single && groups >= cores) {
    t.wholeGroupsPerCore = groups / cores;
    uint64_t dbl = MaxSlots(s, t.chunkElems, t.rowStride, 2, 0, budget, k);
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
  t.splitTileSlots = MaxSlots(s, t.chunkElems, t.rowStride, 1, workspaceBatch, budget, k);
  if (t.splitTileSlots == 0) return "a row piece does not fit the Unified Buffer";
  if (rest > 0) {
    uint64_t perWave = t.needDx ? cores * t.splitTileSlots / t.groupSlots : rest;
    if (perWave == 0) {
      // A group larger than every core's UB together: nothing stays resident, so one wave of
      // all the groups streams each core's slice twice with a single SyncAll.
      perWave = rest;
      t.mode = kGngTwoPass;
    } else {
      t.mode = t.wholeGroupsPerCore > 0 ? kGngWholeGroupSplit : kGngSplitGroup;
    }
    t.waveGroups = t.mode == kGngTwoPass ? rest : BalancedWave(rest, std::min(perWave, rest), t.groupSlots, cores);
    if (!t.needDx) t.mode = kGngParamsOnly;
  } else {
    t.mode = kGngWholeGroup;
  }

  // Phase 3 and the workspace.
  ChooseParamBatches(s, budget, &t);
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
  t.ubBytesUsed = std::max({GroupNormGradWholeUbBytes(t), GroupNormGradSplitUbBytes(t),
                            needParams ? GroupNormGradParamUbBytes(t) : 0u});
  if (t.ubBytesUsed > budget) {
    // In practice rows so long (HxW beyond about 4e8 elements on A2) that the piece sums of a
    // channel batch outgrow the UB: a shape limit, not a bug.
    return "rows of HxW = " + std::to_string(t.hw) + " elements cut into " + std::to_string(t.hwParts) +
           " pieces need " + std::to_string(t.ubBytesUsed) + " bytes of Unified Buffer per core, more than the " +
           std::to_string(budget) + " available: HxW is too large for this SoC";
  }
  *tiling = t;
  return "";
}

uint32_t GroupNormGradWholeUbBytes(const GroupNormGradTiling& t) {
  if (t.wholeGroupsPerCore == 0) return 0;
  return static_cast<uint32_t>(TileUbBytes(DtypeBytes(t.dtype), t.chunkElems, t.rowStride, t.wholeTileSlots,
                                           t.wholeBufferNum, 0, BlockModeOf(t)));
}

uint32_t GroupNormGradSplitUbBytes(const GroupNormGradTiling& t) {
  if (t.waveGroups == 0) return 0;
  uint64_t workspaceBatch = std::min<uint64_t>(AlignUp(t.groupSlots, 8), kGngWorkspaceBatchFloats);
  return static_cast<uint32_t>(TileUbBytes(DtypeBytes(t.dtype), t.chunkElems, t.rowStride, t.splitTileSlots,
                                           1, workspaceBatch, BlockModeOf(t)));
}

uint32_t GroupNormGradSlabUbBytes(const GroupNormGradTiling& t) {
  if (t.mode != kGngChannelSlab) return 0;
  const uint64_t s = DtypeBytes(t.dtype);
  const uint64_t most = t.paramChannelsPerCore + (t.paramChannelsRemainder > 0 ? 1 : 0);
  return static_cast<uint32_t>(TileUbBytes(s, t.chunkElems, t.rowStride, t.slabTileSlots, 1, 0, BlockModeOf(t)) +
                               SlabExtraUbBytes(s, most, t));
}

uint32_t GroupNormGradSampleRowsUbBytes(const GroupNormGradTiling& t) {
  if (t.mode != kGngSampleRows) return 0;
  uint64_t bytes = SampleRowsUbBytes(t, t.srRowsPerTile, t.srGroups, t.srSegStride, t.srBufferNum);
  if (t.srStage2Batch > 0) {
    const uint64_t s = DtypeBytes(t.dtype);
    const uint64_t b = t.srStage2Batch;
    bytes = std::max(bytes, (t.srSampleSplit + 1) * AlignUp(b, 8) * 4 + AlignUp(AlignUp(b, 16) * s, 32));
  }
  return static_cast<uint32_t>(bytes);
}

uint32_t GroupNormGradParamUbBytes(const GroupNormGradTiling& t) {
  return static_cast<uint32_t>(ParamUbBytes(DtypeBytes(t.dtype), t.paramBatchChannels, t.paramBatchRows, t));
}

}  // namespace normgrad
