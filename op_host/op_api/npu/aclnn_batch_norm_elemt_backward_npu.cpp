// aclnnBatchNormElemtBackward for the CANN build: the API's signature and argument checks (the
// 161001/161002 rows of docs/batch_norm_elemt_backward.md on pointers and shapes), then the opbuild-generated
// aclnnBatchNormElemtGrad, which takes the same tensors in the same order (weight OPTIONAL, counter
// summed on the device: total = the sum of every element of counter). Dtype combinations are the
// OpDef's. The simulator's version is op_host/op_api/aclnn_batch_norm_elemt_backward.cpp.
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"

#include <vector>

#include "aclnn/aclnn_base.h"
#include "opdev/op_log.h"
#include "npu/aclnn_normgrad_level1.h"
#include "npu/npu_arg_check.h"

namespace {

constexpr const char* kApi = "aclnnBatchNormElemtBackward";
constexpr size_t kMaxDims = 8;
using normgrad::ShapeString;
using normgrad::npu::Dims;
using normgrad::npu::DimsOf;
using normgrad::npu::Numel;

aclnnStatus CheckShapes(const aclTensor* gradOut, const aclTensor* input, const aclTensor* const stats[5],
                        const aclTensor* counter, const aclTensor* gradInput) {
  const std::vector<int64_t> xs = Dims(input);
  if (xs.size() < 2) {
    NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi,
                      "input has %zu dimensions %s, expected at least 2 (axis 1 is the channel)", xs.size(),
                      ShapeString(xs).c_str());
  }
  const struct {
    const char* name;
    const aclTensor* t;
  } ranked[] = {{"input", input}, {"gradOut", gradOut}, {"gradInput", gradInput}, {"counter", counter}};
  for (const auto& r : ranked) {
    const size_t nd = Dims(r.t).size();
    if (nd > kMaxDims) {
      NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has %zu dimensions, at most %zu are supported", r.name, nd,
                        kMaxDims);
    }
  }
  if (xs[1] == 0) {
    NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "input %s has 0 channels (dim 1), expected at least 1",
                      ShapeString(xs).c_str());
  }
  if (Dims(gradOut) != xs) {
    NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "gradOut has shape %s, expected the shape of input %s",
                      DimsOf(gradOut).c_str(), ShapeString(xs).c_str());
  }
  if (Dims(gradInput) != xs) {
    NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "gradInput has shape %s, expected the shape of input %s",
                      DimsOf(gradInput).c_str(), ShapeString(xs).c_str());
  }
  const char* names[5] = {"mean", "invstd", "weight", "sumDy", "sumDyXmu"};
  const std::vector<int64_t> channels = {xs[1]};
  for (int i = 0; i < 5; ++i) {
    if (stats[i] != nullptr && Dims(stats[i]) != channels) {  // only weight may be null here
      NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has shape %s, expected [C] = %s (C = input dim 1)",
                        names[i], DimsOf(stats[i]).c_str(), ShapeString(channels).c_str());
    }
  }
  return ACLNN_SUCCESS;
}

}  // namespace

extern "C" NORMGRAD_NPU_EXPORT aclnnStatus aclnnBatchNormElemtBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean, const aclTensor* invstd,
    const aclTensor* weight, const aclTensor* sumDy, const aclTensor* sumDyXmu, aclTensor* counter,
    aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const struct {
    const void* p;
    const char* name;
  } required[] = {{gradOut, "gradOut"}, {input, "input"},         {mean, "mean"},
                  {invstd, "invstd"},   {sumDy, "sumDy"},         {sumDyXmu, "sumDyXmu"},
                  {counter, "counter"}, {gradInput, "gradInput"}, {workspaceSize, "workspaceSize"},
                  {executor, "executor"}};
  for (const auto& r : required) {
    if (r.p == nullptr) NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_NULLPTR, kApi, "%s is a null pointer", r.name);
  }
  const aclTensor* const stats[5] = {mean, invstd, weight, sumDy, sumDyXmu};
  if (aclnnStatus st = CheckShapes(gradOut, input, stats, counter, gradInput)) return st;
  // The generated operator cannot tile an empty input; refused here with a reason (docs/npu.md).
  if (Numel(Dims(input)) == 0) {
    NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "input %s is empty: the NPU build does not run empty inputs yet",
                      DimsOf(input).c_str());
  }
  // weight null stays null: the OpDef input weight is OPTIONAL and the kernel uses ones.
  return aclnnBatchNormElemtGradGetWorkspaceSize(gradOut, input, mean, invstd, weight, sumDy, sumDyXmu, counter,
                                                 gradInput, workspaceSize, executor);
}

extern "C" NORMGRAD_NPU_EXPORT aclnnStatus aclnnBatchNormElemtBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                   const aclrtStream stream) {
  return aclnnBatchNormElemtGrad(workspace, workspaceSize, executor, stream);
}
