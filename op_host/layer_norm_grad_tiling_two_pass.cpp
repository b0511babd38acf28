// LayerNorm backward tiling candidate TwoPass (op_kernel/layer_norm_grad_two_pass.h): rows no
// range of cores can keep resident. Every core takes a column slice of all rows and streams it
// twice (5/3 of the minimum traffic), with one SyncAll between; asked only when no split fits a
// batch mode, so it has no cost to compare. Chunks as wide as the UB allows, batches of up to
// kLnTwoPassMaxBatch rows (a multiple of 8, so batch row sums stay 32-byte aligned).
#include <algorithm>

#include "layer_norm_grad_tiling_modes.h"
#include "tiling_math.h"

namespace normgrad {

LnFit FitTwoPass(LayerNormGradTiling& t, const LnSearch& s) {
  if (!s.soc.hasDataCopyPad || !s.soc.hasHardSyncAll) return LnFit::kNo;
  const uint64_t cores = s.soc.vectorCores;
  const uint64_t w = AlignUp(CeilDiv(t.cols, cores), 64);
  const uint64_t split = CeilDiv(t.cols, w);
  t.denseRows = 0;
  t.mode = kLnTwoPass;
  t.rowRanges = 1;
  t.colSplit = static_cast<uint32_t>(split);
  t.blockDim = static_cast<uint32_t>(split);
  t.sliceCols = static_cast<uint32_t>(w);
  t.sliceStride = static_cast<uint32_t>(w);
  t.rowsPerBatch = static_cast<uint32_t>(std::min<uint64_t>(t.rows, kLnTwoPassMaxBatch));
  t.batchesPerRange = static_cast<uint32_t>(CeilDiv(t.rows, t.rowsPerBatch));
  t.bufferNum = 2;
  t.gammaResident = t.accResident = 0;
  for (uint64_t c = std::min<uint64_t>(w, 8192); c >= 64; c -= 64) {
    t.chunkCols = static_cast<uint32_t>(c);
    if (LayerNormGradMainUbBytes(t) <= s.budget) return LnFit::kYes;
  }
  return LnFit::kNo;
}

// Per slice, the s1 and s2 partials of every row.
void LnTwoPassWorkspace(LayerNormGradTiling& t) {
  t.exchangeOffset = t.partialOffset = t.syncOffset = 0;
  t.partialStride = AlignUp(t.cols, 16);
  t.workspaceBytes = t.needDx ? AlignUp(uint64_t(t.blockDim) * 2 * AlignUp(t.rows, 8) * 4, 512) : 0;
}

}  // namespace normgrad
