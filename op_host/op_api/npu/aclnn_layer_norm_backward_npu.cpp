// aclnnLayerNormBackward for the CANN build: the API's signature and argument checks (docs/layer_norm_grad.md's
// 161001/161002 rows), then the opbuild-generated aclnnLayerNormGradV3. The generated operator has no
// normalizedShape: it takes the rows from mean/rstd and the row length from x, so normalizedShape is
// checked here against input, weightOptional, biasOptional and the outputs, and mean/rstd against
// the leading dims of input. The simulator's version is op_host/op_api/aclnn_layer_norm_backward.cpp.
#include "aclnnop/aclnn_layer_norm_backward.h"

#include <vector>

#include "aclnn/aclnn_base.h"
#include "opdev/op_log.h"
#include "npu/aclnn_normgrad_level1.h"
#include "npu/npu_arg_check.h"

namespace {

constexpr const char* kApi = "aclnnLayerNormBackward";
constexpr size_t kMaxDims = 8;
using normgrad::ShapeString;
using normgrad::npu::Dims;
using normgrad::npu::DimsOf;
using normgrad::npu::Numel;

std::vector<int64_t> Values(const aclIntArray* a) {
  std::vector<int64_t> v(a->Size());
  for (uint64_t i = 0; i < v.size(); ++i) v[i] = (*a)[i];
  return v;
}

aclnnStatus CheckShapes(const aclTensor* gradOut, const aclTensor* input, const std::vector<int64_t>& norm,
                        const aclTensor* mean, const aclTensor* rstd, const aclTensor* weight, const aclTensor* bias) {
  const std::vector<int64_t> xs = Dims(input);
  const size_t nd = norm.size();
  if (nd < 1) NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "normalizedShape has 0 dimensions, expected at least 1");
  if (xs.size() > kMaxDims) {
    NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "input has %zu dimensions, at most %zu are supported", xs.size(),
                      kMaxDims);
  }
  if (xs.size() < nd) {
    NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "input has %zu dimensions %s, fewer than normalizedShape's %zu",
                      xs.size(), ShapeString(xs).c_str(), nd);
  }
  const size_t lead = xs.size() - nd;
  for (size_t i = 0; i < nd; ++i) {  // right-aligned: every normalized dim must match
    if (xs[lead + i] != norm[i]) {
      NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi,
                        "input shape %s does not end with normalizedShape %s: dim %zu is %lld, expected %lld",
                        ShapeString(xs).c_str(), ShapeString(norm).c_str(), lead + i,
                        static_cast<long long>(xs[lead + i]), static_cast<long long>(norm[i]));
    }
  }
  if (Dims(gradOut) != xs) {
    NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "gradOut has shape %s, expected the shape of input %s",
                      DimsOf(gradOut).c_str(), ShapeString(xs).c_str());
  }
  const int64_t rows = Numel(std::vector<int64_t>(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(lead)));
  const struct {
    const char* name;
    const aclTensor* t;
  } stats[] = {{"mean", mean}, {"rstd", rstd}};
  for (const auto& s : stats) {
    if (Numel(Dims(s.t)) != rows) {
      NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi,
                        "%s has shape %s, expected %lld elements = product of input dims 0..%zu", s.name,
                        DimsOf(s.t).c_str(), static_cast<long long>(rows), lead);
    }
  }
  const struct {
    const char* name;
    const aclTensor* t;
  } params[] = {{"weightOptional", weight}, {"biasOptional", bias}};
  for (const auto& p : params) {
    if (p.t != nullptr && Dims(p.t) != norm) {
      NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has shape %s, expected normalizedShape %s", p.name,
                        DimsOf(p.t).c_str(), ShapeString(norm).c_str());
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckOutputs(const aclTensor* input, const std::vector<int64_t>& norm, const bool need[3],
                         const aclTensor* const outs[3]) {
  if (need[0] && Dims(outs[0]) != Dims(input)) {
    NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "gradInputOut has shape %s, expected the shape of input %s",
                      DimsOf(outs[0]).c_str(), DimsOf(input).c_str());
  }
  const char* names[3] = {"gradInputOut", "gradWeightOut", "gradBiasOut"};
  for (int i = 1; i < 3; ++i) {
    if (need[i] && Numel(Dims(outs[i])) != Numel(norm)) {
      NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has shape %s, expected normalizedShape %s", names[i],
                        DimsOf(outs[i]).c_str(), ShapeString(norm).c_str());
    }
  }
  return ACLNN_SUCCESS;
}

}  // namespace

