// Kernel entry of BatchNormElemtGrad (aclnnBatchNormElemtBackward, graph op SyncBatchNormBackwardElemt):
// reads the tiling and runs the mode it chose. The math lives in the mode headers.
// cann-check: skip-arch ascend910 aclnnBatchNormElemtBackward serves Atlas A2/A3 and Ascend 950 only; its copies need DataCopyPad
// cann-check: skip-arch ascend310p aclnnBatchNormElemtBackward does not serve the Atlas inference series (not in its OpDef; no DataCopyPad, no bfloat16 there)
#include "kernel_operator.h"
#include "batch_norm_elemt_grad_channel_rows.h"
#include "batch_norm_elemt_grad_channel_slabs.h"
#include "batch_norm_elemt_grad_row_scalars.h"
#include "batch_norm_elemt_grad_tiling.h"

using normgrad::BatchNormElemtGradTiling;

template <typename Mode>
__aicore__ inline void RunBatchNormElemtGrad(GM_ADDR dy, GM_ADDR x, const normgrad::BnElemtStatArgs& stats, GM_ADDR dx,
                                             const BatchNormElemtGradTiling& t) {
  AscendC::TPipe pipe;
  Mode op;
  op.Init(dy, x, stats, dx, t, &pipe);
  op.Process();
}

extern "C" __global__ __aicore__ void batch_norm_elemt_grad(GM_ADDR dy, GM_ADDR x, GM_ADDR mean, GM_ADDR invstd,
                                                            GM_ADDR weight, GM_ADDR sumDy, GM_ADDR sumDyXmu,
                                                            GM_ADDR counter, GM_ADDR dx, GM_ADDR workspace,
                                                            GM_ADDR tiling) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
  GET_TILING_DATA_WITH_STRUCT(BatchNormElemtGradTiling, t, tiling);
  normgrad::BnElemtStatArgs stats{{mean, invstd, weight, sumDy, sumDyXmu}, counter};
  if (t.mode == normgrad::kBnElemtChannelRows) {
    RunBatchNormElemtGrad<normgrad::BatchNormElemtGradChannelRows>(dy, x, stats, dx, t);
  } else if (t.mode == normgrad::kBnElemtChannelSlabs) {
    RunBatchNormElemtGrad<normgrad::BatchNormElemtGradChannelSlabs>(dy, x, stats, dx, t);
  } else {
    RunBatchNormElemtGrad<normgrad::BatchNormElemtGradRowScalars>(dy, x, stats, dx, t);
  }
}
