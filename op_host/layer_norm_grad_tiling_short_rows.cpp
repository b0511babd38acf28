// LayerNorm backward tiling candidate ShortRows (op_kernel/layer_norm_grad_short_rows.h): whole
// rows of at most 2040 columns, every step a level-0 instruction repeating over the rows of a
// batch. Worth it once a batch has more rows than 64-column pieces; its cost is the batch modes'.
#include "layer_norm_grad_tiling_modes.h"
#include "tiling_math.h"

namespace normgrad {

LnFit FitShortRows(LayerNormGradTiling& t, const LnSearch& s) {
  // Needs Brcb and DataCopyPad (A2/A3), whole rows, and a row stride under 256 blocks (the
  // repeat stride of a level-0 instruction is 8 bits).
  if (!s.soc.hasBrcb || t.blockCopy || t.colSplit != 1 || t.sliceStride / 8 > 255) return LnFit::kNext;
  t.mode = kLnShortRows;
  if (!LnFitBatchMode(t, s.rowsMax, s.budget)) return LnFit::kNo;
  // One chunk, and more rows per batch than twice the 64-column pieces of a row; else WholeRows.
  if (t.chunkCols != t.sliceStride || t.rowsPerBatch < 2 * CeilDiv(t.sliceCols, 64)) return LnFit::kNext;
  return LnFit::kYes;
}

}  // namespace normgrad
