// The level-0 operators the level-2 aclnn files (op_host/op_api/aclnn_*_backward.cpp) build their
// executor plans from.
//
// - CANN's own, exported by its operator library (libopapi.so; ops-nn declares them in
//   aclnn_kernels/contiguous.h, aclnn_kernels/reshape.h and level0/zero_op.h, headers CANN does not
//   install): Contiguous (a contiguous copy of a strided view, the tensor itself when contiguous),
//   Reshape (a contiguous tensor under another shape of the same element count), ViewCopy (x into
//   the possibly strided view y), ZerosLike (a zero tensor shaped like x).
// - normgrad's, one per kernel (group_norm_grad_l0.cpp, ...): registered with OP_TYPE_REGISTER and
//   launched with ADD_TO_LAUNCHER_LIST_AICORE on contiguous tensors.
// The simulator implements the first group and the launcher (sim/src/opdev_*.cpp).
#pragma once
#include <cstdint>
#include <string>

#include "aclnn/aclnn_base.h"
#include "opdev/common_types.h"

namespace l0op {

const aclTensor* Contiguous(const aclTensor* x, aclOpExecutor* executor);
const aclTensor* Reshape(const aclTensor* x, const op::Shape& shape, aclOpExecutor* executor);
const aclTensor* ViewCopy(const aclTensor* x, const aclTensor* y, aclOpExecutor* executor);
const aclTensor* ZerosLike(const aclTensor* x, aclOpExecutor* executor);

// GroupNormGrad (op_host/group_norm_grad_def.cpp) on dy, x [N, C, HxW], mean, rstd [N, group] and
// gamma [C] (nullptr: ones) into dx, dgamma, dbeta (the executor's tensors); the *IsRequire flags
// say which the kernel writes. ACLNN_SUCCESS or the launcher's status.
aclnnStatus GroupNormGrad(const aclTensor* dy, const aclTensor* mean, const aclTensor* rstd, const aclTensor* x,
                          const aclTensor* gamma, int64_t numGroups, const std::string& dataFormat, bool dxIsRequire,
                          bool dgammaIsRequire, bool dbetaIsRequire, aclTensor* dx, aclTensor* dgamma,
                          aclTensor* dbeta, aclOpExecutor* executor);

// LayerNormGradV3 (op_host/layer_norm_grad_def.cpp) on dy, x [M, D], rstd, mean [M] and gamma [D]
// (nullptr: ones) into pdX [M, D], pdGamma and pdBeta [D] (the executor's tensors); outputMask says
// which the kernel writes.
aclnnStatus LayerNormGradV3(const aclTensor* dy, const aclTensor* x, const aclTensor* rstd, const aclTensor* mean,
                            const aclTensor* gamma, const aclBoolArray* outputMask, aclTensor* pdX,
                            aclTensor* pdGamma, aclTensor* pdBeta, aclOpExecutor* executor);

// BatchNormElemtGrad (op_host/batch_norm_elemt_grad_def.cpp) on gradOutput and saveInput [N, C, ...],
// the channel vectors [C] (weight nullptr: ones) and counter, into gradInput (input's shape).
aclnnStatus BatchNormElemtGrad(const aclTensor* gradOutput, const aclTensor* saveInput, const aclTensor* mean,
                               const aclTensor* invstd, const aclTensor* weight, const aclTensor* sumDy,
                               const aclTensor* sumDyXmu, const aclTensor* counter, aclTensor* gradInput,
                               aclOpExecutor* executor);

}  // namespace l0op
