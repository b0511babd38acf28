// aclnnGroupNormBackward: validates every argument (the error table of docs/group_norm_grad.md), tiles for the current
// SoC and builds one group_norm_grad launch; non-contiguous tensors go through the executor's
// gather/scatter, empty inputs only zero dgamma/dbeta.
#include "aclnnop/aclnn_group_norm_backward.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "aclnn_common.h"
#include "ascendc/soc.h"
#include "group_norm_grad_tiling.h"
#include "simhost/c_boundary.h"

extern "C" void group_norm_grad(uint8_t* dy, uint8_t* mean, uint8_t* rstd, uint8_t* x, uint8_t* gamma, uint8_t* dx,
                                uint8_t* dgamma, uint8_t* dbeta, uint8_t* workspace, uint8_t* tiling);

namespace {

constexpr const char* kApi = "aclnnGroupNormBackward";
constexpr size_t kMaxDims = 8;

using normgrad::GroupNormGradTiling;
using normgrad::KernelDtype;
using normgrad::kDtypeBfloat16;
using normgrad::kDtypeFloat16;
using normgrad::kDtypeFloat32;
using normgrad::Error;
using normgrad::kStatusInvalid;
using normgrad::kStatusNullptr;
using normgrad::ShapeString;
using normgrad::TensorDesc;

bool ToKernelDtype(aclDataType dtype, bool hasBf16, KernelDtype* out) {
  switch (dtype) {
    case ACL_FLOAT: *out = kDtypeFloat32; return true;
    case ACL_FLOAT16: *out = kDtypeFloat16; return true;
    case ACL_BF16: *out = kDtypeBfloat16; return hasBf16;
    default: return false;
  }
}

struct Args {
  TensorDesc dy, x, mean, rstd, gamma, dx, dgamma, dbeta;
  bool hasGamma = false;
  bool need[3] = {false, false, false};
};

aclnnStatus CheckNulls(const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean, const aclTensor* rstd,
                       const aclBoolArray* outputMask, const aclTensor* outs[3], uint64_t* workspaceSize,
                       aclOpExecutor** executor, Args* a) {
  const char* names[] = {"gradOut", "input", "mean", "rstd"};
  const aclTensor* ins[] = {gradOut, input, mean, rstd};
  for (int i = 0; i < 4; ++i) {
    if (ins[i] == nullptr) return Error(kStatusNullptr, kApi, "%s is null", names[i]);
  }
  if (outputMask == nullptr) return Error(kStatusNullptr, kApi, "outputMask is null");
  if (workspaceSize == nullptr) return Error(kStatusNullptr, kApi, "workspaceSize is null");
  if (executor == nullptr) return Error(kStatusNullptr, kApi, "executor is null");
  std::vector<bool> mask;
  if (aclnnStatus st = normgrad::BoolArrayValues(kApi, "outputMask", outputMask, &mask)) return st;
  if (mask.size() != 3) {
    return Error(kStatusInvalid, kApi, "outputMask has %zu elements, expected 3 (gradInput, gradGammaOut, gradBetaOut)",
                 mask.size());
  }
  const char* outNames[] = {"gradInput", "gradGammaOut", "gradBetaOut"};
  for (int i = 0; i < 3; ++i) {
    a->need[i] = mask[i];
    if (mask[i] && outs[i] == nullptr) {
      return Error(kStatusNullptr, kApi, "%s is null but outputMask[%d] is true", outNames[i], i);
    }
  }
  return ACL_SUCCESS;
}

aclnnStatus CheckDtypes(const Args& a, bool hasBf16, const char* socName, KernelDtype* kernelDtype) {
  if (!ToKernelDtype(a.dy.dtype, hasBf16, kernelDtype)) {
    return Error(kStatusInvalid, kApi, "gradOut has dtype %s, expected float32, float16%s on %s",
                 normgrad::DtypeName(a.dy.dtype), hasBf16 ? " or bfloat16" : "", socName);
  }
  struct Named {
    const char* name;
    const TensorDesc* t;
    bool present;
  } others[] = {{"input", &a.x, true},          {"mean", &a.mean, true},
                {"rstd", &a.rstd, true},        {"gamma", &a.gamma, a.hasGamma},
                {"gradInput", &a.dx, a.need[0]}, {"gradGammaOut", &a.dgamma, a.need[1]},
                {"gradBetaOut", &a.dbeta, a.need[2]}};
  for (const Named& o : others) {
    if (o.present && o.t->dtype != a.dy.dtype) {
      return Error(kStatusInvalid, kApi, "%s has dtype %s, expected %s like gradOut", o.name,
                   normgrad::DtypeName(o.t->dtype), normgrad::DtypeName(a.dy.dtype));
    }
  }
  return ACL_SUCCESS;
}

aclnnStatus CheckShapes(const Args& a, int64_t n, int64_t c, int64_t hw, int64_t group) {
  if (n < 0 || c < 0 || hw < 0) {
    return Error(kStatusInvalid, kApi, "N = %lld, C = %lld, HxW = %lld: sizes must not be negative",
                 static_cast<long long>(n), static_cast<long long>(c), static_cast<long long>(hw));
  }
  if (group <= 0) return Error(kStatusInvalid, kApi, "group is %lld, expected > 0", static_cast<long long>(group));
  if (c % group != 0) {
    return Error(kStatusInvalid, kApi, "C = %lld is not divisible by group = %lld", static_cast<long long>(c),
                 static_cast<long long>(group));
  }
  // The products are the element counts the tensors must have: one past int64 cannot be a count.
  int64_t nc = 0, nchw = 0, ng = 0;
  if (__builtin_mul_overflow(n, c, &nc) || __builtin_mul_overflow(nc, hw, &nchw)) {
    return Error(kStatusInvalid, kApi, "N * C * HxW overflows int64 (N = %lld, C = %lld, HxW = %lld)",
                 static_cast<long long>(n), static_cast<long long>(c), static_cast<long long>(hw));
  }
  if (__builtin_mul_overflow(n, group, &ng)) {
    return Error(kStatusInvalid, kApi, "N * group overflows int64 (N = %lld, group = %lld)", static_cast<long long>(n),
                 static_cast<long long>(group));
  }
  struct Count {
    const char* name;
    const TensorDesc* t;
    bool present;
    int64_t expected;
    const char* formula;
  } counts[] = {{"gradOut", &a.dy, true, nchw, "N * C * HxW"},
                {"input", &a.x, true, nchw, "N * C * HxW"},
                {"mean", &a.mean, true, ng, "N * group"},
                {"rstd", &a.rstd, true, ng, "N * group"},
                {"gamma", &a.gamma, a.hasGamma, c, "C"}};
  for (const Count& k : counts) {
    if (!k.present) continue;
    if (k.t->shape.size() > kMaxDims) {
      return Error(kStatusInvalid, kApi, "%s has %zu dimensions, at most %zu are supported", k.name, k.t->shape.size(),
                   kMaxDims);
    }
    if (aclnnStatus st = normgrad::CheckTensorBytes(kApi, k.name, *k.t)) return st;
    if (k.t->numel != k.expected) {
      return Error(kStatusInvalid, kApi, "%s %s has %lld elements, expected %s = %lld", k.name,
                   ShapeString(k.t->shape).c_str(), static_cast<long long>(k.t->numel), k.formula,
                   static_cast<long long>(k.expected));
    }
  }
  const struct {
    const char* name;
    const TensorDesc* t;
    bool present;
  } outs[] = {{"gradInput", &a.dx, a.need[0]}, {"gradGammaOut", &a.dgamma, a.need[1]},
              {"gradBetaOut", &a.dbeta, a.need[2]}};
  for (const auto& o : outs) {
    if (!o.present) continue;
    if (aclnnStatus st = normgrad::CheckTensorBytes(kApi, o.name, *o.t)) return st;
    if (aclnnStatus st = normgrad::CheckOutputLayout(kApi, o.name, *o.t)) return st;
  }
  if (a.need[0] && a.dx.shape != a.x.shape) {
    return Error(kStatusInvalid, kApi, "gradInput has shape %s, expected input's shape %s",
                 ShapeString(a.dx.shape).c_str(), ShapeString(a.x.shape).c_str());
  }
  std::vector<int64_t> paramShape = a.hasGamma ? a.gamma.shape : std::vector<int64_t>{c};
  const char* paramWhat = a.hasGamma ? "gamma's shape" : "[C] (gamma is null)";
  if (a.need[1] && a.dgamma.shape != paramShape) {
    return Error(kStatusInvalid, kApi, "gradGammaOut has shape %s, expected %s %s", ShapeString(a.dgamma.shape).c_str(),
                 paramWhat, ShapeString(paramShape).c_str());
  }
  if (a.need[2] && a.dbeta.shape != paramShape) {
    return Error(kStatusInvalid, kApi, "gradBetaOut has shape %s, expected %s %s", ShapeString(a.dbeta.shape).c_str(),
                 paramWhat, ShapeString(paramShape).c_str());
  }
  const std::vector<normgrad::NamedTensor> all = {
      {"gradOut", &a.dy},    {"input", &a.x},
      {"mean", &a.mean},     {"rstd", &a.rstd},
      {"gamma", a.hasGamma ? &a.gamma : nullptr},
      {"gradInput", a.need[0] ? &a.dx : nullptr},
      {"gradGammaOut", a.need[1] ? &a.dgamma : nullptr},
      {"gradBetaOut", a.need[2] ? &a.dbeta : nullptr}};
  return normgrad::CheckOutputsDisjoint(kApi, all, 5);
}

// N = 0 or HxW = 0: nothing to read; dgamma and dbeta are sums over nothing, so zero.
void BuildEmpty(aclOpExecutor* exec, const Args& a) {
  const TensorDesc* params[] = {&a.dgamma, &a.dbeta};
  for (int i = 0; i < 2; ++i) {
    if (!a.need[i + 1] || params[i]->numel == 0) continue;
    normgrad::DevPtr dst = exec->ContiguousOutput(*params[i]);
    exec->AddZeroFill(dst, static_cast<uint64_t>(params[i]->numel) * normgrad::DtypeBytes(params[i]->dtype));
  }
}

// Block-copy mode (no DataCopyPad) writes whole 32-byte blocks: an output shorter than one block
// goes through a workspace buffer of whole blocks and is copied out after the kernel.
normgrad::TensorDesc BlockSafe(const TensorDesc& t, const GroupNormGradTiling& tiling) {
  TensorDesc d = t;
  if (tiling.blockCopyOnly && static_cast<uint64_t>(t.numel) * normgrad::DtypeBytes(t.dtype) < 32) d.contiguous = false;
  return d;
}

void BuildLaunch(aclOpExecutor* exec, const Args& a, const GroupNormGradTiling& tiling,
                 const sim::host::TilingResult& plan) {
  normgrad::DevPtr none;
  std::vector<normgrad::DevPtr> args = {
      exec->ContiguousInput(a.dy),
      exec->ContiguousInput(a.mean),
      exec->ContiguousInput(a.rstd),
      exec->ContiguousInput(a.x),
      a.hasGamma ? exec->ContiguousInput(a.gamma) : none,
      a.need[0] ? exec->ContiguousOutput(BlockSafe(a.dx, tiling)) : none,
      a.need[1] ? exec->ContiguousOutput(BlockSafe(a.dgamma, tiling)) : none,
      a.need[2] ? exec->ContiguousOutput(BlockSafe(a.dbeta, tiling)) : none,
  };
  exec->AddKernel("group_norm_grad", plan.blockDim, plan.tilingData.data(), plan.tilingData.size(), args,
                  plan.workspaces.empty() ? 0 : plan.workspaces[0], [](uint8_t* const* p, uint8_t* ws, uint8_t* t) {
                    group_norm_grad(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], ws, t);
                  });
}

