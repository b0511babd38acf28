// aclnnLayerNormBackward: validates every row of the API's error table, then builds one launch of
// the layer_norm_grad_v3 kernel (strided tensors gathered/scattered by the executor).
#include "aclnnop/aclnn_layer_norm_backward.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "aclnn_common.h"
#include "ascendc/soc.h"
#include "layer_norm_grad_tiling.h"
#include "simhost/c_boundary.h"

extern "C" void layer_norm_grad_v3(uint8_t* dy, uint8_t* x, uint8_t* rstd, uint8_t* mean, uint8_t* gamma, uint8_t* dx,
                                uint8_t* dgamma, uint8_t* dbeta, uint8_t* workspace, uint8_t* tiling);

namespace {

constexpr const char* kApi = "aclnnLayerNormBackward";
using normgrad::LayerNormGradTiling;
using normgrad::Error;
using normgrad::kStatusInvalid;
using normgrad::kStatusNullptr;
using normgrad::ShapeString;
using normgrad::TensorDesc;

// The chip the call runs on, for argument checks and messages (the tiling reads it through the
// platform API, like every CANN tiling function).
bool IsFloatType(aclDataType d) { return d == ACL_FLOAT || d == ACL_FLOAT16 || d == ACL_BF16; }

int64_t Product(const std::vector<int64_t>& v, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= v[i];
  return p;
}

aclnnStatus CheckFloat(const char* arg, const TensorDesc& t, bool hasBf16, const char* soc) {
  if (!IsFloatType(t.dtype) || (t.dtype == ACL_BF16 && !hasBf16)) {
    if (!hasBf16) {
      return Error(kStatusInvalid, kApi, "%s has dtype %s, expected FLOAT or FLOAT16 (SoC %s has no BFLOAT16)", arg,
                   normgrad::DtypeName(t.dtype), soc);
    }
    return Error(kStatusInvalid, kApi, "%s has dtype %s, expected FLOAT, FLOAT16 or BFLOAT16", arg,
                 normgrad::DtypeName(t.dtype));
  }
  return ACL_SUCCESS;
}

struct Args {
  TensorDesc dy, x, mean, rstd, weight, bias, dx, dgamma, dbeta;
  bool hasWeight = false, hasBias = false;
  bool mask[3] = {false, false, false};
  std::vector<int64_t> normShape;
  int64_t rows = 0, cols = 0;
};

aclnnStatus CheckDtypes(const Args& a, bool hasBf16, const char* soc) {
  aclnnStatus st;
  if ((st = CheckFloat("gradOut", a.dy, hasBf16, soc)) != ACL_SUCCESS) return st;
  if ((st = CheckFloat("input", a.x, hasBf16, soc)) != ACL_SUCCESS) return st;
  if ((st = CheckFloat("mean", a.mean, hasBf16, soc)) != ACL_SUCCESS) return st;
  if ((st = CheckFloat("rstd", a.rstd, hasBf16, soc)) != ACL_SUCCESS) return st;
  const char* in = normgrad::DtypeName(a.x.dtype);
  if (a.dy.dtype != a.x.dtype) {
    return Error(kStatusInvalid, kApi, "gradOut has dtype %s, expected the dtype of input (%s)",
                 normgrad::DtypeName(a.dy.dtype), in);
  }
  if (a.mean.dtype != a.rstd.dtype) {
    return Error(kStatusInvalid, kApi, "rstd has dtype %s, expected the dtype of mean (%s)",
                 normgrad::DtypeName(a.rstd.dtype), normgrad::DtypeName(a.mean.dtype));
  }
  if (normgrad::DtypeBytes(a.mean.dtype) < normgrad::DtypeBytes(a.x.dtype)) {
    return Error(kStatusInvalid, kApi, "mean and rstd have dtype %s, narrower than input's %s",
                 normgrad::DtypeName(a.mean.dtype), in);
  }
  if (a.hasWeight && a.weight.dtype != a.x.dtype && a.weight.dtype != ACL_FLOAT) {
    return Error(kStatusInvalid, kApi, "weightOptional has dtype %s, expected FLOAT or the dtype of input (%s)",
                 normgrad::DtypeName(a.weight.dtype), in);
  }
  if (a.hasBias && a.bias.dtype != a.x.dtype && a.bias.dtype != ACL_FLOAT) {
    return Error(kStatusInvalid, kApi, "biasOptional has dtype %s, expected FLOAT or the dtype of input (%s)",
                 normgrad::DtypeName(a.bias.dtype), in);
  }
  if (a.hasWeight && a.hasBias && a.bias.dtype != a.weight.dtype) {
    return Error(kStatusInvalid, kApi, "biasOptional has dtype %s, expected the dtype of weightOptional (%s)",
                 normgrad::DtypeName(a.bias.dtype), normgrad::DtypeName(a.weight.dtype));
  }
  if (a.mask[0] && a.dx.dtype != a.x.dtype) {
    return Error(kStatusInvalid, kApi, "gradInputOut has dtype %s, expected the dtype of input (%s)",
                 normgrad::DtypeName(a.dx.dtype), in);
  }
  if (!a.hasWeight && a.mask[1] && a.mask[2] && a.dgamma.dtype != a.dbeta.dtype) {
    return Error(kStatusInvalid, kApi, "gradBiasOut has dtype %s, expected the dtype of gradWeightOut (%s)",
                 normgrad::DtypeName(a.dbeta.dtype), normgrad::DtypeName(a.dgamma.dtype));
  }
  const char* names[3] = {"", "gradWeightOut", "gradBiasOut"};
  const TensorDesc* outs[3] = {nullptr, &a.dgamma, &a.dbeta};
  for (int i = 1; i < 3; ++i) {
    if (!a.mask[i]) continue;
    aclDataType d = outs[i]->dtype;
    bool ok = a.hasWeight ? d == a.weight.dtype : (d == a.x.dtype || d == ACL_FLOAT);
    if (!ok) {
      return Error(kStatusInvalid, kApi, "%s has dtype %s, expected %s", names[i], normgrad::DtypeName(d),
                   a.hasWeight ? normgrad::DtypeName(a.weight.dtype) : "FLOAT or the dtype of input");
    }
  }
  return ACL_SUCCESS;
}

aclnnStatus CheckShapes(Args& a) {
  const std::vector<int64_t>& xs = a.x.shape;
  const size_t nd = a.normShape.size();
  if (nd < 1) return Error(kStatusInvalid, kApi, "normalizedShape has 0 dimensions, expected at least 1");
  if (xs.size() < nd) {
    return Error(kStatusInvalid, kApi, "input has %zu dimensions %s, fewer than normalizedShape's %zu",
                 xs.size(), ShapeString(xs).c_str(), nd);
  }
  if (xs.size() > 8) return Error(kStatusInvalid, kApi, "input has %zu dimensions, at most 8 are supported", xs.size());
  const size_t lead = xs.size() - nd;
  for (size_t i = 0; i < nd; ++i) {  // right-aligned: every normalized dim must match
    if (xs[lead + i] != a.normShape[i]) {
      return Error(kStatusInvalid, kApi,
                   "input shape %s does not end with normalizedShape %s: dim %zu is %lld, expected %lld",
                   ShapeString(xs).c_str(), ShapeString(a.normShape).c_str(), lead + i,
                   static_cast<long long>(xs[lead + i]), static_cast<long long>(a.normShape[i]));
    }
  }
  if (a.dy.shape != xs) {
    return Error(kStatusInvalid, kApi, "gradOut has shape %s, expected the shape of input %s",
                 ShapeString(a.dy.shape).c_str(), ShapeString(xs).c_str());
  }
  const struct { const TensorDesc* t; const char* name; bool present; } all[] = {
      {&a.dy, "gradOut", true}, {&a.x, "input", true}, {&a.mean, "mean", true}, {&a.rstd, "rstd", true},
      {&a.weight, "weightOptional", a.hasWeight}, {&a.bias, "biasOptional", a.hasBias},
      {&a.dx, "gradInputOut", a.mask[0]}, {&a.dgamma, "gradWeightOut", a.mask[1]},
      {&a.dbeta, "gradBiasOut", a.mask[2]}};
  for (const auto& t : all) {
    if (!t.present) continue;
    if (aclnnStatus st = normgrad::CheckTensorBytes(kApi, t.name, *t.t)) return st;
  }
  const struct { const TensorDesc* t; const char* name; bool present; } outs[] = {
      {&a.dx, "gradInputOut", a.mask[0]}, {&a.dgamma, "gradWeightOut", a.mask[1]},
      {&a.dbeta, "gradBiasOut", a.mask[2]}};
  for (const auto& o : outs) {
    if (!o.present) continue;
    if (aclnnStatus st = normgrad::CheckOutputLayout(kApi, o.name, *o.t)) return st;
  }
  a.rows = Product(xs, 0, lead);
  a.cols = Product(xs, lead, xs.size());
  if (a.mean.numel != a.rows) {
    return Error(kStatusInvalid, kApi, "mean has shape %s (%lld elements), expected %lld = product of input dims 0..%zu",
                 ShapeString(a.mean.shape).c_str(), static_cast<long long>(a.mean.numel),
                 static_cast<long long>(a.rows), lead);
  }
  if (a.rstd.numel != a.rows) {
    return Error(kStatusInvalid, kApi, "rstd has shape %s (%lld elements), expected %lld = product of input dims 0..%zu",
                 ShapeString(a.rstd.shape).c_str(), static_cast<long long>(a.rstd.numel),
                 static_cast<long long>(a.rows), lead);
  }
  if (a.hasWeight && a.weight.shape != a.normShape) {
    return Error(kStatusInvalid, kApi, "weightOptional has shape %s, expected normalizedShape %s",
                 ShapeString(a.weight.shape).c_str(), ShapeString(a.normShape).c_str());
  }
  if (a.hasBias && a.bias.shape != a.normShape) {
    return Error(kStatusInvalid, kApi, "biasOptional has shape %s, expected normalizedShape %s",
                 ShapeString(a.bias.shape).c_str(), ShapeString(a.normShape).c_str());
  }
  if (a.mask[0] && a.dx.shape != xs) {
    return Error(kStatusInvalid, kApi, "gradInputOut has shape %s, expected the shape of input %s",
                 ShapeString(a.dx.shape).c_str(), ShapeString(xs).c_str());
  }
  if (a.mask[1] && a.dgamma.numel != a.cols) {
    return Error(kStatusInvalid, kApi, "gradWeightOut has shape %s, expected normalizedShape %s",
                 ShapeString(a.dgamma.shape).c_str(), ShapeString(a.normShape).c_str());
  }
  if (a.mask[2] && a.dbeta.numel != a.cols) {
    return Error(kStatusInvalid, kApi, "gradBiasOut has shape %s, expected normalizedShape %s",
                 ShapeString(a.dbeta.shape).c_str(), ShapeString(a.normShape).c_str());
  }
  const std::vector<normgrad::NamedTensor> every = {
      {"gradOut", &a.dy},
      {"input", &a.x},
      {"mean", &a.mean},
      {"rstd", &a.rstd},
      {"weightOptional", a.hasWeight ? &a.weight : nullptr},
      {"biasOptional", a.hasBias ? &a.bias : nullptr},
      {"gradInputOut", a.mask[0] ? &a.dx : nullptr},
      {"gradWeightOut", a.mask[1] ? &a.dgamma : nullptr},
      {"gradBiasOut", a.mask[2] ? &a.dbeta : nullptr}};
  return normgrad::CheckOutputsDisjoint(kApi, every, 6);
}

// Block-copy mode (no DataCopyPad) writes whole 32-byte blocks: an output shorter than one block
// goes through a workspace buffer of whole blocks and is copied out after the kernel.
TensorDesc BlockSafe(const TensorDesc& d, const LayerNormGradTiling& t) {
  TensorDesc out = d;
  if (t.blockCopy && static_cast<uint64_t>(d.numel) * normgrad::DtypeBytes(d.dtype) < 32) out.contiguous = false;
  return out;
}

aclnnStatus BuildExecutor(const Args& a, const LayerNormGradTiling& t, const sim::host::TilingResult& plan,
                          aclOpExecutor* exec) {
  normgrad::DevPtr dy = exec->ContiguousInput(a.dy);
  normgrad::DevPtr x = (t.needDx || t.needDgamma) ? exec->ContiguousInput(a.x) : normgrad::DevPtr{};
  normgrad::DevPtr mean = (t.needDx || t.needDgamma) ? exec->ContiguousInput(a.mean) : normgrad::DevPtr{};
  normgrad::DevPtr rstd = (t.needDx || t.needDgamma) ? exec->ContiguousInput(a.rstd) : normgrad::DevPtr{};
  normgrad::DevPtr gamma = (a.hasWeight && t.needDx) ? exec->ContiguousInput(a.weight) : normgrad::DevPtr{};
  normgrad::DevPtr dx = t.needDx ? exec->ContiguousOutput(BlockSafe(a.dx, t)) : normgrad::DevPtr{};
  normgrad::DevPtr dgamma = t.needDgamma ? exec->ContiguousOutput(BlockSafe(a.dgamma, t)) : normgrad::DevPtr{};
  normgrad::DevPtr dbeta = t.needDbeta ? exec->ContiguousOutput(BlockSafe(a.dbeta, t)) : normgrad::DevPtr{};
  exec->AddKernel("layer_norm_grad_v3", plan.blockDim, plan.tilingData.data(), plan.tilingData.size(),
                  {dy, x, rstd, mean, gamma, dx, dgamma, dbeta}, plan.workspaces.empty() ? 0 : plan.workspaces[0],
                  [](uint8_t* const* p, uint8_t* ws, uint8_t* tiling) {
                    layer_norm_grad_v3(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], ws, tiling);
                  });
  return ACL_SUCCESS;
}

