// LayerNorm backward tiling candidate RowSlices (op_kernel/layer_norm_grad_row_slices.h): each of
// colSplit cores keeps one column slice of a batch of rows resident and the cores of a row range
// exchange their row sums once per batch. Its cost is the batch modes' (LnBatchModelUs), which
// counts one syncAllUs per batch.
#include "layer_norm_grad_tiling_modes.h"

namespace normgrad {

LnFit FitRowSlices(LayerNormGradTiling& t, const LnSearch& s) {
  if (t.colSplit < 2) return LnFit::kNext;
  t.mode = kLnRowSlices;
  if (!LnFitBatchMode(t, s.rowsMax, s.budget)) return LnFit::kNo;
  t.rowSlices.exchangeSync = LnRowSlicesExchangeSync(t, s.soc);
  // dgamma/dbeta of the first paramsAfterSet chunks of a batch, summed between the flag's set and
  // its wait, cover up to one syncAllUs of each batch's barrier for a few more vector ops per
  // element of those chunks (16-bit: dy and x cast and centred again; fp32: x centred again and g
  // formed again for dx): the count with the least modeled time. Only chunked slices, whose pass 1
  // keeps dy resident (one chunk writes g over dy's work tile), and for fp32 a resident gamma (g is
  // formed again from it).
  const LnCallFacts f = LnCallFactsOf(t);
  const bool gammaHere = f.dataBytes == 2 || !f.hasWeight || t.gammaResident;
  if (t.rowSlices.exchangeSync == kLnExchangeSplitFlag && gammaHere && f.needDx && f.needParams &&
      t.chunkCols < t.sliceCols) {
    const uint32_t chunks = (t.sliceCols + t.chunkCols - 1) / t.chunkCols;
    uint32_t best = 0;
    double bestUs = LnBatchModelUs(t, s.rowsMax);
    for (uint32_t j = 1; j <= chunks; ++j) {
      t.rowSlices.paramsAfterSet = j;
      const double us = LnBatchModelUs(t, s.rowsMax);
      if (us < bestUs) {
        bestUs = us;
        best = j;
      }
    }
    t.rowSlices.paramsAfterSet = best;
  }
  return LnFit::kYes;
}

// The per-batch row-sum exchange (docs/cost-model.md §2: every inter-core wait costs one
// syncAllUs; a PipeBarrier<PIPE_ALL>, and the one inside SyncAll, IBSet and IBWait, drains the
// pipes and pays a pipeline refill). SyncAll: one wait and one drain per batch. Split-phase
// CrossCoreSetFlag/CrossCoreWaitFlag (mode 0, all cores): one wait, no drain. IBSet/IBWait between
// the colSplit cores of a row: colSplit - 1 waits and drains on both calls. So the hardware flags
// win wherever they exist (A2/A3); the training series keeps the soft SyncAll.
uint32_t LnRowSlicesExchangeSync(const LayerNormGradTiling& t, const SocFeatures& soc) {
  const bool exchanges = t.mode == kLnRowSlices && t.needDx && t.colSplit > 1;
  return exchanges && soc.hasHardSyncAll ? kLnExchangeSplitFlag : kLnExchangeSyncAll;
}

}  // namespace normgrad
