// Graph prototype of LayerNormGradV3, the graph-mode form of aclnnLayerNormBackward. Shapes:
// dy = x = pd_x = [A1..Ai, R1..Rj]; rstd = mean = [A1..Ai, 1..1]; gamma = pd_gamma = pd_beta = [R1..Rj].
// output_mask = {pd_x, pd_gamma, pd_beta}: what is false is neither computed nor written.
#pragma once
#include "graph/operator_reg.h"

namespace ge {
REG_OP(LayerNormGradV3)
    .INPUT(dy, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(x, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(rstd, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(mean, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OPTIONAL_INPUT(gamma, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(pd_x, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(pd_gamma, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OUTPUT(pd_beta, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .ATTR(output_mask, ListBool, {true, true, true})
    .OP_END_FACTORY_REG(LayerNormGradV3)
}  // namespace ge
