// The level-1 aclnn functions that CANN's opbuild generates from our OpDefs into the package's
// libcust_opapi.so (one aclnn<OpType>GetWorkspaceSize + aclnn<OpType> pair per operator; arguments
// are the inputs, then the attributes, then the outputs, in OpDef order). opbuild writes these
// prototypes into build/.../autogen/aclnn_<op>.h; they are declared here so that the API-named
// level-2 wrappers beside this file compile before opbuild has run (and under cann-check).
// Types follow opbuild's mapping: REQUIRED/OPTIONAL input -> const aclTensor* (an OPTIONAL one may be
// null), output -> const aclTensor*, Int -> int64_t, Bool -> bool, String -> char*, ListBool ->
// const aclBoolArray*. Keep this file in step with op_host/*_def.cpp.
#pragma once
#include <cstdint>

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// GroupNormGrad (op_host/group_norm_grad_def.cpp): inputs dy, mean, rstd, x, gamma (OPTIONAL); attrs
// num_groups, data_format, dx_is_require, dgamma_is_require, dbeta_is_require; outputs dx, dgamma, dbeta.
aclnnStatus aclnnGroupNormGradGetWorkspaceSize(const aclTensor* dy, const aclTensor* mean, const aclTensor* rstd,
                                               const aclTensor* x, const aclTensor* gammaOptional, int64_t numGroups,
                                               char* dataFormatOptional, bool dxIsRequireOptional,
                                               bool dgammaIsRequireOptional, bool dbetaIsRequireOptional,
                                               const aclTensor* dx, const aclTensor* dgamma, const aclTensor* dbeta,
                                               uint64_t* workspaceSize, aclOpExecutor** executor);
aclnnStatus aclnnGroupNormGrad(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                               aclrtStream stream);

// LayerNormGradV3 (op_host/layer_norm_grad_def.cpp): inputs dy, x, rstd, mean, gamma (OPTIONAL);
// attr output_mask; outputs pd_x, pd_gamma, pd_beta.
aclnnStatus aclnnLayerNormGradV3GetWorkspaceSize(const aclTensor* dy, const aclTensor* x, const aclTensor* rstd,
                                                 const aclTensor* mean, const aclTensor* gammaOptional,
                                                 const aclBoolArray* outputMaskOptional, const aclTensor* pdX,
                                                 const aclTensor* pdGamma, const aclTensor* pdBeta,
                                                 uint64_t* workspaceSize, aclOpExecutor** executor);
aclnnStatus aclnnLayerNormGradV3(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                 aclrtStream stream);

// BatchNormElemtGrad (op_host/batch_norm_elemt_grad_def.cpp): inputs grad_output, save_input, mean,
// invstd, weight (OPTIONAL), sum_dy, sum_dy_xmu, counter; no attrs; output grad_input.
aclnnStatus aclnnBatchNormElemtGradGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* saveInput,
                                                    const aclTensor* mean, const aclTensor* invstd,
                                                    const aclTensor* weightOptional, const aclTensor* sumDy,
                                                    const aclTensor* sumDyXmu, const aclTensor* counter,
                                                    const aclTensor* gradInput, uint64_t* workspaceSize,
                                                    aclOpExecutor** executor);
aclnnStatus aclnnBatchNormElemtGrad(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                    aclrtStream stream);

#ifdef __cplusplus
}
#endif
