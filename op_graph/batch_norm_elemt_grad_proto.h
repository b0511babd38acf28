// Graph prototype of SyncBatchNormBackwardElemt, the graph-mode form of aclnnBatchNormElemtBackward.
// As in GE, the per-channel inputs are already divided by the total count (mean_dy = sumDy / total,
// mean_dy_xmu = sumDyXmu / total) and may be given as [C] or broadcast to grad_output's shape:
//   grad_input = (grad_output - mean_dy - (save_input - mean) * invstd^2 * mean_dy_xmu) * invstd * weight
#pragma once
#include "graph/operator_reg.h"

namespace ge {
REG_OP(SyncBatchNormBackwardElemt)
    .INPUT(grad_output, TensorType({DT_FLOAT16, DT_BF16, DT_FLOAT}))
    .INPUT(save_input, TensorType({DT_FLOAT16, DT_BF16, DT_FLOAT}))
    .INPUT(mean, TensorType({DT_FLOAT16, DT_BF16, DT_FLOAT}))
    .INPUT(invstd, TensorType({DT_FLOAT16, DT_BF16, DT_FLOAT}))
    .INPUT(weight, TensorType({DT_FLOAT16, DT_BF16, DT_FLOAT}))
    .INPUT(mean_dy, TensorType({DT_FLOAT16, DT_BF16, DT_FLOAT}))
    .INPUT(mean_dy_xmu, TensorType({DT_FLOAT16, DT_BF16, DT_FLOAT}))
    .OUTPUT(grad_input, TensorType({DT_FLOAT16, DT_BF16, DT_FLOAT}))
    .OP_END_FACTORY_REG(SyncBatchNormBackwardElemt)
}  // namespace ge
