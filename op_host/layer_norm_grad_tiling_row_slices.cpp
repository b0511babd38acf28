// LayerNorm backward tiling candidate RowSlices (op_kernel/layer_norm_grad_row_slices.h): each of
// colSplit cores keeps one column slice of a batch of rows resident and the cores of a row range
// exchange their row sums once per batch. Its cost is the batch modes' (LnBatchModelUs), which
// counts one syncAllUs per batch.
#include "layer_norm_grad_tiling_modes.h"

namespace normgrad {

LnFit FitRowSlices(LayerNormGradTiling& t, const LnSearch& s) {
  if (t.colSplit < 2) return LnFit::kNext;
  t.mode = kLnRowSlices;
  return LnFitBatchMode(t, s.rowsMax, s.budget) ? LnFit::kYes : LnFit::kNo;
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
