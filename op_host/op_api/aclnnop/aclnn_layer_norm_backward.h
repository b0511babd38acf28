// aclnnLayerNormBackward: the gradients of LayerNorm over the trailing normalizedShape dims
// (CANN's two-phase aclnn API, signatures as CANN declares them).
#pragma once
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

// Validates the arguments and builds the executor. outputMask = {gradInput, gradWeight, gradBias}.
// Returns 161001 for a null required argument (or a requested output that is null), 161002 for
// dtypes, shapes or a mask length the operator does not accept; the message names the argument.
ACLNN_API aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(const aclTensor* gradOut, const aclTensor* input,
                                                   const aclIntArray* normalizedShape, const aclTensor* mean,
                                                   const aclTensor* rstd, const aclTensor* weightOptional,
                                                   const aclTensor* biasOptional, const aclBoolArray* outputMask,
                                                   aclTensor* gradInputOut, aclTensor* gradWeightOut,
                                                   aclTensor* gradBiasOut, uint64_t* workspaceSize,
                                                   aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnLayerNormBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif
