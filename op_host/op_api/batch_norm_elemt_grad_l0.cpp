// The level-0 BatchNormElemtGrad: one launch of the batch_norm_elemt_grad kernel (op type
// BatchNormElemtGrad) on contiguous tensors.
#include "level0/normgrad_level0.h"
#include "opdev/make_op_executor.h"
#include "opdev/op_def.h"
#include "opdev/op_dfx.h"
#include "opdev/op_executor.h"
#include "opdev/op_log.h"

namespace l0op {

OP_TYPE_REGISTER(BatchNormElemtGrad);

aclnnStatus BatchNormElemtGrad(const aclTensor* gradOutput, const aclTensor* saveInput, const aclTensor* mean,
                               const aclTensor* invstd, const aclTensor* weight, const aclTensor* sumDy,
                               const aclTensor* sumDyXmu, const aclTensor* counter, aclTensor* gradInput,
                               aclOpExecutor* executor) {
  L0_DFX(BatchNormElemtGrad, gradOutput, saveInput, mean, invstd, weight, sumDy, sumDyXmu, counter, gradInput);
  return ADD_TO_LAUNCHER_LIST_AICORE(BatchNormElemtGrad,
                                     OP_INPUT(gradOutput, saveInput, mean, invstd, weight, sumDy, sumDyXmu, counter),
                                     OP_OUTPUT(gradInput));
}

}  // namespace l0op
