// The level-0 GroupNormGrad: one launch of the group_norm_grad kernel (op type GroupNormGrad), its
// tensors contiguous and shaped as the OpDef and the tiling read them.
#include "level0/normgrad_level0.h"
#include "opdev/make_op_executor.h"
#include "opdev/op_def.h"
#include "opdev/op_dfx.h"
#include "opdev/op_executor.h"
#include "opdev/op_log.h"

namespace l0op {

OP_TYPE_REGISTER(GroupNormGrad);

aclnnStatus GroupNormGrad(const aclTensor* dy, const aclTensor* mean, const aclTensor* rstd, const aclTensor* x,
                          const aclTensor* gamma, int64_t numGroups, const std::string& dataFormat, bool dxIsRequire,
                          bool dgammaIsRequire, bool dbetaIsRequire, aclTensor* dx, aclTensor* dgamma,
                          aclTensor* dbeta, aclOpExecutor* executor) {
  L0_DFX(GroupNormGrad, dy, mean, rstd, x, gamma, numGroups, dataFormat, dxIsRequire, dgammaIsRequire,
         dbetaIsRequire, dx, dgamma, dbeta);
  return ADD_TO_LAUNCHER_LIST_AICORE(GroupNormGrad, OP_INPUT(dy, mean, rstd, x, gamma), OP_OUTPUT(dx, dgamma, dbeta),
                                     OP_ATTR(numGroups, dataFormat, dxIsRequire, dgammaIsRequire, dbetaIsRequire));
}

}  // namespace l0op
