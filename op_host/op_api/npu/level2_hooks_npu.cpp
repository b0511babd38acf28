// The NPU side of the simulator-only hooks of the level-2 API (level2_support.h).
#include "level2_support.h"
#include "opdev/common_types.h"
#include "opdev/op_log.h"

namespace normgrad {
namespace l2 {

// counter is device data, and the level-2 code has no host step that could read it before the
// kernel: on the NPU its values are not checked (docs/npu.md, "What the NPU build does not check").
aclnnStatus AddCounterCheck(const char* /*api*/, const aclTensor* /*counter*/, aclOpExecutor* /*executor*/) {
  return ACLNN_SUCCESS;
}

}  // namespace l2
}  // namespace normgrad
