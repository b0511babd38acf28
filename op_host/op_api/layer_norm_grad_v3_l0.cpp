// The level-0 LayerNormGradV3: one launch of the layer_norm_grad_v3 kernel (op type LayerNormGradV3),
// its tensors contiguous and shaped as the OpDef and the tiling read them.
#include "level0/normgrad_level0.h"
#include "opdev/make_op_executor.h"
#include "opdev/op_def.h"
#include "opdev/op_dfx.h"
#include "opdev/op_executor.h"
#include "opdev/op_log.h"

namespace l0op {

OP_TYPE_REGISTER(LayerNormGradV3);

aclnnStatus LayerNormGradV3(const aclTensor* dy, const aclTensor* x, const aclTensor* rstd, const aclTensor* mean,
                            const aclTensor* gamma, const aclBoolArray* outputMask, aclTensor* pdX,
                            aclTensor* pdGamma, aclTensor* pdBeta, aclOpExecutor* executor) {
  L0_DFX(LayerNormGradV3, dy, x, rstd, mean, gamma, outputMask, pdX, pdGamma, pdBeta);
  return ADD_TO_LAUNCHER_LIST_AICORE(LayerNormGradV3, OP_INPUT(dy, x, rstd, mean, gamma),
                                     OP_OUTPUT(pdX, pdGamma, pdBeta), OP_ATTR(outputMask));
}

}  // namespace l0op