// Tiles through LayerNormGradV3's registered tiling function: dy and x as [M, D], one statistic
// per row; dgamma/dbeta (and gamma, when given) as [D] in the parameter dtype.
std::string Plan(const Args& a, sim::host::TilingResult* plan, LayerNormGradTiling* tiling) {
  using normgrad::TensorArgOf;
  const std::vector<int64_t> data = {a.rows, a.cols};
  const std::vector<int64_t> stats = {a.rows};
  const std::vector<int64_t> params = {a.cols};
  const aclDataType paramType =
      a.hasWeight ? a.weight.dtype : (a.mask[1] ? a.dgamma.dtype : (a.mask[2] ? a.dbeta.dtype : a.x.dtype));
  std::vector<sim::host::TensorArg> inputs = {TensorArgOf(data, a.dy.dtype), TensorArgOf(data, a.x.dtype),
                                              TensorArgOf(stats, a.rstd.dtype), TensorArgOf(stats, a.mean.dtype),
                                              a.hasWeight ? TensorArgOf(params, paramType) : sim::host::AbsentTensor()};
  std::vector<sim::host::TensorArg> outputs = {TensorArgOf(data, a.x.dtype), TensorArgOf(params, paramType),
                                               TensorArgOf(params, paramType)};
  // Emplaced, not copied from an initializer list: libstdc++ 12 visits a half-copied AttrValue
  // (a variant it deems never valueless) when the copy's allocation throws.
  sim::host::NamedAttrs attrs;
  attrs.emplace("output_mask", std::vector<bool>{a.mask[0], a.mask[1], a.mask[2]});
  std::string why = normgrad::RegisteredTiling("LayerNormGradV3", inputs, outputs, attrs, plan);
  if (why.empty() && plan->tilingData.size() != sizeof(*tiling)) why = "the tiling data is not one LayerNormGradTiling";
  if (why.empty()) std::memcpy(tiling, plan->tilingData.data(), sizeof(*tiling));
  return why;
}

}  // namespace

