// LayerNorm backward tiling: how rows and columns are split over cores and which mode plans the
// split (the candidates of layer_norm_grad_tiling_modes.h, one file each). Pure functions of
// (shape, dtypes, mask, SoC).
//
// Worked example, A2 (48 cores, 192 KiB UB), bf16 dy/x, fp32 stats and weight, all outputs:
//   M = 8192, D = 4096 -> rowRanges = 48, colSplit = 1 (WholeRows), 171 or 170 rows per core,
//   rowsPerBatch = 3, gamma and the dgamma/dbeta sums resident (3 x 16 KiB), dy/x double-buffered;
//   stage 2 adds the 48 per-core partials in core order (48 x 4096 x 2 floats).
//   M = 1, D = 1 000 000 fp32 -> one range of 48 cores (RowSlices), slices of 20 864 columns; gamma
//   and dgamma/dbeta stream through 1 KiB chunks (a single batch, so nothing is re-read); one SyncAll.
#include "layer_norm_grad_tiling.h"

#include <algorithm>
#include <cstdio>

#include "layer_norm_grad_tiling_modes.h"
#include "tiling_cost.h"
#include "tiling_math.h"

namespace normgrad {
namespace {

constexpr uint32_t kMarginUb = 512;
// Column slices narrower than this are planned only when nothing else fits. On A2/A3 the model
// ranks every split down to it (16 x 32768 fp32: 43 slices of 768 columns, 10.8 -> 10.2 us; the
// 7-token rows 0.3-0.7 us faster; 128 changed no bench shape further): each core's exchange read
// grows with the slices, which the side-traffic cap below bounds.
constexpr uint64_t kMinSliceCols = 256;
// The training series, whose model constants are A2's while its cores stream about half as fast,
// keeps its former limit of slices of this many columns unless its search starts with a split
// anyway (few rows, idle cores): 1 x 768 fp32 split in 3 took 5.6 -> 7.4 us there.
constexpr uint64_t kMinSplitColsTraining = 1024;
// Per-range dgamma/dbeta partials cost 8 bytes per column and output; keep them under this
// fraction of the 3*M*D*s bytes of dy, x and dx.
constexpr double kPartialTrafficShare = 0.04;
// Split rows exchange row sums through the workspace; once that and the dgamma/dbeta partials
// together pass this fraction of the minimum traffic, fewer slices are preferred (the target is
// a traffic ratio of at most 1.05).
constexpr double kSideTrafficShare = 0.045;
// The traffic target (HBM bytes over the minimum): whole rows may take more row ranges than
// kPartialTrafficShare allows, up to this, where the model says the cores gain more than the
// partials cost.
constexpr double kTrafficTarget = 1.05;
// The barrier latency, as a multiple of the model's syncAllUs (an ESTIMATE), at which a row split
// must still beat whole rows on every core to replace them (the what-if corner sync_us = 4).
constexpr double kLnRobustSyncFactor = 2.0;

// The batch modes' workspace: the row-sum exchange of RowSlices (2 parities), the per-range
// dgamma/dbeta partials, the soft SyncAll flags.
void PlanWorkspace(LayerNormGradTiling& t) {
  const LnCallFacts f = LnCallFactsOf(t);
  if (t.mode == kLnTwoPass) return LnTwoPassWorkspace(t);
  uint64_t bp = AlignUp(t.rowsPerBatch, 8);
  uint64_t offset = 0;
  t.exchangeOffset = 0;
  if (f.needDx && t.colSplit > 1) {
    offset = AlignUp(2ull * t.blockDim * 2 * bp * 4, 512);
  }
  t.partialOffset = offset;
  t.partialStride = AlignUp(t.cols, 16);
  if (f.needParams && t.rowRanges > 1) offset += AlignUp(uint64_t(t.rowRanges) * 2 * t.partialStride * 4, 512);
  t.syncOffset = offset;
  const bool syncs = (f.needDx && t.colSplit > 1) || (f.needParams && t.rowRanges > 1);
  if (t.softSync && syncs) offset += AlignUp(uint64_t(t.blockDim) * 32, 512);
  t.workspaceBytes = offset;
}

// Workspace traffic besides dy, x and dx: the row-sum exchange of split rows (per batch every core
// writes its slice's two sums per row and reads those of all slices of its range, rows padded to
// 8) and the per-range dgamma/dbeta partials (written, then read by stage 2).
uint64_t SideBytes(const LayerNormGradTiling& t) {
  const LnCallFacts f = LnCallFactsOf(t);
  uint64_t bytes = 0;
  if (f.needDx && t.colSplit > 1) {
    const uint64_t bp = AlignUp(t.rowsPerBatch, 8);
    bytes += uint64_t(t.blockDim) * t.batchesPerRange * (2 * bp * 4) * (1 + t.colSplit);
  }
  if (f.needParams && t.rowRanges > 1) bytes += uint64_t(t.rowRanges) * f.nParams * t.cols * 4 * 2;
  return bytes;
}


// Gamma, resident, is read once per row range: the reads past the first.
double GammaPerRangeBytes(const LayerNormGradTiling& t) {
  const LnCallFacts f = LnCallFactsOf(t);
  return f.needDx && f.hasWeight && t.gammaResident ? double(t.rowRanges - 1) * double(t.cols) * f.weightBytes : 0.0;
}

// A split's modeled time for the search: the batch mode's (LnBatchModelUs) with the side traffic
// (SideBytes) and gamma read once per row range in its stream, plus the barrier before stage 2
// when there are partials (charged whole: what the last batch covers of it is left out), with a
// barrier latency of syncUs.
double PlanModelUs(const LayerNormGradTiling& t, uint64_t rowsMax, double syncUs = kTilingCost.syncAllUs) {
  const LnCallFacts f = LnCallFactsOf(t);
  const bool stage2 = f.needParams && t.rowRanges > 1;
  return LnBatchModelUs(t, rowsMax, double(SideBytes(t)) + GammaPerRangeBytes(t), syncUs) + (stage2 ? syncUs : 0.0);
}

// The minimum traffic: dy and x read, dx written, gamma read, dgamma and dbeta written (what is
// requested of them; the O(M) statistics left out).
double MinBytes(const LayerNormGradTiling& t) {
  const LnCallFacts f = LnCallFactsOf(t);
  const double params = (f.needDx && f.hasWeight ? 1.0 : 0.0) + f.nParams;
  return (f.needDx ? 3.0 : 2.0) * double(t.rows) * double(t.cols) * f.dataBytes +
         params * double(t.cols) * f.weightBytes;
}


void PlanReduce(LayerNormGradTiling& t, uint32_t budget, const SocFeatures& soc) {
  t.reduce.cols = static_cast<uint32_t>(AlignUp(CeilDiv(t.cols, t.blockDim), 16));
  uint64_t perCol = (uint64_t(t.rowRanges) + 2) * 4;
  uint64_t cr = budget / perCol / 16 * 16;
  t.reduce.chunkCols = static_cast<uint32_t>(std::max<uint64_t>(16, std::min<uint64_t>(cr, t.reduce.cols)));
  // The barrier before stage 2: a SyncAll costs syncAllUs; split phase (set after the partials,
  // dx of the last batch, wait) costs max(0, syncAllUs - that dx work) (docs/cost-model.md §2),
  // never more, and spares the SyncAll's drain. So split phase wherever the hardware flags exist
  // (A2/A3) and the mode publishes its partials before the last batch's dx (the batch modes).
  const bool stage2 = t.rowRanges > 1 && LnCallFactsOf(t).needParams;
  t.reduce.splitPhase = stage2 && soc.hasHardSyncAll && t.mode != kLnTwoPass ? 1 : 0;
}

// What the split search holds fixed for a call.
struct SplitSearch {
  const SocFeatures& soc;
  uint32_t budget;
  uint64_t cores;
  uint64_t rangeCap;   // most row ranges (the dgamma/dbeta partials' share of the traffic)
  uint32_t dataBytes;  // of dy / x / dx
};

// Plans rows split into (about) k slices into t with the first batch mode of kLnModes that takes
// the split; *rowsMax = rows of its largest range. False if nothing fits.
bool PlanSplit(LayerNormGradTiling& t, uint64_t k, const SplitSearch& s, uint64_t* rowsMax) {
  const uint64_t w = k == 1 ? t.cols : AlignUp(CeilDiv(t.cols, k), 64);
  // Slices rounded up to 64 columns may cover the row in fewer than k (e.g. 65536 in 48 slices
  // of 1408 needs only 47): split into as many as are non-empty.
  const uint64_t split = CeilDiv(t.cols, w);
  if (split > 1 && t.blockCopy && t.cols - (split - 1) * w < 16) return false;  // its end block would leave it
  if (w > 0xffffff00ull) return false;
  uint64_t ranges = std::min<uint64_t>(s.rangeCap, s.cores / split);
  t.colSplit = static_cast<uint32_t>(split);
  t.rowRanges = static_cast<uint32_t>(ranges);
  t.blockDim = static_cast<uint32_t>(ranges * split);
  t.sliceCols = static_cast<uint32_t>(w);
  t.sliceStride = static_cast<uint32_t>(AlignUp(w, 16));
  t.rowSlices = LayerNormGradRowSlicesTiling{};  // RowSlices sets its own
  *rowsMax = CeilDiv(t.rows, ranges);
  if (t.denseRows) {
    // Ranges of a multiple of 32 / s rows start dx on a block; the last range takes the rest,
    // merged into the one before when it is under one block of dx (its end block would reach
    // into another core's rows), so every range writes at least one whole block.
    const uint64_t pb = 32 / s.dataBytes;
    const uint64_t r = AlignUp(CeilDiv(t.rows, ranges), pb);
    ranges = CeilDiv(t.rows, r);
    if (ranges > 1 && (t.rows - (ranges - 1) * r) * t.cols < pb) --ranges;
    t.denseRangeRows = static_cast<uint32_t>(r);
    t.rowRanges = static_cast<uint32_t>(ranges);
    t.blockDim = static_cast<uint32_t>(ranges);
    *rowsMax = std::max<uint64_t>(std::min<uint64_t>(r, t.rows), t.rows - (ranges - 1) * r);
  }
  // The first batch mode of the list that takes this split plans it.
  const LnSearch search{s.soc, s.budget, *rowsMax};
  LnFit fit = LnFit::kNo;
  for (const LnModeCandidate& mode : kLnModes) {
    if (mode.streaming) continue;
    fit = mode.fit(t, search);
    if (fit != LnFit::kNext) break;
  }
  if (fit != LnFit::kYes) return false;
  t.batchesPerRange = static_cast<uint32_t>(CeilDiv(*rowsMax, t.rowsPerBatch));
  // As many batches, evened out (16 rows: 8 + 8, not 9 + 7): the exchange slots and the
  // per-row scratch are padded to 8 rows, so a 9-row batch moves twice the row sums.
  const uint64_t even = CeilDiv(*rowsMax, t.batchesPerRange);
  const uint32_t fitted = t.rowsPerBatch;
  if (t.mode != kLnShortRows || even >= 2 * CeilDiv(t.sliceCols, 64)) t.rowsPerBatch = static_cast<uint32_t>(even);
  // Fewer rows may give up the fused tile (LnFusedTile) and so need the third work tile again.
  if (LayerNormGradMainUbBytes(t) > s.budget) t.rowsPerBatch = fitted;
  return true;
}

}  // namespace

uint32_t LayerNormGradUbBudget(const SocFeatures& soc) { return UsableUbBytes(soc) - kMarginUb; }

uint32_t LayerNormGradMainUbBytes(const LayerNormGradTiling& t) {
  uint64_t bytes = 0;
  if (t.mode == kLnTwoPass) {
    const LnTwoPassUbLayout l = LayerNormGradTwoPassUb(t);
    bytes = LnUbSum(l.buf, kLnTwoPassUbCount);
  } else {
    const LnBatchUbLayout l = LayerNormGradBatchUb(t);
    bytes = LnUbSum(l.buf, kLnBatchUbCount);
  }
  return static_cast<uint32_t>(std::min<uint64_t>(bytes, 0xffffffffull));
}

uint32_t LayerNormGradReduceUbBytes(const LayerNormGradTiling& t) {
  const LnReduceUbLayout l = LayerNormGradReduceUb(t);
  return static_cast<uint32_t>(LnUbSum(l.buf, kLnReduceUbCount));
}

LayerNormGradTilingResult LayerNormGradComputeTiling(const LayerNormGradTilingInput& in,
                                                     const SocFeatures& soc) {
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
  if (in.rows == 0 || in.cols == 0 || !(in.needDx || in.needDgamma || in.needDbeta) || soc.vectorCores == 0) {
    res.error = "layer_norm_grad tiling: needs rows >= 1, cols >= 1, one requested output and one core";
    return res;
  }
  const LnCallFacts f = LnCallFactsOf(t);
  const uint32_t budget = LayerNormGradUbBudget(soc);
  t.blockCopy = soc.hasDataCopyPad ? 0 : 1;
  t.softSync = soc.hasHardSyncAll ? 0 : 1;
  // Rows shorter than a block cannot be written by whole blocks without touching the next row:
  // each range packs its dx in GM order and starts on a block (denseRangeRows).
  t.denseRows = t.blockCopy && in.cols < 32 / f.dataBytes ? 1 : 0;
  const uint64_t cores = soc.vectorCores;

  uint64_t rangeCap = cores;
  if (f.needParams) {
    double cap = kPartialTrafficShare * 3.0 * double(in.rows) * f.dataBytes / (8.0 * f.nParams);
    rangeCap = std::max<uint64_t>(1, std::min<uint64_t>(cores, static_cast<uint64_t>(cap)));
  }
  rangeCap = std::min<uint64_t>(rangeCap, in.rows);
  const uint64_t kMaxTraining = std::max<uint64_t>(1, std::min<uint64_t>(cores, in.cols / kMinSplitColsTraining));

  // Whole rows (k = 1) win when they fit on every core. A split row pays one SyncAll per batch,
  // and the batch is bounded by the UB of the range's cores, so among splits keep the one with
  // the least modeled time (LnBatchModelUs).
  uint64_t rowsMax = 0;  // rows of the largest range of the candidate in t
  const SplitSearch search{soc, budget, cores, rangeCap, f.dataBytes};

  bool found = false, bestLean = false;
  double bestUs = 0;
  LayerNormGradTiling best{};
  // Whole rows on every core, modeled with a barrier kLnRobustSyncFactor times the model's: a
  // split, which waits once per batch, must beat it there too (below).
  double wholeRowsSlowSyncUs = -1.0;
  // From one slice up: with fewer rows than cores (1 or 7 tokens) a row split pays a barrier per
  // batch that one core streaming a whole row may not (lm 1 x 4096 fp32: 48 KiB on one core,
  // about 1 us, against 2 us of exchange); the model decides. Its constants are A2's: a training
  // series core streams about half as many bytes per us (1.0 GHz, block copies), so there splits
  // start where the ranges leave cores idle, as before.
  const uint64_t kStart = t.blockCopy ? std::max<uint64_t>(1, std::min<uint64_t>(kMaxTraining, cores / rangeCap)) : 1;
  // The most slices the search ranks before it settles for what it found (see kMinSliceCols).
  const uint64_t kMax = t.blockCopy && kStart == 1
                            ? kMaxTraining
                            : std::max<uint64_t>(1, std::min<uint64_t>(cores, in.cols / kMinSliceCols));
  for (uint64_t k = kStart; k <= cores; ++k) {
    if (found && k > kMax) break;  // slices under kMinSliceCols only when nothing else fits
    if (!PlanSplit(t, k, search, &rowsMax)) continue;
    const double us = PlanModelUs(t, rowsMax);
    const double slowSyncUs = PlanModelUs(t, rowsMax, kLnRobustSyncFactor * kTilingCost.syncAllUs);
    if (k == 1 && t.blockDim == cores) wholeRowsSlowSyncUs = slowSyncUs;
    // A split replaces whole rows on every core only if it also wins with the slower barrier: its
    // gain is a few per cent at the model's 2 us, its loss about 20 % at 4 us (2048 x 4096 fp32:
    // 12 ranges of 4 slices, 9 waits each about 2 us covered: 74.1 against 76.7 us, but 90.4
    // against 76.7 with launch 3 us and sync 4 us).
    const bool robust = wholeRowsSlowSyncUs < 0 || slowSyncUs < wholeRowsSlowSyncUs;
    // A plan that re-reads gamma past the traffic target loses to any that does not, whatever
    // its time (1 x 1 000 000 bf16 on 34 cores: 4 % faster, 22 % more bytes).
    const bool lean = LnGammaRereadBytes(t, rowsMax) <= kSideTrafficShare * MinBytes(t);
    if (!found || (lean && !bestLean) || (lean == bestLean && us < bestUs && robust)) {
      found = true;
      bestLean = lean;
      bestUs = us;
      best = t;
    }
    // On A2/A3 splits always compete with whole rows: fewer row ranges write fewer dgamma/dbeta
    // partials and read gamma fewer times (PlanModelUs), which can outweigh the exchange whose
    // waits the work after the flag's set covers (if robust, above). On the training series (soft
    // SyncAll, nothing to cover it) only whole rows that leave cores idle (the partials cap the
    // ranges) or that fit only as narrow chunks of one row per batch (12288 fp32 in 256 KiB pay
    // about 20 instruction issues per row and chunk) do.
    if (t.blockCopy && k == 1 && t.blockDim == cores && t.chunkCols >= t.sliceStride) break;
  }
  // Whole rows that the partials' cap leaves on fewer cores than there are (2048 bf16 rows: 30
  // ranges), vector bound: each range more takes rows off every core and adds one set of partials
  // and one gamma read. The model picks the count, up to the traffic target (2048 x 768 bf16: 31
  // ranges, 16.0 -> 15.8 us; 2048 x 4096 stays at 30, bound by HBM). Whole rows against whole
  // rows only: the barriers are the same, so the what-if corners rank them the same way.
  if (found && best.colSplit == 1 && best.mode != kLnShortRows && !t.blockCopy && f.needParams) {
    for (uint64_t r = uint64_t(best.rowRanges) + 1; r <= std::min<uint64_t>(cores, in.rows); ++r) {
      SplitSearch wider = search;
      wider.rangeCap = r;
      if (!PlanSplit(t, 1, wider, &rowsMax) || t.colSplit != 1 || t.rowRanges != r) break;
      // Against the minimum with the statistics (read once), as the benchmark's traffic column.
      const double least = MinBytes(t) + 2.0 * double(in.rows) * KernelDtypeBytes(in.statsDtype);
      if (least + double(SideBytes(t)) + GammaPerRangeBytes(t) > kTrafficTarget * least) break;
      const bool lean = LnGammaRereadBytes(t, rowsMax) <= kSideTrafficShare * MinBytes(t);
      const double us = PlanModelUs(t, rowsMax);
      if (lean && us < bestUs) {
        bestUs = us;
        best = t;
      }
    }
  }
  // Every core reads the row sums of all slices of its range: with few rows and many slices that
  // outweighs the rows (1 x 16384 bf16 in 16 slices: 6 % of the minimum traffic). Then fewer
  // slices, the most that keep the side traffic under kSideTrafficShare of it.
  if (found && best.colSplit > 2 && SideBytes(best) > kSideTrafficShare * MinBytes(best)) {
    for (uint64_t k = best.colSplit - 1; k >= 2; --k) {
      if (PlanSplit(t, k, search, &rowsMax) && SideBytes(t) <= kSideTrafficShare * MinBytes(t)) {
        best = t;
        break;
      }
    }
  }
  // Nothing resident fits: the streaming modes of the list, in order.
  for (const LnModeCandidate& mode : kLnModes) {
    if (found || !mode.streaming) continue;
    found = mode.fit(t, LnSearch{soc, budget, 0}) == LnFit::kYes;
    if (found) best = t;
  }
  if (found) {
    t = best;
    t.rowSlices.exchangeSync = LnRowSlicesExchangeSync(t, soc);
    t.mainUbBytes = LayerNormGradMainUbBytes(t);
    PlanWorkspace(t);
    PlanReduce(t, budget, soc);
    res.ok = true;
    return res;
  }
  char msg[384];
  std::snprintf(msg, sizeof(msg),
                "layer_norm_grad tiling: M = %llu rows of D = %llu elements of %u bytes do not fit in the "
                "Unified Buffers of %u cores (%u bytes each), and %s",
                static_cast<unsigned long long>(in.rows), static_cast<unsigned long long>(in.cols), f.dataBytes,
                soc.vectorCores, soc.ubBytes,
                soc.hasDataCopyPad && soc.hasHardSyncAll
                    ? "two passes over column slices would keep too many rows' sums per core"
                    : "this SoC has no two-pass mode (it needs DataCopyPad and hard SyncAll)");
  res.error = msg;
  return res;
}

}  // namespace normgrad
