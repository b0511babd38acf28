// aclnnBatchNormElemtBackward: the element-wise input gradient of (synchronized) BatchNorm from
// precomputed per-channel sums (CANN's two-phase aclnn API, signatures as CANN declares them).
#pragma once
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

// gradInput = (gradOut - sumDy/total - (input - mean) * invstd^2 * sumDyXmu/total) * invstd * weight,
// channel axis 1, total = the sum of every element of counter; weight may be null (ones).
// Returns 161001 for a null required argument, 161002 for a dtype, format or shape the operator
// does not accept; the message names the argument and the values.
ACLNN_API aclnnStatus aclnnBatchNormElemtBackwardGetWorkspaceSize(const aclTensor* gradOut, const aclTensor* input,
                                                        const aclTensor* mean, const aclTensor* invstd,
                                                        const aclTensor* weight, const aclTensor* sumDy,
                                                        const aclTensor* sumDyXmu, aclTensor* counter,
                                                        aclTensor* gradInput, uint64_t* workspaceSize,
                                                        aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnBatchNormElemtBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                        const aclrtStream stream);

#ifdef __cplusplus
}
#endif
