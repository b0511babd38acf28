// aclnnGroupNormBackward for the CANN build: the API's signature and argument checks (docs/group_norm_grad.md's
// 161001/161002 rows that the generated operator cannot know: N, C, HxW and group against the
// tensors, the output mask), then the opbuild-generated aclnnGroupNormGrad does the rest (dtype and
// format combinations from the OpDef, tiling, launch). The simulator's version is
// op_host/op_api/aclnn_group_norm_backward.cpp; both keep the same rules.
#include "aclnnop/aclnn_group_norm_backward.h"

#include "aclnn/aclnn_base.h"
#include "opdev/op_log.h"
#include "npu/aclnn_normgrad_level1.h"
#include "npu/npu_arg_check.h"

namespace {

constexpr const char* kApi = "aclnnGroupNormBackward";
using normgrad::npu::Dims;
using normgrad::npu::DimsOf;
using normgrad::npu::Numel;

aclnnStatus CheckCounts(const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean,
                        const aclTensor* rstd, const aclTensor* gamma, int64_t n, int64_t c, int64_t hw,
                        int64_t group) {
  if (n < 0 || c < 0 || hw < 0) {
    NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "N = %lld, C = %lld, HxW = %lld: sizes must not be negative",
                      static_cast<long long>(n), static_cast<long long>(c), static_cast<long long>(hw));
  }
  if (group <= 0) NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "group is %lld, expected > 0", static_cast<long long>(group));
  if (c % group != 0) {
    NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "C = %lld is not divisible by group = %lld",
                      static_cast<long long>(c), static_cast<long long>(group));
  }
  const struct {
    const char* name;
    const aclTensor* t;
    int64_t expected;
    const char* formula;
  } counts[] = {{"gradOut", gradOut, n * c * hw, "N * C * HxW"},
                {"input", input, n * c * hw, "N * C * HxW"},
                {"mean", mean, n * group, "N * group"},
                {"rstd", rstd, n * group, "N * group"},
                {"gamma", gamma, c, "C"}};
  for (const auto& k : counts) {
    if (k.t == nullptr) continue;  // gamma is optional
    const int64_t numel = Numel(Dims(k.t));
    if (numel != k.expected) {
      NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s %s has %lld elements, expected %s = %lld", k.name,
                        DimsOf(k.t).c_str(), static_cast<long long>(numel), k.formula,
                        static_cast<long long>(k.expected));
    }
  }
  return ACLNN_SUCCESS;
}

// The generated operator's tiling reads N from dim 0 of gradOut, C from dim 1 and HxW from the
// rest (op_host/group_norm_grad_tiling_entry.cpp); the API allows any shape with N * C * HxW
// elements. Until this wrapper reshapes (which needs a view tensor living until the execute
// phase), a shape the tiling would misread is rejected here rather than computed wrongly, and an
// empty input, which the generated operator cannot tile, likewise (docs/npu.md).
aclnnStatus CheckNpuLayout(const aclTensor* gradOut, const aclTensor* input, int64_t n, int64_t c, int64_t hw) {
  if (n == 0 || c == 0 || hw == 0) {
    NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi,
                      "N = %lld, C = %lld, HxW = %lld: the NPU build does not run empty inputs yet",
                      static_cast<long long>(n), static_cast<long long>(c), static_cast<long long>(hw));
  }
  const struct {
    const char* name;
    const aclTensor* t;
  } tensors[] = {{"gradOut", gradOut}, {"input", input}};
  for (const auto& k : tensors) {
    const std::vector<int64_t> d = Dims(k.t);
    if (d.size() < 2 || d[0] != n || d[1] != c) {
      NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi,
                        "%s %s: the NPU build needs the shape [N, C, ...] = [%lld, %lld, ...] (HxW the product "
                        "of the rest)",
                        k.name, DimsOf(k.t).c_str(), static_cast<long long>(n), static_cast<long long>(c));
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckOutputShapes(const aclTensor* input, const aclTensor* gamma, int64_t c, const bool need[3],
                              const aclTensor* const outs[3]) {
  if (need[0] && Dims(outs[0]) != Dims(input)) {
    NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "gradInput has shape %s, expected input's shape %s",
                      DimsOf(outs[0]).c_str(), DimsOf(input).c_str());
  }
  const std::vector<int64_t> param = gamma != nullptr ? Dims(gamma) : std::vector<int64_t>{c};
  const char* names[3] = {"gradInput", "gradGammaOut", "gradBetaOut"};
  for (int i = 1; i < 3; ++i) {
    if (need[i] && Dims(outs[i]) != param) {
      NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has shape %s, expected %s %s", names[i],
                        DimsOf(outs[i]).c_str(), gamma != nullptr ? "gamma's shape" : "[C] (gamma is null)",
                        normgrad::ShapeString(param).c_str());
    }
  }
  return ACLNN_SUCCESS;
}

}  // namespace

