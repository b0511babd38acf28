// LayerNorm backward tiling candidate WholeRows (op_kernel/layer_norm_grad_whole_rows.h): each
// core keeps whole rows of a batch resident, no exchange between cores until the dgamma/dbeta
// partials. Its cost is the batch modes' (LnBatchModelUs).
#include "layer_norm_grad_tiling_modes.h"

namespace normgrad {

LnFit FitWholeRows(LayerNormGradTiling& t, const LnSearch& s) {
  if (t.colSplit != 1) return LnFit::kNext;
  t.mode = kLnWholeRows;
  return LnFitBatchMode(t, s.rowsMax, s.budget) ? LnFit::kYes : LnFit::kNo;
}

}  // namespace normgrad
