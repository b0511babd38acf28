// Three calls that EXEC_NPU_CMD alone accepts and that would reach the device with the wrong ABI;
// NORMGRAD_EXEC_NPU_CMD must reject each at compile time. tests/python/test_npu_extension.py
// compiles this file twice: as is (expecting exactly these three errors) and with
// -DPLAIN_EXEC_NPU_CMD, where the calls go to torch_npu's macro alone and must compile.
#include <ATen/ATen.h>

#include <array>
#include <cstdint>

#include "aclnn_call_check.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_layer_norm_backward.h"

#ifdef PLAIN_EXEC_NPU_CMD
#define CALL EXEC_NPU_CMD
#else
#define CALL NORMGRAD_EXEC_NPU_CMD
#endif

// group as int: the callee reads a 64-bit register whose upper half is not set.
void GroupAsInt(const at::Tensor& t, std::array<bool, 3> mask) {
  const int64_t n = 1, c = 1, hw = 1;
  const int group = 1;
  at::Tensor dx = t, dg = t, db = t;
  CALL(aclnnGroupNormBackward, t, t, t, t, t, n, c, hw, group, mask, dx, dg, db);
}

// normalized_shape given as a tensor: an aclTensor* where an aclIntArray* is read.
void ShapeAsTensor(const at::Tensor& t, std::array<bool, 3> mask) {
  at::Tensor dx = t, dw = t, db = t;
  CALL(aclnnLayerNormBackward, t, t, t, t, t, t, t, mask, dx, dw, db);
}

// counter left out: every later argument lands one parameter early.
void CounterMissing(const at::Tensor& t) {
  at::Tensor dx = t;
  CALL(aclnnBatchNormElemtBackward, t, t, t, t, t, t, t, dx);
}