extern "C" NORMGRAD_NPU_EXPORT aclnnStatus aclnnGroupNormBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean, const aclTensor* rstd,
    const aclTensor* gamma, int64_t N, int64_t C, int64_t HxW, int64_t group, const aclBoolArray* outputMask,
    aclTensor* gradInput, aclTensor* gradGammaOut, aclTensor* gradBetaOut, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  const struct {
    const void* p;
    const char* name;
  } required[] = {{gradOut, "gradOut"},       {input, "input"},
                  {mean, "mean"},             {rstd, "rstd"},
                  {outputMask, "outputMask"}, {workspaceSize, "workspaceSize"},
                  {executor, "executor"}};
  for (const auto& r : required) {
    if (r.p == nullptr) NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_NULLPTR, kApi, "%s is null", r.name);
  }
  bool need[3];
  if (!normgrad::npu::ReadMask(outputMask, need)) {
    NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_INVALID, kApi,
                      "outputMask has %llu elements, expected 3 (gradInput, gradGammaOut, gradBetaOut)",
                      static_cast<unsigned long long>(outputMask->Size()));
  }
  const aclTensor* const outs[3] = {gradInput, gradGammaOut, gradBetaOut};
  const char* outNames[3] = {"gradInput", "gradGammaOut", "gradBetaOut"};
  for (int i = 0; i < 3; ++i) {
    if (need[i] && outs[i] == nullptr) {
      NORMGRAD_NPU_FAIL(ACLNN_ERR_PARAM_NULLPTR, kApi, "%s is null but outputMask[%d] is true", outNames[i], i);
    }
  }
  if (aclnnStatus st = CheckCounts(gradOut, input, mean, rstd, gamma, N, C, HxW, group)) return st;
  if (aclnnStatus st = CheckOutputShapes(input, gamma, C, need, outs)) return st;
  if (aclnnStatus st = CheckNpuLayout(gradOut, input, N, C, HxW)) return st;

  // The generated operator declares all three outputs REQUIRED. An output the caller did not ask
  // for (and may pass as null) is replaced by gradOut: with its *_is_require attribute false the
  // kernel never writes it and the tiling does not read its shape.
  const aclTensor* dx = need[0] ? gradInput : gradOut;
  const aclTensor* dgamma = need[1] ? gradGammaOut : gradOut;
  const aclTensor* dbeta = need[2] ? gradBetaOut : gradOut;
  char dataFormat[] = "NCHW";
  return aclnnGroupNormGradGetWorkspaceSize(gradOut, mean, rstd, input, gamma, group, dataFormat, need[0], need[1],
                                            need[2], dx, dgamma, dbeta, workspaceSize, executor);
}

extern "C" NORMGRAD_NPU_EXPORT aclnnStatus aclnnGroupNormBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                              aclrtStream stream) {
  return aclnnGroupNormGrad(workspace, workspaceSize, executor, stream);
}
