// Graph prototype of BatchNormElemtGrad, the graph-mode form of aclnnBatchNormElemtBackward with
// the same inputs: the per-channel sums over every rank (sum_dy, sum_dy_xmu) and counter, the
// per-rank element counts whose total divides them (GE's SyncBatchNormBackwardElemt takes the
// sums already divided; this operator divides them itself, so one launch serves the aclnn API):
//   grad_input = (grad_output - sum_dy / total - (save_input - mean) * invstd^2 * sum_dy_xmu / total)
//                * invstd * weight,   total = sum(counter), weight optional (ones).
#pragma once
#include "graph/operator_reg.h"

namespace ge {
REG_OP(BatchNormElemtGrad)
    .INPUT(grad_output, TensorType({DT_FLOAT16, DT_BF16, DT_FLOAT}))
    .INPUT(save_input, TensorType({DT_FLOAT16, DT_BF16, DT_FLOAT}))
    .INPUT(mean, TensorType({DT_FLOAT16, DT_BF16, DT_FLOAT}))
    .INPUT(invstd, TensorType({DT_FLOAT16, DT_BF16, DT_FLOAT}))
    .OPTIONAL_INPUT(weight, TensorType({DT_FLOAT16, DT_BF16, DT_FLOAT}))
    .INPUT(sum_dy, TensorType({DT_FLOAT16, DT_BF16, DT_FLOAT}))
    .INPUT(sum_dy_xmu, TensorType({DT_FLOAT16, DT_BF16, DT_FLOAT}))
    .INPUT(counter, TensorType({DT_INT32, DT_FLOAT16, DT_FLOAT}))
    .OUTPUT(grad_input, TensorType({DT_FLOAT16, DT_BF16, DT_FLOAT}))
    .OP_END_FACTORY_REG(BatchNormElemtGrad)
}  // namespace ge