// Tiles through GroupNormGrad's registered tiling function: dy and x as [N, C, HxW].
std::string Plan(const Args& a, int64_t n, int64_t c, int64_t hw, int64_t group, sim::host::TilingResult* plan,
                 GroupNormGradTiling* tiling) {
  using normgrad::TensorArgOf;
  const aclDataType dt = a.dy.dtype;
  const std::vector<int64_t> data = {n, c, hw};
  const std::vector<int64_t> stats = {n, group};
  const std::vector<int64_t> params = {c};
  std::vector<sim::host::TensorArg> inputs = {TensorArgOf(data, dt), TensorArgOf(stats, dt), TensorArgOf(stats, dt),
                                              TensorArgOf(data, dt),
                                              a.hasGamma ? TensorArgOf(params, dt) : sim::host::AbsentTensor()};
  std::vector<sim::host::TensorArg> outputs = {TensorArgOf(data, dt), TensorArgOf(params, dt), TensorArgOf(params, dt)};
  sim::host::NamedAttrs attrs = {{"num_groups", group},
                                 {"dx_is_require", a.need[0]},
                                 {"dgamma_is_require", a.need[1]},
                                 {"dbeta_is_require", a.need[2]}};
  std::string why = normgrad::RegisteredTiling("GroupNormGrad", inputs, outputs, attrs, plan);
  if (why.empty() && plan->tilingData.size() != sizeof(*tiling)) why = "the tiling data is not one GroupNormGradTiling";
  if (why.empty()) std::memcpy(tiling, plan->tilingData.data(), sizeof(*tiling));
  return why;
}

