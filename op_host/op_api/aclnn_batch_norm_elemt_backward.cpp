// aclnnBatchNormElemtBackward: validates every row of the API's error table (docs/batch_norm_elemt_backward.md), then
// builds one launch of the batch_norm_elemt_grad kernel; strided tensors are gathered/scattered
// by the executor, empty tensors launch nothing.
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"

#include <algorithm>

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "aclnn_common.h"
#include "simhost/op_records.h"
#include "ascendc/dtype.h"
#include "ascendc/soc.h"
#include "batch_norm_elemt_grad_tiling.h"
#include "simhost/c_boundary.h"

extern "C" void batch_norm_elemt_grad(uint8_t* dy, uint8_t* x, uint8_t* mean, uint8_t* invstd, uint8_t* weight,
                                      uint8_t* sumDy, uint8_t* sumDyXmu, uint8_t* counter, uint8_t* dx,
                                      uint8_t* workspace, uint8_t* tiling);

namespace {

constexpr const char* kApi = "aclnnBatchNormElemtBackward";
constexpr size_t kMaxDims = 8;
using normgrad::Error;
using normgrad::kStatusInvalid;
using normgrad::kStatusNullptr;
using normgrad::ShapeString;
using normgrad::TensorDesc;

bool IsFloatType(aclDataType d) { return d == ACL_FLOAT || d == ACL_FLOAT16 || d == ACL_BF16; }
bool IsCounterType(aclDataType d) { return d == ACL_FLOAT || d == ACL_FLOAT16 || d == ACL_INT32; }

// Formats that describe a plain row-major layout; the private (fractal, C0-blocked) ones are rejected.
bool IsPlainFormat(aclFormat f) {
  return f != ACL_FORMAT_NC1HWC0 && f != ACL_FORMAT_FRACTAL_Z && f != ACL_FORMAT_NC1HWC0_C04 &&
         f != ACL_FORMAT_FRACTAL_NZ && f != ACL_FORMAT_NDC1HWC0 && f != ACL_FORMAT_UNDEFINED;
}

struct Args {
  TensorDesc dy, x, stat[normgrad::kBnStatCount], counter, dx;
  bool hasWeight = false;
};

// Names of the per-channel vectors in BatchNormElemtGradStat order.
constexpr const char* kStatNames[normgrad::kBnStatCount] = {"mean", "invstd", "weight", "sumDy", "sumDyXmu"};

aclnnStatus CheckDtypes(const Args& a) {
  const struct { const TensorDesc* t; const char* name; } floats[] = {
      {&a.dy, "gradOut"}, {&a.x, "input"}, {&a.stat[normgrad::kBnMean], "mean"},
      {&a.stat[normgrad::kBnInvstd], "invstd"}, {&a.stat[normgrad::kBnSumDy], "sumDy"},
      {&a.stat[normgrad::kBnSumDyXmu], "sumDyXmu"}, {&a.dx, "gradInput"}};
  for (const auto& f : floats) {
    if (!IsFloatType(f.t->dtype)) {
      return Error(kStatusInvalid, kApi, "%s has dtype %s, expected FLOAT, FLOAT16 or BFLOAT16", f.name,
                   normgrad::DtypeName(f.t->dtype));
    }
  }
  if (!IsCounterType(a.counter.dtype)) {
    return Error(kStatusInvalid, kApi, "counter has dtype %s, expected INT32, FLOAT16 or FLOAT",
                 normgrad::DtypeName(a.counter.dtype));
  }
  if (a.hasWeight && !IsFloatType(a.stat[normgrad::kBnWeight].dtype)) {
    return Error(kStatusInvalid, kApi, "weight has dtype %s, expected FLOAT, FLOAT16 or BFLOAT16",
                 normgrad::DtypeName(a.stat[normgrad::kBnWeight].dtype));
  }
  return ACL_SUCCESS;
}

aclnnStatus CheckFormats(const Args& a) {
  const struct { const TensorDesc* t; const char* name; } bigs[] = {{&a.dy, "gradOut"}, {&a.x, "input"},
                                                                    {&a.dx, "gradInput"}};
  for (const auto& b : bigs) {
    if (!IsPlainFormat(b.t->format)) {
      return Error(kStatusInvalid, kApi, "%s has format %d, expected ND (or another plain format, not a private one)",
                   b.name, static_cast<int>(b.t->format));
    }
  }
  return ACL_SUCCESS;
}

aclnnStatus CheckShapes(const Args& a) {
  const std::vector<int64_t>& xs = a.x.shape;
  if (xs.size() < 2) {
    return Error(kStatusInvalid, kApi, "input has %zu dimensions %s, expected at least 2 (axis 1 is the channel)",
                 xs.size(), ShapeString(xs).c_str());
  }
  const struct { const TensorDesc* t; const char* name; } ranked[] = {
      {&a.x, "input"}, {&a.dy, "gradOut"}, {&a.dx, "gradInput"}, {&a.counter, "counter"}};
  for (const auto& r : ranked) {
    if (r.t->shape.size() > kMaxDims) {
      return Error(kStatusInvalid, kApi, "%s has %zu dimensions, at most %zu are supported", r.name,
                   r.t->shape.size(), kMaxDims);
    }
  }
  if (xs[1] == 0) return Error(kStatusInvalid, kApi, "input %s has 0 channels (dim 1), expected at least 1", ShapeString(xs).c_str());
  if (a.dy.shape != xs) {
    return Error(kStatusInvalid, kApi, "gradOut has shape %s, expected the shape of input %s",
                 ShapeString(a.dy.shape).c_str(), ShapeString(xs).c_str());
  }
  if (a.dx.shape != xs) {
    return Error(kStatusInvalid, kApi, "gradInput has shape %s, expected the shape of input %s",
                 ShapeString(a.dx.shape).c_str(), ShapeString(xs).c_str());
  }
  const struct { const TensorDesc* t; const char* name; } big[] = {
      {&a.x, "input"}, {&a.dy, "gradOut"}, {&a.dx, "gradInput"}, {&a.counter, "counter"}};
  for (const auto& b : big) {
    if (aclnnStatus st = normgrad::CheckTensorBytes(kApi, b.name, *b.t)) return st;
  }
  if (aclnnStatus st = normgrad::CheckOutputLayout(kApi, "gradInput", a.dx)) return st;
  if (aclnnStatus st = normgrad::CheckOutputsDisjoint(
          kApi,
          {{"gradOut", &a.dy}, {"input", &a.x}, {"mean", &a.stat[normgrad::kBnMean]},
           {"invstd", &a.stat[normgrad::kBnInvstd]}, {"weight", a.hasWeight ? &a.stat[normgrad::kBnWeight] : nullptr},
           {"sumDy", &a.stat[normgrad::kBnSumDy]}, {"sumDyXmu", &a.stat[normgrad::kBnSumDyXmu]},
           {"counter", &a.counter}, {"gradInput", &a.dx}},
          8)) {
    return st;
  }
  const std::vector<int64_t> channels = {xs[1]};
  for (uint32_t i = 0; i < normgrad::kBnStatCount; ++i) {
    if (i == normgrad::kBnWeight && !a.hasWeight) continue;
    if (a.stat[i].shape != channels) {
      return Error(kStatusInvalid, kApi, "%s has shape %s, expected [C] = %s (C = input dim 1)", kStatNames[i],
                   ShapeString(a.stat[i].shape).c_str(), ShapeString(channels).c_str());
    }
  }
  return ACL_SUCCESS;
}

// Tiles through BatchNormElemtGrad's registered tiling function, every tensor with its own shape
// and dtype (weight absent when null).
std::string Plan(const Args& a, sim::host::TilingResult* plan) {
  using normgrad::TensorArgOf;
  std::vector<sim::host::TensorArg> inputs = {TensorArgOf(a.dy.shape, a.dy.dtype), TensorArgOf(a.x.shape, a.x.dtype)};
  for (uint32_t i = 0; i < normgrad::kBnStatCount; ++i) {
    const bool absent = i == normgrad::kBnWeight && !a.hasWeight;
    inputs.push_back(absent ? sim::host::AbsentTensor() : TensorArgOf(a.stat[i].shape, a.stat[i].dtype));
  }
  inputs.push_back(TensorArgOf({a.counter.numel}, a.counter.dtype));
  std::string why = normgrad::RegisteredTiling("BatchNormElemtGrad", inputs, {TensorArgOf(a.dx.shape, a.dx.dtype)}, {},
                                               plan);
  if (why.empty() && plan->tilingData.size() != sizeof(normgrad::BatchNormElemtGradTiling)) {
    why = "the tiling data is not one BatchNormElemtGradTiling";
  }
  return why;
}

// counter[i] as a double (int32, float16 or float32 storage).
double CounterValue(const uint8_t* base, int64_t index, aclDataType dtype) {
  if (dtype == ACL_INT32) {
    int32_t v;
    std::memcpy(&v, base + index * 4, 4);
    return v;
  }
  if (dtype == ACL_FLOAT16) {
    uint16_t h;
    std::memcpy(&h, base + index * 2, 2);
    return sim::HalfToFloat(h);
  }
  float f;
  std::memcpy(&f, base + index * 4, 4);
  return f;
}

// The counts are device data, so they are checked in the execute phase, before any kernel: a
// negative or non-finite count, or a total of 0 for a non-empty input, has no meaning (the mean
// over zero elements), and the kernel would turn it into NaN/inf outputs without a word.
void AddCounterCheck(const TensorDesc& counter, aclOpExecutor* exec) {
  exec->pre_.push_back({[counter](uint8_t*) -> aclnnStatus {
    const auto* base = static_cast<const uint8_t*>(counter.data);
    double total = 0;
    aclnnStatus status = ACL_SUCCESS;
    normgrad::ForEachElement(counter, [&](int64_t storage, int64_t linear) {
      const double v = CounterValue(base, storage, counter.dtype);
      if (status == ACL_SUCCESS && (!std::isfinite(v) || v < 0)) {
        status = Error(kStatusInvalid, kApi, "counter[%lld] is %g; counts must be finite and >= 0",
                       static_cast<long long>(linear), v);
      }
      total += v;
    });
    if (status == ACL_SUCCESS && !(total > 0)) {
      status = Error(kStatusInvalid, kApi,
                     "counter %s sums to 0: the statistics average over no elements (the total must be > 0 "
                     "when input is not empty)", ShapeString(counter.shape).c_str());
    }
    return status;
  }});
}

void AddLaunch(const Args& a, const sim::host::TilingResult& plan, aclOpExecutor* exec) {
  AddCounterCheck(a.counter, exec);
  std::vector<normgrad::DevPtr> args;
  args.push_back(exec->ContiguousInput(a.dy));
  args.push_back(exec->ContiguousInput(a.x));
  for (uint32_t i = 0; i < normgrad::kBnStatCount; ++i) {
    args.push_back(i == normgrad::kBnWeight && !a.hasWeight ? normgrad::DevPtr{} : exec->ContiguousInput(a.stat[i]));
  }
  args.push_back(exec->ContiguousInput(a.counter));
  args.push_back(exec->ContiguousOutput(a.dx));
  exec->AddKernel("batch_norm_elemt_grad", plan.blockDim, plan.tilingData.data(), plan.tilingData.size(), args,
                  plan.workspaces.empty() ? 0 : plan.workspaces[0],
                  [](uint8_t* const* p, uint8_t* ws, uint8_t* tiling) {
                    batch_norm_elemt_grad(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], ws, tiling);
                  });
}

}  // namespace