namespace {

aclnnStatus GetWorkspaceSize(const aclTensor* gradOut, const aclTensor* input, const aclIntArray* normalizedShape,
                             const aclTensor* mean, const aclTensor* rstd, const aclTensor* weightOptional,
                             const aclTensor* biasOptional, const aclBoolArray* outputMask, aclTensor* gradInputOut,
                             aclTensor* gradWeightOut, aclTensor* gradBiasOut, uint64_t* workspaceSize,
                             aclOpExecutor** executor) {
  const struct { const void* p; const char* name; } required[] = {
      {gradOut, "gradOut"}, {input, "input"}, {normalizedShape, "normalizedShape"}, {mean, "mean"},
      {rstd, "rstd"}, {outputMask, "outputMask"}, {workspaceSize, "workspaceSize"}, {executor, "executor"}};
  for (const auto& r : required) {
    if (r.p == nullptr) return Error(kStatusNullptr, kApi, "%s is a null pointer", r.name);
  }
  std::vector<bool> mask;
  if (aclnnStatus st = normgrad::BoolArrayValues(kApi, "outputMask", outputMask, &mask)) return st;
  if (mask.size() != 3) return Error(kStatusInvalid, kApi, "outputMask has %zu elements, expected 3", mask.size());
  const aclTensor* outs[3] = {gradInputOut, gradWeightOut, gradBiasOut};
  const char* outNames[3] = {"gradInputOut", "gradWeightOut", "gradBiasOut"};
  for (int i = 0; i < 3; ++i) {
    if (mask[i] && outs[i] == nullptr) {
      return Error(kStatusNullptr, kApi, "%s is a null pointer but outputMask[%d] is true", outNames[i], i);
    }
  }
  Args a;
  for (int i = 0; i < 3; ++i) a.mask[i] = mask[i];
  a.hasWeight = weightOptional != nullptr;
  a.hasBias = biasOptional != nullptr;
  if (aclnnStatus st = normgrad::DescribeAll(kApi, {{"gradOut", gradOut, &a.dy},
                                                    {"input", input, &a.x},
                                                    {"mean", mean, &a.mean},
                                                    {"rstd", rstd, &a.rstd},
                                                    {"weightOptional", weightOptional, &a.weight},
                                                    {"biasOptional", biasOptional, &a.bias},
                                                    {"gradInputOut", a.mask[0] ? gradInputOut : nullptr, &a.dx},
                                                    {"gradWeightOut", a.mask[1] ? gradWeightOut : nullptr, &a.dgamma},
                                                    {"gradBiasOut", a.mask[2] ? gradBiasOut : nullptr, &a.dbeta}})) {
    return st;
  }
  if (aclnnStatus st = normgrad::IntArrayValues(kApi, "normalizedShape", normalizedShape, &a.normShape)) return st;
  for (size_t i = 0; i < a.normShape.size(); ++i) {
    if (a.normShape[i] < 0) {
      return Error(kStatusInvalid, kApi, "normalizedShape %s has a negative dim %zu",
                   ShapeString(a.normShape).c_str(), i);
    }
  }
  const normgrad::CallSoc soc = normgrad::CurrentCallSoc();
  aclnnStatus st = normgrad::CheckSocServed(kApi, "LayerNormGradV3", soc, "the operator page lists no other");
  if (st == ACL_SUCCESS) st = CheckDtypes(a, soc.features.hasBf16, soc.name);
  if (st != ACL_SUCCESS) return st;
  if ((st = CheckShapes(a)) != ACL_SUCCESS) return st;

  auto exec = std::make_unique<aclOpExecutor>();
  exec->api = kApi;
  const bool anyOutput = a.mask[0] || a.mask[1] || a.mask[2];
  if (anyOutput && a.cols > 0 && a.rows == 0) {  // no rows: dgamma and dbeta are sums over nothing
    if (a.mask[1]) exec->AddZeroFill(exec->ContiguousOutput(a.dgamma), a.cols * normgrad::DtypeBytes(a.dgamma.dtype));
    if (a.mask[2]) exec->AddZeroFill(exec->ContiguousOutput(a.dbeta), a.cols * normgrad::DtypeBytes(a.dbeta.dtype));
  } else if (anyOutput && a.cols > 0) {
    sim::host::TilingResult plan;
    LayerNormGradTiling tiling{};
    const std::string why = Plan(a, &plan, &tiling);
    if (!why.empty()) {
      return Error(kStatusInvalid, kApi, "input %s: %s", ShapeString(a.x.shape).c_str(), why.c_str());
    }
    BuildExecutor(a, tiling, plan, exec.get());
  }
  *workspaceSize = exec->WorkspaceBytes();
  *executor = exec.release();
  return ACL_SUCCESS;
}

}  // namespace

aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(const aclTensor* gradOut, const aclTensor* input,
                                                   const aclIntArray* normalizedShape, const aclTensor* mean,
                                                   const aclTensor* rstd, const aclTensor* weightOptional,
                                                   const aclTensor* biasOptional, const aclBoolArray* outputMask,
                                                   aclTensor* gradInputOut, aclTensor* gradWeightOut,
                                                   aclTensor* gradBiasOut, uint64_t* workspaceSize,
                                                   aclOpExecutor** executor) {
  return sim::host::CBoundary("aclnnLayerNormBackwardGetWorkspaceSize", normgrad::kStatusInner, [&] {
    return GetWorkspaceSize(gradOut, input, normalizedShape, mean, rstd, weightOptional, biasOptional, outputMask,
                            gradInputOut, gradWeightOut, gradBiasOut, workspaceSize, executor);
  });
}

aclnnStatus aclnnLayerNormBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream) {
  return normgrad::RunExecutor(kApi, workspace, workspaceSize, executor, stream);
}
