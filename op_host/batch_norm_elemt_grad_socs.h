// The SoC families BatchNormElemtGrad runs on (its OpDef's AICore().AddConfig, and the aclnn API's
// check): Atlas A2 and A3. The kernel moves rows of any length with DataCopyPad, which the training
// series (ascend910) lacks.
#pragma once

namespace ops {
constexpr const char* kBatchNormElemtGradSocs[] = {"ascend910b", "ascend910_93"};
}  // namespace ops
