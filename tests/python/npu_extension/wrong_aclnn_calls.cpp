// Three calls that EXEC_NPU_CMD alone accepts and that would reach the device with the wrong ABI;
// NORMGRAD_EXEC_NPU_CMD must reject each at compile time (tests/python/test_npu_extension.py
// compiles this file and expects exactly these three errors).
#include <ATen/ATen.h>

#include <array>
#include <cstdint>

#include "aclnn_call_check.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_layer_norm_backward.h"

// group as int: the callee reads a 64-bit register whose upper half is not set.
void GroupAsInt(const at::Tensor& t, std::array<bool, 3> mask) {
  const int64_t n = 1, c = 1, hw = 1;
  const int group = 1;
  at::Tensor dx = t, dg = t, db = t;
  NORMGRAD_EXEC_NPU_CMD(aclnnGroupNormBackward, t, t, t, t, t, n, c, hw, group, mask, dx, dg, db);
}

// normalized_shape given as a tensor: an aclTensor* where an aclIntArray* is read.
void ShapeAsTensor(const at::Tensor& t, std::array<bool, 3> mask) {
  at::Tensor dx = t, dw = t, db = t;
  NORMGRAD_EXEC_NPU_CMD(aclnnLayerNormBackward, t, t, t, t, t, t, t, mask, dx, dw, db);
}

// counter left out: every later argument lands one parameter early.
void CounterMissing(const at::Tensor& t) {
  at::Tensor dx = t;
  NORMGRAD_EXEC_NPU_CMD(aclnnBatchNormElemtBackward, t, t, t, t, t, t, t, dx);
}
