// aclnnGroupNormBackward, level-2 aclnn code as CANN's operators are written, one source for the NPU
// package and the simulator: the checks of docs/group_norm_grad.md's error table (161001/161002
// with a message naming the argument), then the executor plan: contiguous copies of strided
// inputs, gradOut and input reshaped to [N, C, HxW] (any 0-8-dim shape with N*C*HxW elements),
// one GroupNormGrad launch into the executor's tensors, and copies into the caller's (possibly
// strided) outputs; empty inputs only zero the requested gradGammaOut/gradBetaOut.
#include "aclnnop/aclnn_group_norm_backward.h"

#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "level0/normgrad_level0.h"
#include "level2_support.h"
#include "served_socs.h"
#include "opdev/common_types.h"
#include "opdev/make_op_executor.h"
#include "opdev/op_dfx.h"
#include "opdev/op_executor.h"
#include "opdev/op_log.h"
#include "opdev/platform.h"

namespace {

constexpr const char* kApi = "aclnnGroupNormBackward";
using normgrad::l2::Dims;
using normgrad::l2::ContiguousAs;
using normgrad::l2::DimsOf;

struct Call {
  const aclTensor* gradOut;
  const aclTensor* input;
  const aclTensor* mean;
  const aclTensor* rstd;
  const aclTensor* gamma;  // nullptr: ones
  int64_t n, c, hw, group;
  aclTensor* outs[3];      // gradInput, gradGammaOut, gradBetaOut
  bool need[3];            // outputMask
};
constexpr const char* kOutNames[3] = {"gradInput", "gradGammaOut", "gradBetaOut"};

aclnnStatus CheckNulls(const Call& a, const aclBoolArray* outputMask, bool need[3]) {
  const struct {
    const void* p;
    const char* name;
  } required[] = {{a.gradOut, "gradOut"}, {a.input, "input"}, {a.mean, "mean"}, {a.rstd, "rstd"},
                  {outputMask, "outputMask"}};
  for (const auto& r : required) {
    if (r.p == nullptr) NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_NULLPTR, kApi, "%s is null", r.name);
  }
  if (outputMask->Size() != 3) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi,
                     "outputMask has %llu elements, expected 3 (gradInput, gradGammaOut, gradBetaOut)",
                     static_cast<unsigned long long>(outputMask->Size()));
  }
  for (int i = 0; i < 3; ++i) {
    need[i] = (*outputMask)[i];
    if (need[i] && a.outs[i] == nullptr) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_NULLPTR, kApi, "%s is null but outputMask[%d] is true", kOutNames[i], i);
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckDtypes(const Call& a) {
  const op::SocVersion soc = op::GetCurrentPlatformInfo().GetSocVersion();
  const op::DataType dt = a.gradOut->GetDataType();
  if (!normgrad::l2::FloatDtypeOnSoc(dt, soc)) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "gradOut has dtype %s, expected float32, float16%s on %s",
                     normgrad::l2::DtypeName(dt), normgrad::l2::HasBf16(soc) ? " or bfloat16" : "",
                     op::GetCurrentPlatformInfo().GetSocLongVersion().c_str());
  }
  const struct {
    const char* name;
    const aclTensor* t;
  } others[] = {{"input", a.input},
                {"mean", a.mean},
                {"rstd", a.rstd},
                {"gamma", a.gamma},
                {"gradInput", a.need[0] ? a.outs[0] : nullptr},
                {"gradGammaOut", a.need[1] ? a.outs[1] : nullptr},
                {"gradBetaOut", a.need[2] ? a.outs[2] : nullptr}};
  for (const auto& o : others) {
    if (o.t != nullptr && o.t->GetDataType() != dt) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has dtype %s, expected %s like gradOut", o.name,
                       normgrad::l2::DtypeName(o.t->GetDataType()), normgrad::l2::DtypeName(dt));
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckSizes(const Call& a) {
  const long long n = a.n, c = a.c, hw = a.hw, group = a.group;
  if (n < 0 || c < 0 || hw < 0) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "N = %lld, C = %lld, HxW = %lld: sizes must not be negative", n,
                     c, hw);
  }
  if (group <= 0) NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "group is %lld, expected > 0", group);
  if (c % group != 0) NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "C = %lld is not divisible by group = %lld", c, group);
  // The products are the element counts the tensors must have: one past int64 cannot be a count.
  int64_t nc = 0, nchw = 0, ng = 0;
  if (__builtin_mul_overflow(a.n, a.c, &nc) || __builtin_mul_overflow(nc, a.hw, &nchw)) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "N * C * HxW overflows int64 (N = %lld, C = %lld, HxW = %lld)", n,
                     c, hw);
  }
  if (__builtin_mul_overflow(a.n, a.group, &ng)) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "N * group overflows int64 (N = %lld, group = %lld)", n, group);
  }
  const struct {
    const char* name;
    const aclTensor* t;
    int64_t expected;
    const char* formula;
  } counts[] = {{"gradOut", a.gradOut, nchw, "N * C * HxW"},
                {"input", a.input, nchw, "N * C * HxW"},
                {"mean", a.mean, ng, "N * group"},
                {"rstd", a.rstd, ng, "N * group"},
                {"gamma", a.gamma, a.c, "C"}};
  for (const auto& k : counts) {
    if (k.t == nullptr) continue;  // gamma is optional
    const std::vector<int64_t> dims = Dims(k.t);
    if (dims.size() > normgrad::l2::kMaxDims) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has %zu dimensions, at most %zu are supported", k.name,
                       dims.size(), normgrad::l2::kMaxDims);
    }
    if (aclnnStatus st = normgrad::l2::CheckSpan(kApi, k.name, k.t)) return st;
    int64_t numel = 0;
    if (!normgrad::l2::Numel(dims, &numel) || numel != k.expected) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s %s has %lld elements, expected %s = %lld", k.name,
                       DimsOf(k.t).c_str(), static_cast<long long>(numel), k.formula,
                       static_cast<long long>(k.expected));
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckOutputs(const Call& a) {
  for (int i = 0; i < 3; ++i) {
    if (!a.need[i]) continue;
    if (aclnnStatus st = normgrad::l2::CheckOutputView(kApi, kOutNames[i], a.outs[i])) return st;
  }
  if (a.need[0] && Dims(a.outs[0]) != Dims(a.input)) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "gradInput has shape %s, expected input's shape %s",
                     DimsOf(a.outs[0]).c_str(), DimsOf(a.input).c_str());
  }
  const std::vector<int64_t> param = a.gamma != nullptr ? Dims(a.gamma) : std::vector<int64_t>{a.c};
  for (int i = 1; i < 3; ++i) {
    if (a.need[i] && Dims(a.outs[i]) != param) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has shape %s, expected %s %s", kOutNames[i],
                       DimsOf(a.outs[i]).c_str(), a.gamma != nullptr ? "gamma's shape" : "[C] (gamma is null)",
                       normgrad::ShapeString(param).c_str());
    }
  }
  return normgrad::l2::CheckDisjoint(kApi,
                                  {{"gradOut", a.gradOut},
                                   {"input", a.input},
                                   {"mean", a.mean},
                                   {"rstd", a.rstd},
                                   {"gamma", a.gamma},
                                   {"gradInput", a.need[0] ? a.outs[0] : nullptr},
                                   {"gradGammaOut", a.need[1] ? a.outs[1] : nullptr},
                                   {"gradBetaOut", a.need[2] ? a.outs[2] : nullptr}},
                                  5);
}

