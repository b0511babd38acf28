// LayerNorm backward tiling: how rows and columns are split over cores, and what the Unified
// Buffer holds. Pure functions of (shape, dtypes, mask, SoC).
//
// Worked example, A2 (48 cores, 192 KiB UB), bf16 dy/x, fp32 stats and weight, all outputs:
//   M = 8192, D = 4096 -> groups = 48, colSplit = 1 (whole rows), 171 or 170 rows per core,
//   rowsPerBatch = 3, gamma and the dgamma/dbeta sums resident (3 x 16 KiB), dy/x double-buffered;
//   stage 2 adds the 48 per-core partials in core order (48 x 4096 x 2 floats).
//   M = 1, D = 1 000 000 fp32 -> one group of 48 cores, slices of 20 864 columns; gamma and
//   dgamma/dbeta stream through 1 KiB chunks (a single batch, so nothing is re-read); one SyncAll.
#include "layer_norm_grad_tiling.h"
#include "tiling_cost.h"
#include "tiling_math.h"

#include <algorithm>
#include <cstdio>

namespace normgrad {
namespace {

constexpr uint32_t kMarginUb = 512;
constexpr uint64_t kMinSliceCols = 1024;  // below this a column split costs more in SyncAll than it wins
constexpr uint32_t kMaxBatchRows = 4095;  // DataCopyPad blockCount limit
constexpr uint64_t kTargetCopyBytes = 32 * 1024;
// Per-group dgamma/dbeta partials cost 8 bytes per column and output; keep them under this
// fraction of the 3*M*D*s bytes of dy, x and dx.
constexpr double kPartialTrafficShare = 0.04;
// Split rows exchange row sums through the workspace; once that and the dgamma/dbeta partials
// together pass this fraction of the minimum traffic, fewer slices are preferred (the target is
// a traffic ratio of at most 1.05).
constexpr double kSideTrafficShare = 0.045;

// What the tiling reads off the dtypes and the output mask of a call.
struct CallFacts {
  uint32_t dataBytes;    // bytes of one dy / x / dx element
  uint32_t weightBytes;  // bytes of one gamma / dgamma / dbeta element
  bool needX, needDx, needParams, hasWeight;
  uint32_t nParams;
};

CallFacts CallFactsOf(const LayerNormGradTiling& t) {
  CallFacts f{};
  f.dataBytes = KernelDtypeBytes(t.dtype);
  f.weightBytes = KernelDtypeBytes(t.weightDtype);
  f.needDx = t.needDx != 0;
  f.needX = t.needDx != 0 || t.needDgamma != 0;
  f.nParams = t.needDgamma + t.needDbeta;
  f.needParams = f.nParams > 0;
  f.hasWeight = t.hasWeight != 0;
  return f;
}

// Sizes the TPipe allocates: InitBuffer rounds each buffer up to 32 bytes.
uint64_t Buf(uint64_t bytes) { return AlignUp(bytes, 32); }

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
  const bool streamedSums = CallFactsOf(t).needParams && !t.accResident;
  uint64_t bHi = std::min<uint64_t>(rowsMax, kMaxBatchRows);
  if (t.colSplit == 1 && !streamedSums) {
    // No exchange to amortise: keep a few batches in flight for double buffering and copies of
    // about kTargetCopyBytes, which is past the point where DMA issue cost stops mattering.
    bHi = std::min<uint64_t>(bHi, std::max<uint64_t>(1, CeilDiv(rowsMax, 4)));
    bHi = std::min<uint64_t>(bHi, std::max<uint64_t>(1, kTargetCopyBytes / (uint64_t(wp) * CallFactsOf(t).dataBytes)));
  }
  if (streamedSums && rowsMax > bHi) return false;  // streamed sums need a single batch
  for (uint64_t b = bHi; b >= 1; --b) {
    if (streamedSums && b < rowsMax) return false;
    // A streamed gamma is read again for every batch: only worth it for a single batch.
    if (CallFactsOf(t).needDx && CallFactsOf(t).hasWeight && !t.gammaResident && b < rowsMax) return false;
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

bool FitSplitFirst(LayerNormGradTiling& t, uint64_t rowsMax, uint32_t budget, bool allowWholeSlice);


// Modeled time of a split (docs/cost-model.md §4): the larger of the stream at min(HBM, cores
// x per-core DMA) and one core's vector work (fp32 ops per element, more when 16-bit chunks
// recompute g and x - mean; about that many instructions of issue cost per row and chunk), plus
// a SyncAll per batch when rows are split.
double ModelUs(const LayerNormGradTiling& t, uint64_t rowsMax) {
  const CallFacts f = CallFactsOf(t);
  const double bytes = 3.0 * double(t.rows) * double(t.cols) * f.dataBytes;
  const double streamBytesPerUs =
      std::min(kTilingCost.hbmBytesPerUs, double(t.blockDim) * kTilingCost.coreDmaBytesPerUs);
  const double streamUs = bytes / streamBytesPerUs;
  const uint64_t chunks = CeilDiv(t.sliceCols, t.chunkCols);
  const double ops = chunks > 1 ? (f.dataBytes == 2 ? 17.0 : 12.0) : (f.dataBytes == 2 ? 14.0 : 11.0);
  const double cycles = double(rowsMax) * t.sliceCols * ops / 64.0 + double(rowsMax) * chunks * (ops + 4.0) * 10.0;
  const double vecUs = cycles / kTilingCost.cyclesPerUs;
  const uint64_t batches = CeilDiv(rowsMax, t.rowsPerBatch);
  return std::max(streamUs, vecUs) + (f.needDx && t.colSplit > 1 ? double(batches) * kTilingCost.syncAllUs : 0.0);
}

// The per-batch row-sum exchange of RowSlices (docs/cost-model.md §2: every inter-core wait costs
// one syncAllUs; a PipeBarrier<PIPE_ALL>, and the one inside SyncAll, IBSet and IBWait, drains the
// pipes and pays a pipeline refill). SyncAll: one wait and one drain per batch. Split-phase
// CrossCoreSetFlag/CrossCoreWaitFlag (mode 0, all cores): one wait, no drain. IBSet/IBWait between
// the colSplit cores of a row: colSplit - 1 waits and drains on both calls. So the hardware flags
// win wherever they exist (A2/A3); the training series keeps the soft SyncAll.
uint32_t ChooseExchangeSync(const LayerNormGradTiling& t, const LayerNormGradSocInfo& soc) {
  const bool exchanges = t.mode == kLnRowSlices && t.needDx && t.colSplit > 1;
  return exchanges && soc.hasHardSyncAll ? kLnExchangeSplitFlag : kLnExchangeSyncAll;
}

// Split rows pay one SyncAll per batch: there a larger batch with chunked math beats a smaller
// one that keeps the whole slice in one chunk.
bool FitSplit(LayerNormGradTiling& t, uint64_t rowsMax, uint32_t budget) {
  if (!FitSplitFirst(t, rowsMax, budget, true)) return false;
  if (t.colSplit == 1 || t.chunkCols < t.sliceStride) return true;
  LayerNormGradTiling chunked = t;
  if (FitSplitFirst(chunked, rowsMax, budget, false) && ModelUs(chunked, rowsMax) < ModelUs(t, rowsMax)) {
    t = chunked;
  }
  return true;
}

bool FitSplitFirst(LayerNormGradTiling& t, uint64_t rowsMax, uint32_t budget, bool allowWholeSlice) {
  const CallFacts f = CallFactsOf(t);
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

void PlanWorkspace(LayerNormGradTiling& t) {
  const CallFacts f = CallFactsOf(t);
  if (t.mode == kLnTwoPass) {  // per slice, the s1 and s2 partials of every row
    t.exchangeOffset = t.partialOffset = t.syncOffset = 0;
    t.partialStride = AlignUp(t.cols, 16);
    t.workspaceBytes = f.needDx ? AlignUp(uint64_t(t.blockDim) * 2 * AlignUp(t.rows, 8) * 4, 512) : 0;
    return;
  }
  uint64_t bp = AlignUp(t.rowsPerBatch, 8);
  uint64_t offset = 0;
  t.exchangeOffset = 0;
  if (f.needDx && t.colSplit > 1) {
    offset = AlignUp(2ull * t.blockDim * 2 * bp * 4, 512);
  }
  t.partialOffset = offset;
  t.partialStride = AlignUp(t.cols, 16);
  if (f.needParams && t.groups > 1) offset += AlignUp(uint64_t(t.groups) * 2 * t.partialStride * 4, 512);
  t.syncOffset = offset;
  const bool syncs = (f.needDx && t.colSplit > 1) || (f.needParams && t.groups > 1);
  if (t.softSync && syncs) offset += AlignUp(uint64_t(t.blockDim) * 32, 512);
  t.workspaceBytes = offset;
}

// Workspace traffic besides dy, x and dx: the row-sum exchange of split rows (per batch every core
// writes its slice's two sums per row and reads those of all slices of its group, rows padded to
// 8) and the per-group dgamma/dbeta partials (written, then read by stage 2).
uint64_t SideBytes(const LayerNormGradTiling& t) {
  const CallFacts f = CallFactsOf(t);
  uint64_t bytes = 0;
  if (f.needDx && t.colSplit > 1) {
    const uint64_t bp = AlignUp(t.rowsPerBatch, 8);
    bytes += uint64_t(t.blockDim) * t.batchesPerGroup * (2 * bp * 4) * (1 + t.colSplit);
  }
  if (f.needParams && t.groups > 1) bytes += uint64_t(t.groups) * f.nParams * t.cols * 4 * 2;
  return bytes;
}

// The minimum traffic: dy and x read, dx written, gamma read, dgamma and dbeta written (what is
// requested of them; the O(M) statistics left out).
double MinBytes(const LayerNormGradTiling& t) {
  const CallFacts f = CallFactsOf(t);
  const double params = (f.needDx && f.hasWeight ? 1.0 : 0.0) + f.nParams;
  return (f.needDx ? 3.0 : 2.0) * double(t.rows) * double(t.cols) * f.dataBytes +
         params * double(t.cols) * f.weightBytes;
}

// UB of the TwoPass kernel (layer_norm_grad_two_pass.h), buffer by buffer.
uint32_t TwoPassUbBytes(const LayerNormGradTiling& t) {
  const CallFacts f = CallFactsOf(t);
  const uint64_t b = t.rowsPerBatch, w = t.chunkCols, bp = AlignUp(b, 8), mp = AlignUp(t.rows, 8);
  uint64_t bytes = 2 * Buf(b * w * f.dataBytes) * (1 + (f.needX ? 1 : 0) + (f.needDx ? 1 : 0));  // dy, x, dx queues
  if (f.dataBytes != 4) bytes += Buf(w * 4);                                    // fp32 dy row
  if (f.needX || f.needParams) bytes += Buf(w * 4);                     // x - mean row / staging
  if (f.needDx && f.hasWeight) bytes += Buf(w * 4);                     // gamma chunk
  bytes += f.nParams * Buf(w * 4);                                      // dgamma/dbeta chunk sums
  if (f.needX) bytes += 4 * Buf(b * 4);                                 // mean/rstd raw and fp32
  if (f.needDx) {
    bytes += 2 * Buf(bp * 64 * 4) + 2 * Buf(bp * 4);                   // 64-lane partials, batch sums
    bytes += 4 * Buf(mp * 4);                                           // row sums, all rstd and raw
    bytes += Buf(2ull * t.colSplit * bp * 4);                           // gathered slice partials
  }
  return static_cast<uint32_t>(std::min<uint64_t>(bytes, 0xffffffffull));
}

// Rows no group of cores can keep resident: every core takes a column slice of all rows and
// streams it twice (5/3 of the minimum traffic). Chunks as wide as the UB allows, batches of up
// to kLnTwoPassMaxBatch rows (a multiple of 8, so batch row sums stay 32-byte aligned).
bool PlanTwoPass(LayerNormGradTiling& t, uint64_t cores, uint32_t budget) {
  const uint64_t w = AlignUp(CeilDiv(t.cols, cores), 64);
  const uint64_t split = CeilDiv(t.cols, w);
  t.mode = kLnTwoPass;
  t.groups = 1;
  t.colSplit = static_cast<uint32_t>(split);
  t.blockDim = static_cast<uint32_t>(split);
  t.sliceCols = static_cast<uint32_t>(w);
  t.sliceStride = static_cast<uint32_t>(w);
  t.rowsPerBatch = static_cast<uint32_t>(std::min<uint64_t>(t.rows, kLnTwoPassMaxBatch));
  t.batchesPerGroup = static_cast<uint32_t>(CeilDiv(t.rows, t.rowsPerBatch));
  t.bufferNum = 2;
  t.gammaResident = t.accResident = t.rowRepeat = 0;
  for (uint64_t c = std::min<uint64_t>(w, 8192); c >= 64; c -= 64) {
    t.chunkCols = static_cast<uint32_t>(c);
    if (TwoPassUbBytes(t) <= budget) return true;
  }
  return false;
}

void PlanReduce(LayerNormGradTiling& t, uint32_t budget) {
  t.reduceCols = static_cast<uint32_t>(AlignUp(CeilDiv(t.cols, t.blockDim), 16));
  uint64_t perCol = (uint64_t(t.groups) + 2) * 4;
  uint64_t cr = budget / perCol / 16 * 16;
  t.reduceChunkCols = static_cast<uint32_t>(std::max<uint64_t>(16, std::min<uint64_t>(cr, t.reduceCols)));
}

}  // namespace

uint32_t LayerNormGradUbBudget(uint32_t ubBytes) { return ubBytes - kRuntimeReservedUbBytes - kMarginUb; }

uint32_t LayerNormGradMainUbBytes(const LayerNormGradTiling& t) {
  const CallFacts f = CallFactsOf(t);
  if (t.mode == kLnTwoPass) return TwoPassUbBytes(t);
  const uint64_t b = t.rowsPerBatch, c = t.chunkCols, wp = t.sliceStride;
  const uint64_t bp = AlignUp(b, 8);
  uint64_t bytes = 0;
  bytes += t.bufferNum * Buf(b * wp * f.dataBytes) * (f.needX ? 2 : 1);  // dy, x queues
  if (f.needDx && t.rowRepeat) bytes += 2 * Buf(b * c * f.dataBytes);    // dx queue (else dx goes over dy)
  const bool recompute = c < t.sliceCols;
  const uint64_t w = recompute ? 1 : b;                           // work rows: one when chunks recompute
  if (f.dataBytes != 4 || t.rowRepeat) bytes += Buf(w * c * 4);          // dy (fp32); fp32 dy is used in place
  if (f.needX) bytes += Buf(w * c * 4);                           // xhat
  if (f.needX && !recompute) bytes += Buf(w * c * 4);             // tmp
  if (f.needX) bytes += 4 * Buf(b * 4);                           // mean/rstd raw and fp32
  if (f.needDx) bytes += 2 * Buf(bp * 4);                         // row sums
  // 64-lane row-sum partials; rowRepeat folds through one, and only rows longer than 64.
  if (f.needDx) bytes += (t.rowRepeat ? (t.sliceCols > 64 ? 1 : 0) : 2) * Buf(bp * 64 * 4);
  if (f.needDx && t.colSplit > 1) bytes += Buf(uint64_t(t.colSplit) * 2 * bp * 4);  // exchange
  if (t.rowRepeat) bytes += ((f.needX ? 2 : 0) + (f.needDx ? 2 : 0)) * Buf(bp * 32);  // Brcb'd row scalars
  if (f.needDx && f.hasWeight) {
    bytes += Buf((t.gammaResident ? wp : c) * 4);                 // gamma fp32
  }
  bytes += f.nParams * Buf((t.accResident ? wp : c) * 4);         // dgamma/dbeta sums
  if (f.needParams && !f.needX) bytes += Buf(c * 4);              // output staging (else in tmp)
  if (t.blockCopy) bytes += Buf(32);                              // block-copy scratch
  if (t.softSync && t.colSplit > 1 && f.needDx) bytes += Buf(uint64_t(t.blockDim) * 32);  // soft SyncAll
  if (t.denseRows && f.needDx) bytes += Buf((b * t.cols + 2 * 32 / f.dataBytes) * f.dataBytes);  // packed dx stage
  return static_cast<uint32_t>(std::min<uint64_t>(bytes, 0xffffffffull));
}

uint32_t LayerNormGradReduceUbBytes(const LayerNormGradTiling& t) {
  uint64_t c = t.reduceChunkCols;
  uint64_t bytes = Buf(uint64_t(t.groups) * c * 4) + 2 * Buf(c * 4);
  if (t.blockCopy) bytes += Buf(32);                      // block-copy scratch
  if (t.softSync) bytes += Buf(uint64_t(t.blockDim) * 32);  // soft SyncAll before the reduce
  return static_cast<uint32_t>(bytes);
}

LayerNormGradTilingResult LayerNormGradComputeTiling(const LayerNormGradTilingInput& in,
                                                     const LayerNormGradSocInfo& soc) {
  LayerNormGradTilingResult res;
  LayerNormGradTiling& t = res.tiling;
  t.rows = in.rows;
  t.cols = in.cols;
  t.dtype = in.dtype;
  t.statsDtype = in.statsDtype;
  t.weightDtype = in.weightDtype;
  t.hasWeight = in.hasWeight;
  t.needDx = in.needDx;
  t.needDgamma = in.needDgamma;
  t.needDbeta = in.needDbeta;
  if (in.rows == 0 || in.cols == 0 || !(in.needDx || in.needDgamma || in.needDbeta) || soc.coreCount == 0) {
    res.error = "layer_norm_grad tiling: needs rows >= 1, cols >= 1, one requested output and one core";
    return res;
  }
  const CallFacts f = CallFactsOf(t);
  const uint32_t budget = LayerNormGradUbBudget(soc.ubBytes);
  t.blockCopy = soc.hasDataCopyPad ? 0 : 1;
  t.softSync = soc.hasHardSyncAll ? 0 : 1;
  // Rows shorter than a block cannot be written by whole blocks without touching the next row:
  // each group packs its dx in GM order and starts on a block (denseGroupRows).
  t.denseRows = t.blockCopy && in.cols < 32 / f.dataBytes ? 1 : 0;
  const uint64_t cores = soc.coreCount;

  uint64_t groupCap = cores;
  if (f.needParams) {
    double cap = kPartialTrafficShare * 3.0 * double(in.rows) * f.dataBytes / (8.0 * f.nParams);
    groupCap = std::max<uint64_t>(1, std::min<uint64_t>(cores, static_cast<uint64_t>(cap)));
  }
  groupCap = std::min<uint64_t>(groupCap, in.rows);
  uint64_t kMax = std::max<uint64_t>(1, std::min<uint64_t>(cores, in.cols / kMinSliceCols));
  uint64_t kStart = std::max<uint64_t>(1, std::min<uint64_t>(kMax, cores / groupCap));

  // Whole rows (k = 1) win when they fit on every core. A split row pays one SyncAll per batch,
  // and the batch is bounded by the UB of the group's cores, so among splits keep the one with
  // the least modeled time (ModelUs).
  uint64_t rowsMax = 0;  // rows of the largest group of the candidate in t
  // Fits rows split into (about) k slices into t; false if nothing fits.
  auto fitSplitOf = [&](uint64_t k) -> bool {
    const uint64_t w = k == 1 ? in.cols : AlignUp(CeilDiv(in.cols, k), 64);
    // Slices rounded up to 64 columns may cover the row in fewer than k (e.g. 65536 in 48 slices
    // of 1408 needs only 47): split into as many as are non-empty.
    const uint64_t split = CeilDiv(in.cols, w);
    if (split > 1 && t.blockCopy && in.cols - (split - 1) * w < 16) return false;  // its end block would leave it
    if (w > 0xffffff00ull) return false;
    uint64_t groups = std::min<uint64_t>(groupCap, cores / split);
    t.colSplit = static_cast<uint32_t>(split);
    t.groups = static_cast<uint32_t>(groups);
    t.blockDim = static_cast<uint32_t>(groups * split);
    t.sliceCols = static_cast<uint32_t>(w);
    t.sliceStride = static_cast<uint32_t>(AlignUp(w, 16));
    t.mode = split == 1 ? kLnWholeRows : kLnRowSlices;
    rowsMax = CeilDiv(in.rows, groups);
    if (t.denseRows) {
      // Groups of a multiple of 32 / s rows start dx on a block; the last group takes the rest,
      // merged into the one before when it is under one block of dx (its end block would reach
      // into another core's rows), so every group writes at least one whole block.
      const uint64_t pb = 32 / f.dataBytes;
      const uint64_t r = AlignUp(CeilDiv(in.rows, groups), pb);
      groups = CeilDiv(in.rows, r);
      if (groups > 1 && (in.rows - (groups - 1) * r) * in.cols < pb) --groups;
      t.denseGroupRows = static_cast<uint32_t>(r);
      t.groups = static_cast<uint32_t>(groups);
      t.blockDim = static_cast<uint32_t>(groups);
      rowsMax = std::max<uint64_t>(std::min<uint64_t>(r, in.rows), in.rows - (groups - 1) * r);
    }
    // Short whole rows: level-0 instructions over the rows of a batch (needs Brcb and a row
    // stride under 256 blocks); worth it once a batch has more rows than 64-lane pieces.
    t.rowRepeat = soc.hasBrcb && !t.blockCopy && split == 1 && t.sliceStride / 8 <= 255;
    if (!FitSplit(t, rowsMax, budget)) return false;
    if (t.rowRepeat && (t.chunkCols != t.sliceStride || t.rowsPerBatch < 2 * CeilDiv(t.sliceCols, 64))) {
      t.rowRepeat = 0;
      if (!FitSplit(t, rowsMax, budget)) return false;
    }
    t.batchesPerGroup = static_cast<uint32_t>(CeilDiv(rowsMax, t.rowsPerBatch));
    // As many batches, evened out (16 rows: 8 + 8, not 9 + 7): the exchange slots and the
    // per-row scratch are padded to 8 rows, so a 9-row batch moves twice the row sums.
    const uint64_t even = CeilDiv(rowsMax, t.batchesPerGroup);
    if (!t.rowRepeat || even >= 2 * CeilDiv(t.sliceCols, 64)) t.rowsPerBatch = static_cast<uint32_t>(even);
    return true;
  };

  bool found = false;
  double bestUs = 0;
  LayerNormGradTiling best{};
  for (uint64_t k = kStart; k <= cores; ++k) {
    if (found && k > kMax) break;  // slices under kMinSliceCols only when nothing else fits
    if (!fitSplitOf(k)) continue;
    const double us = ModelUs(t, rowsMax);
    if (!found || us < bestUs) {
      found = true;
      bestUs = us;
      best = t;
    }
    // Splits compete with whole rows that leave cores idle (the dgamma/dbeta partials cap the
    // groups: 2048 bf16 rows get 30) or that fit only as narrow chunks of one row per batch
    // (training series: 12288 fp32 in 256 KiB pay about 20 instruction issues per row and chunk).
    if (k == 1 && t.blockDim == cores && !(t.blockCopy && t.chunkCols < t.sliceStride)) break;
  }
  // Every core reads the row sums of all slices of its group: with few rows and many slices that
  // outweighs the rows (1 x 16384 bf16 in 16 slices: 6 % of the minimum traffic). Then fewer
  // slices, the most that keep the side traffic under kSideTrafficShare of it.
  if (found && best.colSplit > 2 && SideBytes(best) > kSideTrafficShare * MinBytes(best)) {
    for (uint64_t k = best.colSplit - 1; k >= 2; --k) {
      if (fitSplitOf(k) && SideBytes(t) <= kSideTrafficShare * MinBytes(t)) {
        best = t;
        break;
      }
    }
  }
  // Nothing resident fits: two passes over column slices (needs DataCopyPad and hard SyncAll).
  if (!found && soc.hasDataCopyPad && soc.hasHardSyncAll) {
    t.denseRows = 0;
    found = PlanTwoPass(t, cores, budget);
    if (found) best = t;
  }
  if (found) {
    t = best;
    t.exchangeSync = ChooseExchangeSync(t, soc);
    t.ubBytes = LayerNormGradMainUbBytes(t);
    PlanWorkspace(t);
    PlanReduce(t, budget);
    res.ok = true;
    return res;
  }
  char msg[384];
  std::snprintf(msg, sizeof(msg),
                "layer_norm_grad tiling: M = %llu rows of D = %llu elements of %u bytes do not fit in the "
                "Unified Buffers of %u cores (%u bytes each), and %s",
                static_cast<unsigned long long>(in.rows), static_cast<unsigned long long>(in.cols), f.dataBytes,
                soc.coreCount, soc.ubBytes,
                soc.hasDataCopyPad && soc.hasHardSyncAll
                    ? "two passes over column slices would keep too many rows' sums per core"
                    : "this SoC has no two-pass mode (it needs DataCopyPad and hard SyncAll)");
  res.error = msg;
  return res;
}

}  // namespace normgrad
