// What the three batch modes of the LayerNorm backward tiling share (layer_norm_grad_tiling_modes.h):
// for a fixed split of rows and columns and a mode, the batch rows, chunk width, buffering and
// residency that fit the UB budget, and the modeled time of the plan (docs/cost-model.md §4).
#include <algorithm>
#include <cmath>

#include "layer_norm_grad_tiling_modes.h"
#include "tiling_cost.h"
#include "tiling_math.h"

namespace normgrad {
namespace {

constexpr uint32_t kMaxBatchRows = 4095;  // DataCopyPad blockCount limit
constexpr uint64_t kTargetCopyBytes = 32 * 1024;

// The kernel's instruction mix per element and row (ESTIMATE, docs/cost-model.md §4): fp32 vector
// ops per element, more when 16-bit chunks recompute g and x - mean; about that many instructions
// plus kLnRowChunkExtraOps per row and chunk, each costing kLnIssueCycles of issue.
constexpr double kLnOpsChunked16 = 17.0, kLnOpsChunked32 = 12.0, kLnOpsWhole16 = 14.0, kLnOpsWhole32 = 11.0;
constexpr double kLnRowChunkExtraOps = 4.0;
// rowSlices.paramsAfterSet: dgamma/dbeta after the flag's set take (cast dy, cast x,) centre,
// product, Axpy and Add per element of a deferred chunk, of which Add and Axpy leave pass 1 (16-bit
// also the product: s2 then sums g * (x - mean) from g). fp32 also scales dy (g) by rstd there,
// an op that leaves dx, and with a weight forms g once more (ParamsChunk).
constexpr double kLnOpsParamsAfterSet16 = 6.0, kLnOpsParamsAfterSet32 = 5.0;
constexpr double kLnOpsLeavingPass1_16 = 3.0, kLnOpsLeavingPass1_32 = 3.0;
constexpr double kLnIssueCycles = kTilingCost.vecIssueCycles;
constexpr double kLnLanesPerRepeat = kLnRowSumLanes;  // fp32 lanes of one vector repeat

// Block-copy mode writes the last piece of a row as the block ending at the row's end, which
// must lie inside this chunk: no chunk of any slice may be a sliver under 16 columns.
bool HasSliver(const LayerNormGradTiling& t) {
  if (!t.blockCopy || t.chunkCols == 0 || t.chunkCols >= t.sliceCols) return false;
  const uint64_t last = t.cols - uint64_t(t.colSplit - 1) * t.sliceCols;
  const uint64_t r1 = t.sliceCols % t.chunkCols, r2 = last % t.chunkCols;
  return (r1 > 0 && r1 < 16) || (r2 > 0 && r2 < 16);
}

// Picks rowsPerBatch (largest first) and chunkCols for a fixed split, buffering and residency;
// false if nothing fits. UB bytes are affine in chunkCols up to the 32-byte rounding.
bool FitBatch(LayerNormGradTiling& t, uint64_t rowsMax, uint32_t budget, bool wholeSliceChunk) {
  const uint32_t wp = t.sliceStride;
  const bool streamedSums = LnCallFactsOf(t).needParams && !t.accResident;
  uint64_t bHi = std::min<uint64_t>(rowsMax, kMaxBatchRows);
  if (t.colSplit == 1 && !streamedSums) {
    // No exchange to amortise: keep a few batches in flight for double buffering (four; 16-bit
    // two, as their fused tiles pay about 17 instructions of row scalars and batch-wide casts per
    // batch: lm 7 x 1024 bf16 6.53 -> 6.40 us, while fp32 7 x 1024 got 0.03 us slower with two) and
    // copies of about kTargetCopyBytes, which is past the point where DMA issue cost stops mattering.
    const uint64_t inFlight = LnCallFactsOf(t).dataBytes == 2 ? 2 : 4;
    bHi = std::min<uint64_t>(bHi, std::max<uint64_t>(1, CeilDiv(rowsMax, inFlight)));
    bHi = std::min<uint64_t>(bHi, std::max<uint64_t>(1, kTargetCopyBytes / (uint64_t(wp) * LnCallFactsOf(t).dataBytes)));
  }
  if (streamedSums && rowsMax > bHi) return false;  // streamed sums need a single batch
  for (uint64_t b = bHi; b >= 1; --b) {
    if (streamedSums && b < rowsMax) return false;
    // A streamed gamma is read again for every batch: only worth it for a single batch.
    if (LnCallFactsOf(t).needDx && LnCallFactsOf(t).hasWeight && !t.gammaResident && b < rowsMax) return false;
    t.rowsPerBatch = static_cast<uint32_t>(b);
    // The whole slice in one chunk: x-hat and g of all b rows stay in the work tiles.
    t.chunkCols = wp;
    if (LayerNormGradMainUbBytes(t) <= budget) return true;
    if (wholeSliceChunk || t.sliceCols <= 16) continue;
    // Several chunks: the work tiles hold one row, so UB is affine in chunkCols (up to the
    // 32-byte rounding); start from the affine estimate and step down.
    const uint64_t maxC = (t.sliceCols - 1) / 16 * 16;  // below sliceCols: chunked accounting
    t.chunkCols = 0;
    const uint64_t fixed = LayerNormGradMainUbBytes(t);
    if (fixed >= budget) continue;
    t.chunkCols = static_cast<uint32_t>(maxC);
    const uint64_t perCol = std::max<uint64_t>(1, CeilDiv(LayerNormGradMainUbBytes(t) - fixed, maxC));
    uint64_t c = std::min<uint64_t>(maxC, (budget - fixed) / perCol / 16 * 16);
    const uint64_t minChunk = std::min<uint64_t>(maxC, b == 1 ? 16 : 512);
    for (; c >= minChunk && c >= 16; c -= 16) {
      t.chunkCols = static_cast<uint32_t>(c);
      if (LayerNormGradMainUbBytes(t) > budget) continue;
      // Equal widths in whole 64-lane repeats, so no chunk ends in a masked tail instruction
      // and the last one is not a sliver (fewer instructions per row).
      if (c >= 64) {
        const uint64_t even = AlignUp(CeilDiv(wp, CeilDiv(wp, c)), 64);
        t.chunkCols = static_cast<uint32_t>(even <= c ? even : c / 64 * 64);
      }
      if (HasSliver(t)) {
        t.chunkCols = static_cast<uint32_t>(c);
        if (HasSliver(t)) continue;
      }
      return true;
    }
  }
  return false;
}

// Residency and buffering of the split in t, most preferred first; the first that fits wins.
bool FitSplitFirst(LayerNormGradTiling& t, uint64_t rowsMax, uint32_t budget, bool allowWholeSlice) {
  const LnCallFacts f = LnCallFactsOf(t);
  // One chunk per slice keeps x-hat and dy*gamma in UB between the row sums and dx; several
  // chunks recompute them from the resident dy and x.
  for (bool wholeSliceChunk : {true, false}) {
    if (wholeSliceChunk && !allowWholeSlice) continue;
    // Split rows pay one SyncAll per batch, so there fewer, larger batches beat double buffering.
    const uint32_t bufferOrder[2] = {t.colSplit == 1 ? 2u : 1u, t.colSplit == 1 ? 1u : 2u};
    for (uint32_t bufferNum : bufferOrder) {
      t.bufferNum = bufferNum;
      // Residency preference: both resident; then dgamma/dbeta streamed (free with one batch);
      // then gamma streamed (re-read when a slice takes several chunks or batches).
      const int combos[4][2] = {{1, 1}, {1, 0}, {0, 1}, {0, 0}};
      for (const auto& combo : combos) {
        t.gammaResident = (f.needDx && f.hasWeight) ? combo[0] : 0;
        t.accResident = f.needParams ? combo[1] : 0;
        if (!f.needParams && combo[1] == 0) continue;
        if (FitBatch(t, rowsMax, budget, wholeSliceChunk)) return true;
      }
    }
  }
  return false;
}

}  // namespace

LnCallFacts LnCallFactsOf(const LayerNormGradTiling& t) {
  LnCallFacts f{};
  f.dataBytes = KernelDtypeBytes(t.dtype);
  f.weightBytes = KernelDtypeBytes(t.weightDtype);
  f.needDx = t.needDx != 0;
  f.needX = t.needDx != 0 || t.needDgamma != 0;
  f.nParams = t.needDgamma + t.needDbeta;
  f.needParams = f.nParams > 0;
  f.hasWeight = t.hasWeight != 0;
  return f;
}

// gamma not resident is read for every batch, once more for dx when 16-bit chunks recompute g.
double LnGammaRereadBytes(const LayerNormGradTiling& t, uint64_t rowsMax) {
  const LnCallFacts f = LnCallFactsOf(t);
  if (!f.needDx || !f.hasWeight || t.gammaResident) return 0.0;
  const bool twice = t.chunkCols < t.sliceCols && f.dataBytes == 2;
  const double reads = double(CeilDiv(rowsMax, t.rowsPerBatch)) * (twice ? 2.0 : 1.0);
  return (reads - 1.0) * double(t.cols) * f.weightBytes;
}

// Modeled time of a split (docs/cost-model.md §4): the larger of the stream at min(HBM, cores
// x per-core DMA) and one core's vector work (the instruction mix above), plus a SyncAll per
// batch when rows are split, less what the dgamma/dbeta sums after the flag's set cover of it.
double LnBatchModelUs(const LayerNormGradTiling& t, uint64_t rowsMax, double sideBytes, double syncUs) {
  const LnCallFacts f = LnCallFactsOf(t);
  const uint64_t chunks = CeilDiv(t.sliceCols, t.chunkCols);
  const uint64_t batches = CeilDiv(rowsMax, t.rowsPerBatch);
  const double bytes = 3.0 * double(t.rows) * double(t.cols) * f.dataBytes + LnGammaRereadBytes(t, rowsMax) + sideBytes;
  const double streamBytesPerUs =
      std::min(kTilingCost.hbmBytesPerUs, double(t.blockDim) * kTilingCost.coreDmaBytesPerUs);
  const double streamUs = bytes / streamBytesPerUs;
  const double ops = chunks > 1 ? (f.dataBytes == 2 ? kLnOpsChunked16 : kLnOpsChunked32)
                                : (f.dataBytes == 2 ? kLnOpsWhole16 : kLnOpsWhole32);
  // Vector cycles of `rows` rows over `cols` columns in `nChunks` chunks at `perElem` ops per element.
  const auto vecCycles = [](double rows, double cols, double nChunks, double perElem) {
    return rows * cols * perElem / kLnLanesPerRepeat + rows * nChunks * (perElem + kLnRowChunkExtraOps) * kLnIssueCycles;
  };
  // rowSlices.paramsAfterSet leading chunks of each batch sum dgamma/dbeta after the set.
  const double late = std::min<double>(t.rowSlices.paramsAfterSet, double(chunks));
  const double lateCols = std::min<double>(late * t.chunkCols, t.sliceCols);
  const double gAgain = f.dataBytes == 4 && f.hasWeight ? 1.0 : 0.0;
  const double afterOps = f.dataBytes == 2 ? kLnOpsParamsAfterSet16 : kLnOpsParamsAfterSet32 + gAgain;
  // Ops that move between passes change no per-row or per-chunk overhead, only their own repeats and issues.
  const auto opCycles = [](double cols, double nChunks, double perElem) {
    return cols * perElem / kLnLanesPerRepeat + nChunks * perElem * kLnIssueCycles;
  };
  const double lateCycles = opCycles(lateCols, late, afterOps);
  const double leaving = f.dataBytes == 2 ? kLnOpsLeavingPass1_16 : kLnOpsLeavingPass1_32;
  const double vecUs = (vecCycles(double(rowsMax), t.sliceCols, double(chunks), ops) +
                        double(rowsMax) * (lateCycles - opCycles(lateCols, late, leaving))) /
                       kTilingCost.cyclesPerUs;
  // A split-phase wait is charged only the part of syncAllUs that the work since the set leaves
  // uncovered (docs/cost-model.md §2), on the core that covers least: the last, narrowest slice.
  const double lastCols = double(t.cols) - double(t.colSplit - 1) * t.sliceCols;
  const double lateLast = std::min(lateCols, lastCols);
  const double coveredUs =
      double(t.rowsPerBatch) * opCycles(lateLast, std::ceil(lateLast / t.chunkCols), afterOps) / kTilingCost.cyclesPerUs;
  const double waitUs = std::max(0.0, (syncUs < 0 ? kTilingCost.syncAllUs : syncUs) - coveredUs);
  return std::max(streamUs, vecUs) + (f.needDx && t.colSplit > 1 ? double(batches) * waitUs : 0.0);
}


// Split rows pay one SyncAll per batch: there a larger batch with chunked math beats a smaller
// one that keeps the whole slice in one chunk.
bool LnFitBatchMode(LayerNormGradTiling& t, uint64_t rowsMax, uint32_t budget) {
  if (!FitSplitFirst(t, rowsMax, budget, true)) return false;
  if (t.colSplit == 1 || t.chunkCols < t.sliceStride) return true;
  LayerNormGradTiling chunked = t;
  if (FitSplitFirst(chunked, rowsMax, budget, false) && LnBatchModelUs(chunked, rowsMax) < LnBatchModelUs(t, rowsMax)) {
    t = chunked;
  }
  return true;
}

}  // namespace normgrad