// N, C or HxW = 0: nothing to read; gradGammaOut and gradBetaOut are sums over nothing: zero.
aclnnStatus PlanEmpty(const Call& a, aclOpExecutor* executor) {
  for (int i = 1; i < 3; ++i) {
    if (!a.need[i]) continue;
    if (aclnnStatus st = normgrad::l2::ZeroInto(a.outs[i], executor)) return st;
  }
  return ACLNN_SUCCESS;
}

aclnnStatus PlanLaunch(const Call& a, aclOpExecutor* executor) {
  const op::Shape data = {a.n, a.c, a.hw};
  const op::Shape stats = {a.n, a.group};
  const op::Shape params = {a.c};
  const aclTensor* dy = ContiguousAs(a.gradOut, data, executor);
  const aclTensor* x = ContiguousAs(a.input, data, executor);
  const aclTensor* mean = ContiguousAs(a.mean, stats, executor);
  const aclTensor* rstd = ContiguousAs(a.rstd, stats, executor);
  const aclTensor* gamma = a.gamma != nullptr ? ContiguousAs(a.gamma, params, executor) : nullptr;
  if (dy == nullptr || x == nullptr || mean == nullptr || rstd == nullptr || (a.gamma != nullptr && gamma == nullptr)) {
    return ACLNN_ERR_INNER_NULLPTR;
  }
  const op::DataType dt = a.gradOut->GetDataType();
  aclTensor* results[3] = {executor->AllocTensor(data, dt), executor->AllocTensor(params, dt),
                           executor->AllocTensor(params, dt)};
  for (aclTensor* r : results) {
    if (r == nullptr) return ACLNN_ERR_INNER_NULLPTR;
  }
  if (aclnnStatus st = l0op::GroupNormGrad(dy, mean, rstd, x, gamma, a.group, "NCHW", a.need[0], a.need[1], a.need[2],
                                           results[0], results[1], results[2], executor)) {
    return st;
  }
  for (int i = 0; i < 3; ++i) {
    if (!a.need[i]) continue;
    if (aclnnStatus st = normgrad::l2::CopyInto(results[i], a.outs[i], executor)) return st;
  }
  return ACLNN_SUCCESS;
}

aclnnStatus GetWorkspaceSize(Call a, const aclBoolArray* outputMask, uint64_t* workspaceSize,
                             aclOpExecutor** executor) {
  if (aclnnStatus st = CheckNulls(a, outputMask, a.need)) return st;
  if (aclnnStatus st = normgrad::l2::CheckSocServed(kApi, ops::kGroupNormGradSocs, "the operator page lists no other")) {
    return st;
  }
  if (aclnnStatus st = CheckDtypes(a)) return st;
  if (aclnnStatus st = CheckSizes(a)) return st;
  if (aclnnStatus st = CheckOutputs(a)) return st;

  auto uniqueExecutor = CREATE_EXECUTOR();
  if (uniqueExecutor.get() == nullptr) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
  const bool empty = a.n == 0 || a.c == 0 || a.hw == 0;
  const bool any = a.need[0] || a.need[1] || a.need[2];
  aclnnStatus st = ACLNN_SUCCESS;
  if (empty) {
    st = PlanEmpty(a, uniqueExecutor.get());
  } else if (any) {
    st = PlanLaunch(a, uniqueExecutor.get());
  }
  if (st != ACLNN_SUCCESS) return st;
  *workspaceSize = uniqueExecutor->GetWorkspaceSize();
  uniqueExecutor.ReleaseTo(executor);
  return ACLNN_SUCCESS;
}

}  // namespace

extern "C" NORMGRAD_L2_EXPORT aclnnStatus aclnnGroupNormBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean, const aclTensor* rstd,
    const aclTensor* gamma, int64_t N, int64_t C, int64_t HxW, int64_t group, const aclBoolArray* outputMask,
    aclTensor* gradInput, aclTensor* gradGammaOut, aclTensor* gradBetaOut, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  L2_DFX_PHASE_1(aclnnGroupNormBackward, DFX_IN(gradOut, input, mean, rstd, gamma, N, C, HxW, group, outputMask),
                 DFX_OUT(gradInput, gradGammaOut, gradBetaOut));
  return NORMGRAD_L2_BOUNDARY(kApi, {
    Call a{gradOut, input, mean, rstd, gamma, N, C, HxW, group, {gradInput, gradGammaOut, gradBetaOut}, {}};
    return GetWorkspaceSize(a, outputMask, workspaceSize, executor);
  });
}

extern "C" NORMGRAD_L2_EXPORT aclnnStatus aclnnGroupNormBackward(void* workspace, uint64_t workspaceSize,
                                                                 aclOpExecutor* executor, aclrtStream stream) {
  L2_DFX_PHASE_2(aclnnGroupNormBackward);
  return CommonOpExecutorRun(workspace, workspaceSize, executor, stream);
}
