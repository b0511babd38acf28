// aclnnGroupNormBackward: the gradients of GroupNorm (CANN's two-phase aclnn API, signatures as
// CANN declares them).
#pragma once
#include <array>

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

// Validates the arguments and builds the executor. gradOut/input hold N*C*HxW elements, mean/rstd
// N*group, gamma C (null: all ones); outputMask = {gradInput, gradGammaOut, gradBetaOut}.
// Returns 161001 for a null required pointer (or a requested output that is null), 161002 for a
// dtype, shape, group or SoC the operator does not accept; the message names the argument.
ACLNN_API aclnnStatus aclnnGroupNormBackwardGetWorkspaceSize(const aclTensor* gradOut, const aclTensor* input,
                                                   const aclTensor* mean, const aclTensor* rstd,
                                                   const aclTensor* gamma, int64_t N, int64_t C, int64_t HxW,
                                                   int64_t group, const aclBoolArray* outputMask,
                                                   aclTensor* gradInput, aclTensor* gradGammaOut,
                                                   aclTensor* gradBetaOut, uint64_t* workspaceSize,
                                                   aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnGroupNormBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif
