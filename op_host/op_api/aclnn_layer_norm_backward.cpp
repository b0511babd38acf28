// aclnnLayerNormBackward, level-2 aclnn code as CANN's operators are written, one source for the NPU
// package and the simulator: the checks of docs/layer_norm_grad.md's error table (161001/161002
// naming the argument), then the executor plan: contiguous copies of strided inputs, gradOut and
// input as [M, D] (M rows of the D = prod(normalizedShape) normalized elements), one
// LayerNormGradV3 launch into the executor's tensors and copies into the caller's (possibly
// strided) outputs. No rows: only the requested gradWeightOut/gradBiasOut, zero. Nothing
// requested (all-false mask) or D = 0: an executor that runs nothing.
#include "aclnnop/aclnn_layer_norm_backward.h"

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

constexpr const char* kApi = "aclnnLayerNormBackward";
using normgrad::ShapeString;
using normgrad::l2::ContiguousAs;
using normgrad::l2::Dims;
using normgrad::l2::DtypeName;

struct Call {
  const aclTensor* dy;
  const aclTensor* x;
  const aclIntArray* normalizedShape;
  const aclTensor* mean;
  const aclTensor* rstd;
  const aclTensor* weight;  // nullptr: ones
  const aclTensor* bias;    // only checked: the gradients do not depend on it
  const aclBoolArray* outputMask;
  aclTensor* outs[3];       // gradInputOut, gradWeightOut, gradBiasOut
  bool mask[3];
  std::vector<int64_t> normShape;
  int64_t rows, cols;       // M, D
};
constexpr const char* kOutNames[3] = {"gradInputOut", "gradWeightOut", "gradBiasOut"};

bool IsFloat(op::DataType d) { return d == ge::DT_FLOAT || d == ge::DT_FLOAT16 || d == ge::DT_BF16; }

aclnnStatus CheckNulls(Call& a) {
  const struct {
    const void* p;
    const char* name;
  } required[] = {{a.dy, "gradOut"}, {a.x, "input"}, {a.normalizedShape, "normalizedShape"}, {a.mean, "mean"},
                  {a.rstd, "rstd"},  {a.outputMask, "outputMask"}};
  for (const auto& r : required) {
    if (r.p == nullptr) NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_NULLPTR, kApi, "%s is a null pointer", r.name);
  }
  if (a.outputMask->Size() != 3) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "outputMask has %llu elements, expected 3",
                     static_cast<unsigned long long>(a.outputMask->Size()));
  }
  for (int i = 0; i < 3; ++i) {
    a.mask[i] = (*a.outputMask)[i];
    if (a.mask[i] && a.outs[i] == nullptr) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_NULLPTR, kApi, "%s is a null pointer but outputMask[%d] is true", kOutNames[i],
                       i);
    }
  }
  for (uint64_t i = 0; i < a.normalizedShape->Size(); ++i) a.normShape.push_back((*a.normalizedShape)[i]);
  for (size_t i = 0; i < a.normShape.size(); ++i) {
    if (a.normShape[i] < 0) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "normalizedShape %s has a negative dim %zu",
                       ShapeString(a.normShape).c_str(), i);
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckFloat(const char* name, const aclTensor* t, op::SocVersion soc) {
  const op::DataType d = t->GetDataType();
  const bool hasBf16 = normgrad::l2::HasBf16(soc);
  if (!IsFloat(d) || (d == ge::DT_BF16 && !hasBf16)) {
    if (!hasBf16) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has dtype %s, expected FLOAT or FLOAT16 (SoC %s has no BFLOAT16)",
                       name, DtypeName(d), op::GetCurrentPlatformInfo().GetSocLongVersion().c_str());
    }
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has dtype %s, expected FLOAT, FLOAT16 or BFLOAT16", name,
                     DtypeName(d));
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckDtypes(const Call& a) {
  const op::SocVersion soc = op::GetCurrentPlatformInfo().GetSocVersion();
  const struct {
    const char* name;
    const aclTensor* t;
  } floats[] = {{"gradOut", a.dy}, {"input", a.x}, {"mean", a.mean}, {"rstd", a.rstd}};
  for (const auto& f : floats) {
    if (aclnnStatus st = CheckFloat(f.name, f.t, soc)) return st;
  }
  const op::DataType x = a.x->GetDataType(), mean = a.mean->GetDataType();
  const char* in = DtypeName(x);
  if (a.dy->GetDataType() != x) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "gradOut has dtype %s, expected the dtype of input (%s)",
                     DtypeName(a.dy->GetDataType()), in);
  }
  if (a.rstd->GetDataType() != mean) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "rstd has dtype %s, expected the dtype of mean (%s)",
                     DtypeName(a.rstd->GetDataType()), DtypeName(mean));
  }
  if (normgrad::l2::DtypeBytes(mean) < normgrad::l2::DtypeBytes(x)) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "mean and rstd have dtype %s, narrower than input's %s",
                     DtypeName(mean), in);
  }
  const struct {
    const char* name;
    const aclTensor* t;
  } params[] = {{"weightOptional", a.weight}, {"biasOptional", a.bias}};
  for (const auto& p : params) {
    if (p.t != nullptr && p.t->GetDataType() != x && p.t->GetDataType() != ge::DT_FLOAT) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has dtype %s, expected FLOAT or the dtype of input (%s)",
                       p.name, DtypeName(p.t->GetDataType()), in);
    }
  }
  if (a.weight != nullptr && a.bias != nullptr && a.bias->GetDataType() != a.weight->GetDataType()) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "biasOptional has dtype %s, expected the dtype of weightOptional (%s)",
                     DtypeName(a.bias->GetDataType()), DtypeName(a.weight->GetDataType()));
  }
  if (a.mask[0] && a.outs[0]->GetDataType() != x) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "gradInputOut has dtype %s, expected the dtype of input (%s)",
                     DtypeName(a.outs[0]->GetDataType()), in);
  }
  if (a.weight == nullptr && a.mask[1] && a.mask[2] && a.outs[1]->GetDataType() != a.outs[2]->GetDataType()) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "gradBiasOut has dtype %s, expected the dtype of gradWeightOut (%s)",
                     DtypeName(a.outs[2]->GetDataType()), DtypeName(a.outs[1]->GetDataType()));
  }
  for (int i = 1; i < 3; ++i) {
    if (!a.mask[i]) continue;
    const op::DataType d = a.outs[i]->GetDataType();
    const bool ok = a.weight != nullptr ? d == a.weight->GetDataType() : (d == x || d == ge::DT_FLOAT);
    if (!ok) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has dtype %s, expected %s", kOutNames[i], DtypeName(d),
                       a.weight != nullptr ? DtypeName(a.weight->GetDataType()) : "FLOAT or the dtype of input");
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckRank(Call& a, const std::vector<int64_t>& xs) {
  const size_t nd = a.normShape.size();
  if (nd < 1) NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "normalizedShape has 0 dimensions, expected at least 1");
  if (xs.size() < nd) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "input has %zu dimensions %s, fewer than normalizedShape's %zu",
                     xs.size(), ShapeString(xs).c_str(), nd);
  }
  if (xs.size() > normgrad::l2::kMaxDims) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "input has %zu dimensions, at most 8 are supported", xs.size());
  }
  const size_t lead = xs.size() - nd;
  for (size_t i = 0; i < nd; ++i) {  // right-aligned: every normalized dim must match
    if (xs[lead + i] != a.normShape[i]) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi,
                       "input shape %s does not end with normalizedShape %s: dim %zu is %lld, expected %lld",
                       ShapeString(xs).c_str(), ShapeString(a.normShape).c_str(), lead + i,
                       static_cast<long long>(xs[lead + i]), static_cast<long long>(a.normShape[i]));
    }
  }
  if (Dims(a.dy) != xs) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "gradOut has shape %s, expected the shape of input %s",
                     normgrad::l2::DimsOf(a.dy).c_str(), ShapeString(xs).c_str());
  }
  a.rows = 1;
  a.cols = 1;
  for (size_t i = 0; i < xs.size(); ++i) (i < lead ? a.rows : a.cols) *= xs[i];
  return ACLNN_SUCCESS;
}

aclnnStatus CheckShapes(Call& a) {
  const std::vector<int64_t> xs = Dims(a.x);
  if (aclnnStatus st = CheckRank(a, xs)) return st;
  const size_t lead = xs.size() - a.normShape.size();
  const std::vector<normgrad::l2::NamedArg> all = {{"gradOut", a.dy},
                                                   {"input", a.x},
                                                   {"mean", a.mean},
                                                   {"rstd", a.rstd},
                                                   {"weightOptional", a.weight},
                                                   {"biasOptional", a.bias},
                                                   {"gradInputOut", a.mask[0] ? a.outs[0] : nullptr},
                                                   {"gradWeightOut", a.mask[1] ? a.outs[1] : nullptr},
                                                   {"gradBiasOut", a.mask[2] ? a.outs[2] : nullptr}};
  for (const auto& t : all) {
    if (t.t != nullptr) {
      if (aclnnStatus st = normgrad::l2::CheckSpan(kApi, t.name, t.t)) return st;
    }
  }
  for (int i = 0; i < 3; ++i) {
    if (!a.mask[i]) continue;
    if (aclnnStatus st = normgrad::l2::CheckOutputView(kApi, kOutNames[i], a.outs[i])) return st;
  }
  const struct {
    const char* name;
    const aclTensor* t;
  } stats[] = {{"mean", a.mean}, {"rstd", a.rstd}};
  for (const auto& s : stats) {
    const int64_t numel = normgrad::l2::Numel(s.t);
    if (numel != a.rows) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi,
                       "%s has shape %s (%lld elements), expected %lld = product of input dims 0..%zu", s.name,
                       normgrad::l2::DimsOf(s.t).c_str(), static_cast<long long>(numel),
                       static_cast<long long>(a.rows), lead);
    }
  }
  const struct {
    const char* name;
    const aclTensor* t;
  } params[] = {{"weightOptional", a.weight}, {"biasOptional", a.bias}};
  for (const auto& p : params) {
    if (p.t != nullptr && Dims(p.t) != a.normShape) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has shape %s, expected normalizedShape %s", p.name,
                       normgrad::l2::DimsOf(p.t).c_str(), ShapeString(a.normShape).c_str());
    }
  }
  if (a.mask[0] && Dims(a.outs[0]) != xs) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "gradInputOut has shape %s, expected the shape of input %s",
                     normgrad::l2::DimsOf(a.outs[0]).c_str(), ShapeString(xs).c_str());
  }
  for (int i = 1; i < 3; ++i) {
    if (a.mask[i] && normgrad::l2::Numel(a.outs[i]) != a.cols) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has shape %s, expected normalizedShape %s", kOutNames[i],
                       normgrad::l2::DimsOf(a.outs[i]).c_str(), ShapeString(a.normShape).c_str());
    }
  }
  return normgrad::l2::CheckDisjoint(kApi, all, 6);
}

// No rows: gradWeightOut and gradBiasOut are sums over nothing, zero.
aclnnStatus PlanNoRows(const Call& a, aclOpExecutor* executor) {
  for (int i = 1; i < 3; ++i) {
    if (!a.mask[i]) continue;
    if (aclnnStatus st = normgrad::l2::ZeroInto(a.outs[i], executor)) return st;
  }
  return ACLNN_SUCCESS;
}