namespace {

aclnnStatus GetWorkspaceSize(const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean,
                             const aclTensor* invstd, const aclTensor* weight, const aclTensor* sumDy,
                             const aclTensor* sumDyXmu, aclTensor* counter, aclTensor* gradInput,
                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  const struct { const void* p; const char* name; } required[] = {
      {gradOut, "gradOut"}, {input, "input"},     {mean, "mean"},       {invstd, "invstd"},
      {sumDy, "sumDy"},     {sumDyXmu, "sumDyXmu"}, {counter, "counter"}, {gradInput, "gradInput"},
      {workspaceSize, "workspaceSize"}, {executor, "executor"}};
  for (const auto& r : required) {
    if (r.p == nullptr) return Error(kStatusNullptr, kApi, "%s is a null pointer", r.name);
  }
  Args a;
  a.hasWeight = weight != nullptr;
  if (aclnnStatus st = normgrad::DescribeAll(kApi, {{"gradOut", gradOut, &a.dy},
                                                    {"input", input, &a.x},
                                                    {"mean", mean, &a.stat[normgrad::kBnMean]},
                                                    {"invstd", invstd, &a.stat[normgrad::kBnInvstd]},
                                                    {"weight", weight, &a.stat[normgrad::kBnWeight]},
                                                    {"sumDy", sumDy, &a.stat[normgrad::kBnSumDy]},
                                                    {"sumDyXmu", sumDyXmu, &a.stat[normgrad::kBnSumDyXmu]},
                                                    {"counter", counter, &a.counter},
                                                    {"gradInput", gradInput, &a.dx}})) {
    return st;
  }
  // The SoC families the OpDef lists (AICore().AddConfig) are the ones served, every chip of them:
  // the kernel moves rows of any length with DataCopyPad, which the training series lacks.
  const normgrad::CallSoc soc = normgrad::CurrentCallSoc();
  const sim::host::OpDefInfo* def = sim::host::FindOpDef("BatchNormElemtGrad");
  if (def == nullptr || std::find(def->socs.begin(), def->socs.end(), soc.family) == def->socs.end()) {
    std::string served;
    for (const std::string& s : def == nullptr ? std::vector<std::string>{} : def->socs) {
      served += (served.empty() ? "" : ", ") + s;
    }
    const std::string family = std::strcmp(soc.name, soc.family) == 0 ? "" : std::string(" (") + soc.family + ")";
    return Error(kStatusInvalid, kApi, "SoC %s%s is not served: this operator runs on %s (its kernel needs DataCopyPad)",
                 soc.name, family.c_str(), served.c_str());
  }
  aclnnStatus st = CheckDtypes(a);
  if (st == ACL_SUCCESS) st = CheckFormats(a);
  if (st == ACL_SUCCESS) st = CheckShapes(a);
  if (st != ACL_SUCCESS) return st;

  auto exec = std::make_unique<aclOpExecutor>();
  exec->api = kApi;
  if (a.x.numel > 0) {
    sim::host::TilingResult plan;
    const std::string why = Plan(a, &plan);
    if (!why.empty()) {
      return Error(kStatusInvalid, kApi, "SoC %s cannot run input %s %s: %s", soc.name,
                   ShapeString(a.x.shape).c_str(), normgrad::DtypeName(a.x.dtype), why.c_str());
    }
    AddLaunch(a, plan, exec.get());
  }
  *workspaceSize = exec->WorkspaceBytes();
  *executor = exec.release();
  return ACL_SUCCESS;
}

}  // namespace

aclnnStatus aclnnBatchNormElemtBackwardGetWorkspaceSize(const aclTensor* gradOut, const aclTensor* input,
                                                        const aclTensor* mean, const aclTensor* invstd,
                                                        const aclTensor* weight, const aclTensor* sumDy,
                                                        const aclTensor* sumDyXmu, aclTensor* counter,
                                                        aclTensor* gradInput, uint64_t* workspaceSize,
                                                        aclOpExecutor** executor) {
  return sim::host::CBoundary("aclnnBatchNormElemtBackwardGetWorkspaceSize", normgrad::kStatusInner, [&] {
    return GetWorkspaceSize(gradOut, input, mean, invstd, weight, sumDy, sumDyXmu, counter, gradInput, workspaceSize,
                            executor);
  });
}

aclnnStatus aclnnBatchNormElemtBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                        const aclrtStream stream) {
  return normgrad::RunExecutor(kApi, workspace, workspaceSize, executor, stream);
}