extern "C" NORMGRAD_NPU_EXPORT aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclIntArray* normalizedShape, const aclTensor* mean,
    const aclTensor* rstd, const aclTensor* weightOptional, const aclTensor* biasOptional,
    const aclBoolArray* outputMask, aclTensor* gradInputOut, aclTensor* gradWeightOut, aclTensor* gradBiasOut,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  const struct {
    const void* p;
    const char* name;
  } required[] = {{gradOut, "gradOut"}, {input, "input"},         {normalizedShape, "normalizedShape"},
                  {mean, "mean"},       {rstd, "rstd"},           {outputMask, "outputMask"},
                  {workspaceSize, "workspaceSize"}, {executor, "executor"}};
  for (const auto& r : required) {
    if (r.p == nullptr) NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_NULLPTR, kApi, "%s is a null pointer", r.name);
  }
  bool need[3];
  if (!normgrad::npu::ReadMask(outputMask, need)) {
    NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "outputMask has %llu elements, expected 3",
                      static_cast<unsigned long long>(outputMask->Size()));
  }
  const aclTensor* const outs[3] = {gradInputOut, gradWeightOut, gradBiasOut};
  const char* outNames[3] = {"gradInputOut", "gradWeightOut", "gradBiasOut"};
  for (int i = 0; i < 3; ++i) {
    if (need[i] && outs[i] == nullptr) {
      NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_NULLPTR, kApi, "%s is a null pointer but outputMask[%d] is true",
                        outNames[i], i);
    }
  }
  const std::vector<int64_t> norm = Values(normalizedShape);
  for (size_t i = 0; i < norm.size(); ++i) {
    if (norm[i] < 0) {
      NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "normalizedShape %s has a negative dim %zu",
                        ShapeString(norm).c_str(), i);
    }
  }
  if (aclnnStatus st = CheckShapes(gradOut, input, norm, mean, rstd, weightOptional, biasOptional)) return st;
  if (aclnnStatus st = CheckOutputs(input, norm, need, outs)) return st;
  // The generated operator cannot tile an empty input or a call that asks for nothing; refused
  // here with a reason rather than as a tiling failure (docs/npu.md).
  if (Numel(Dims(input)) == 0) {
    NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "input %s is empty: the NPU build does not run empty inputs yet",
                      DimsOf(input).c_str());
  }
  if (!need[0] && !need[1] && !need[2]) {
    NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "outputMask asks for no output: the NPU build has nothing to run");
  }

  // The generated operator declares all three outputs REQUIRED; one not asked for (possibly null)
  // is replaced by gradOut, which the kernel never writes because output_mask says so.
  // weightOptional null stays null: the OpDef input gamma is OPTIONAL and the kernel uses ones.
  const aclTensor* pdX = need[0] ? gradInputOut : gradOut;
  const aclTensor* pdGamma = need[1] ? gradWeightOut : gradOut;
  const aclTensor* pdBeta = need[2] ? gradBiasOut : gradOut;
  return aclnnLayerNormGradV3GetWorkspaceSize(gradOut, input, rstd, mean, weightOptional, outputMask, pdX, pdGamma,
                                              pdBeta, workspaceSize, executor);
}

extern "C" NORMGRAD_NPU_EXPORT aclnnStatus aclnnLayerNormBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                              aclrtStream stream) {
  return aclnnLayerNormGradV3(workspace, workspaceSize, executor, stream);
}