aclnnStatus PlanLaunch(const Call& a, aclOpExecutor* executor) {
  const op::Shape data = {a.rows, a.cols};
  const op::Shape stats = {a.rows};
  const op::Shape params = {a.cols};
  const aclTensor* dy = ContiguousAs(a.dy, data, executor);
  const aclTensor* x = ContiguousAs(a.x, data, executor);
  const aclTensor* rstd = ContiguousAs(a.rstd, stats, executor);
  const aclTensor* mean = ContiguousAs(a.mean, stats, executor);
  const aclTensor* gamma = a.weight != nullptr ? ContiguousAs(a.weight, params, executor) : nullptr;
  if (dy == nullptr || x == nullptr || rstd == nullptr || mean == nullptr || (a.weight != nullptr && gamma == nullptr)) {
    return ACLNN_ERR_INNER_NULLPTR;
  }
  // The gradients of gamma and beta in the parameters' dtype: weight's, else the requested outputs'.
  const op::DataType paramType = a.weight != nullptr ? a.weight->GetDataType()
                                 : a.mask[1]         ? a.outs[1]->GetDataType()
                                 : a.mask[2]         ? a.outs[2]->GetDataType()
                                                     : a.x->GetDataType();
  aclTensor* results[3] = {executor->AllocTensor(data, a.x->GetDataType()), executor->AllocTensor(params, paramType),
                           executor->AllocTensor(params, paramType)};
  for (aclTensor* r : results) {
    if (r == nullptr) return ACLNN_ERR_INNER_NULLPTR;
  }
  if (aclnnStatus st = l0op::LayerNormGradV3(dy, x, rstd, mean, gamma, a.outputMask, results[0], results[1],
                                             results[2], executor)) {
    return st;
  }
  for (int i = 0; i < 3; ++i) {
    if (!a.mask[i]) continue;
    if (aclnnStatus st = normgrad::l2::CopyInto(results[i], a.outs[i], executor)) return st;
  }
  return ACLNN_SUCCESS;
}

aclnnStatus GetWorkspaceSize(Call a, uint64_t* workspaceSize, aclOpExecutor** executor) {
  if (aclnnStatus st = CheckNulls(a)) return st;
  if (aclnnStatus st = normgrad::l2::CheckSocServed(kApi, ops::kLayerNormGradV3Socs, "the operator page lists no other")) {
    return st;
  }
  if (aclnnStatus st = CheckDtypes(a)) return st;
  if (aclnnStatus st = CheckShapes(a)) return st;

  auto uniqueExecutor = CREATE_EXECUTOR();
  if (uniqueExecutor.get() == nullptr) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
  const bool any = a.mask[0] || a.mask[1] || a.mask[2];
  aclnnStatus st = ACLNN_SUCCESS;
  if (any && a.cols > 0) st = a.rows == 0 ? PlanNoRows(a, uniqueExecutor.get()) : PlanLaunch(a, uniqueExecutor.get());
  if (st != ACLNN_SUCCESS) return st;
  *workspaceSize = uniqueExecutor->GetWorkspaceSize();
  uniqueExecutor.ReleaseTo(executor);
  return ACLNN_SUCCESS;
}

}  // namespace

extern "C" NORMGRAD_L2_EXPORT aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclIntArray* normalizedShape, const aclTensor* mean,
    const aclTensor* rstd, const aclTensor* weightOptional, const aclTensor* biasOptional,
    const aclBoolArray* outputMask, aclTensor* gradInputOut, aclTensor* gradWeightOut, aclTensor* gradBiasOut,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  L2_DFX_PHASE_1(aclnnLayerNormBackward,
                 DFX_IN(gradOut, input, normalizedShape, mean, rstd, weightOptional, biasOptional, outputMask),
                 DFX_OUT(gradInputOut, gradWeightOut, gradBiasOut));
  return NORMGRAD_L2_BOUNDARY(kApi, {
    Call a{gradOut, input, normalizedShape, mean, rstd, weightOptional, biasOptional, outputMask,
           {gradInputOut, gradWeightOut, gradBiasOut}, {}, {}, 0, 0};
    return GetWorkspaceSize(a, workspaceSize, executor);
  });
}

extern "C" NORMGRAD_L2_EXPORT aclnnStatus aclnnLayerNormBackward(void* workspace, uint64_t workspaceSize,
                                                                 aclOpExecutor* executor, aclrtStream stream) {
  L2_DFX_PHASE_2(aclnnLayerNormBackward);
  return CommonOpExecutorRun(workspace, workspaceSize, executor, stream);
}