aclnnStatus GetWorkspaceSize(const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean,
                             const aclTensor* rstd, const aclTensor* gamma, int64_t N, int64_t C, int64_t HxW,
                             int64_t group, const aclBoolArray* outputMask, aclTensor* gradInput,
                             aclTensor* gradGammaOut, aclTensor* gradBetaOut, uint64_t* workspaceSize,
                             aclOpExecutor** executor) {
  Args a;
  const aclTensor* outs[3] = {gradInput, gradGammaOut, gradBetaOut};
  if (aclnnStatus st = CheckNulls(gradOut, input, mean, rstd, outputMask, outs, workspaceSize, executor, &a)) return st;
  a.hasGamma = gamma != nullptr;
  if (aclnnStatus st = normgrad::DescribeAll(kApi, {{"gradOut", gradOut, &a.dy},
                                                    {"input", input, &a.x},
                                                    {"mean", mean, &a.mean},
                                                    {"rstd", rstd, &a.rstd},
                                                    {"gamma", gamma, &a.gamma},
                                                    {"gradInput", a.need[0] ? gradInput : nullptr, &a.dx},
                                                    {"gradGammaOut", a.need[1] ? gradGammaOut : nullptr, &a.dgamma},
                                                    {"gradBetaOut", a.need[2] ? gradBetaOut : nullptr, &a.dbeta}})) {
    return st;
  }

  // The SoC families the OpDef lists are the ones served: the operator page names no Atlas
  // inference series (ascend310p).
  const normgrad::CallSoc soc = normgrad::CurrentCallSoc();
  if (aclnnStatus st = normgrad::CheckSocServed(kApi, "GroupNormGrad", soc, "the operator page lists no other")) {
    return st;
  }
  KernelDtype dtype = kDtypeFloat32;
  if (aclnnStatus st = CheckDtypes(a, soc.features.hasBf16, soc.name, &dtype)) return st;
  if (aclnnStatus st = CheckShapes(a, N, C, HxW, group)) return st;

  auto exec = std::make_unique<aclOpExecutor>();
  exec->api = kApi;
  if (N == 0 || C == 0 || HxW == 0) {
    BuildEmpty(exec.get(), a);
  } else {
    sim::host::TilingResult plan;
    GroupNormGradTiling tiling{};
    std::string why = Plan(a, N, C, HxW, group, &plan, &tiling);
    if (!why.empty()) {
      return Error(kStatusInvalid, kApi, "no tiling for N = %lld, C = %lld, HxW = %lld, group = %lld on %s: %s",
                   static_cast<long long>(N), static_cast<long long>(C), static_cast<long long>(HxW),
                   static_cast<long long>(group), soc.name, why.c_str());
    }
    if (a.need[0] || a.need[1] || a.need[2]) BuildLaunch(exec.get(), a, tiling, plan);
  }
  *workspaceSize = exec->WorkspaceBytes();
  *executor = exec.release();
  return ACL_SUCCESS;
}

}  // namespace

extern "C" aclnnStatus aclnnGroupNormBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean, const aclTensor* rstd,
    const aclTensor* gamma, int64_t N, int64_t C, int64_t HxW, int64_t group, const aclBoolArray* outputMask,
    aclTensor* gradInput, aclTensor* gradGammaOut, aclTensor* gradBetaOut, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return sim::host::CBoundary("aclnnGroupNormBackwardGetWorkspaceSize", normgrad::kStatusInner, [&] {
    return GetWorkspaceSize(gradOut, input, mean, rstd, gamma, N, C, HxW, group, outputMask, gradInput, gradGammaOut,
                            gradBetaOut, workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnGroupNormBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                              aclrtStream stream) {
  return normgrad::RunExecutor(kApi, workspace, workspaceSize, executor, stream);
}
