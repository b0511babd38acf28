// The executor-plan steps the three level-2 API files share (level2_support.h), over CANN's level-0
// operators: the same on the NPU and the simulator.
#include "level0/normgrad_level0.h"
#include "level2_support.h"
#include "opdev/common_types.h"
#include "opdev/op_executor.h"

namespace normgrad {
namespace l2 {

const aclTensor* ContiguousAs(const aclTensor* t, const op::Shape& shape, aclOpExecutor* executor) {
  const aclTensor* contiguous = l0op::Contiguous(t, executor);
  return contiguous != nullptr ? l0op::Reshape(contiguous, shape, executor) : nullptr;
}

aclnnStatus ZeroInto(aclTensor* out, aclOpExecutor* executor) {
  if (out->IsEmpty()) return ACLNN_SUCCESS;
  const aclTensor* zeros = l0op::ZerosLike(out, executor);
  return zeros != nullptr && l0op::ViewCopy(zeros, out, executor) != nullptr ? ACLNN_SUCCESS : ACLNN_ERR_INNER_NULLPTR;
}

aclnnStatus CopyInto(const aclTensor* result, aclTensor* out, aclOpExecutor* executor) {
  const aclTensor* shaped = l0op::Reshape(result, out->GetViewShape(), executor);
  return shaped != nullptr && l0op::ViewCopy(shaped, out, executor) != nullptr ? ACLNN_SUCCESS
                                                                                : ACLNN_ERR_INNER_NULLPTR;
}

}  // namespace l2
}  // namespace normgrad
