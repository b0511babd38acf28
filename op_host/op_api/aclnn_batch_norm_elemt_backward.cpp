// aclnnBatchNormElemtBackward, level-2 aclnn code as CANN's operators are written, one source for the
// NPU package and the simulator: the checks of docs/batch_norm_elemt_backward.md's error table
// (161001/161002 naming the argument), then the executor plan: contiguous copies of strided
// inputs, one BatchNormElemtGrad launch into an executor tensor and a copy into the caller's
// (possibly strided) gradInput. An empty input: an executor that runs nothing (gradInput is empty).
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"

#include <cstring>
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

constexpr const char* kApi = "aclnnBatchNormElemtBackward";
using normgrad::ShapeString;
using normgrad::l2::Dims;
using normgrad::l2::DimsOf;
using normgrad::l2::DtypeName;

struct Call {
  const aclTensor* dy;
  const aclTensor* x;
  const aclTensor* stats[5];  // mean, invstd, weight (nullptr: ones), sumDy, sumDyXmu
  const aclTensor* counter;
  aclTensor* dx;
};
constexpr const char* kStatNames[5] = {"mean", "invstd", "weight", "sumDy", "sumDyXmu"};
constexpr int kWeight = 2;

bool IsFloat(op::DataType d) { return d == ge::DT_FLOAT || d == ge::DT_FLOAT16 || d == ge::DT_BF16; }
bool IsCounterType(op::DataType d) { return d == ge::DT_FLOAT || d == ge::DT_FLOAT16 || d == ge::DT_INT32; }

// Formats that describe a plain row-major layout; the private (fractal, C0-blocked) ones are rejected.
bool IsPlainFormat(op::Format f) {
  return f != ge::FORMAT_NC1HWC0 && f != ge::FORMAT_FRACTAL_Z && f != ge::FORMAT_NC1HWC0_C04 &&
         f != ge::FORMAT_FRACTAL_NZ && f != ge::FORMAT_NDC1HWC0 && f != ge::FORMAT_RESERVED;
}

aclnnStatus CheckNulls(const Call& a) {
  const struct {
    const void* p;
    const char* name;
  } required[] = {{a.dy, "gradOut"},        {a.x, "input"},           {a.stats[0], "mean"},
                  {a.stats[1], "invstd"},   {a.stats[3], "sumDy"},    {a.stats[4], "sumDyXmu"},
                  {a.counter, "counter"},   {a.dx, "gradInput"}};
  for (const auto& r : required) {
    if (r.p == nullptr) NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_NULLPTR, kApi, "%s is a null pointer", r.name);
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckDtypesAndFormats(const Call& a) {
  const struct {
    const aclTensor* t;
    const char* name;
  } floats[] = {{a.dy, "gradOut"},     {a.x, "input"},           {a.stats[0], "mean"}, {a.stats[1], "invstd"},
                {a.stats[3], "sumDy"}, {a.stats[4], "sumDyXmu"}, {a.dx, "gradInput"}};
  for (const auto& f : floats) {
    if (!IsFloat(f.t->GetDataType())) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has dtype %s, expected FLOAT, FLOAT16 or BFLOAT16", f.name,
                       DtypeName(f.t->GetDataType()));
    }
  }
  if (!IsCounterType(a.counter->GetDataType())) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "counter has dtype %s, expected INT32, FLOAT16 or FLOAT",
                     DtypeName(a.counter->GetDataType()));
  }
  const aclTensor* weight = a.stats[kWeight];
  if (weight != nullptr && !IsFloat(weight->GetDataType())) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "weight has dtype %s, expected FLOAT, FLOAT16 or BFLOAT16",
                     DtypeName(weight->GetDataType()));
  }
  const struct {
    const aclTensor* t;
    const char* name;
  } bigs[] = {{a.dy, "gradOut"}, {a.x, "input"}, {a.dx, "gradInput"}};
  for (const auto& b : bigs) {
    if (!IsPlainFormat(b.t->GetViewFormat())) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi,
                       "%s has format %d, expected ND (or another plain format, not a private one)", b.name,
                       static_cast<int>(b.t->GetViewFormat()));
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckShapes(const Call& a) {
  const std::vector<int64_t> xs = Dims(a.x);
  if (xs.size() < 2) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi,
                     "input has %zu dimensions %s, expected at least 2 (axis 1 is the channel)", xs.size(),
                     ShapeString(xs).c_str());
  }
  const struct {
    const aclTensor* t;
    const char* name;
  } ranked[] = {{a.x, "input"}, {a.dy, "gradOut"}, {a.dx, "gradInput"}, {a.counter, "counter"}};
  for (const auto& r : ranked) {
    if (Dims(r.t).size() > normgrad::l2::kMaxDims) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has %zu dimensions, at most %zu are supported", r.name,
                       Dims(r.t).size(), normgrad::l2::kMaxDims);
    }
  }
  if (xs[1] == 0) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "input %s has 0 channels (dim 1), expected at least 1",
                     ShapeString(xs).c_str());
  }
  const struct {
    const aclTensor* t;
    const char* name;
  } same[] = {{a.dy, "gradOut"}, {a.dx, "gradInput"}};
  for (const auto& s : same) {
    if (Dims(s.t) != xs) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has shape %s, expected the shape of input %s", s.name,
                       DimsOf(s.t).c_str(), ShapeString(xs).c_str());
    }
  }
  for (const auto& r : ranked) {
    if (aclnnStatus st = normgrad::l2::CheckSpan(kApi, r.name, r.t)) return st;
  }
  if (aclnnStatus st = normgrad::l2::CheckOutputView(kApi, "gradInput", a.dx)) return st;
  if (aclnnStatus st = normgrad::l2::CheckDisjoint(kApi,
                                                   {{"gradOut", a.dy},
                                                    {"input", a.x},
                                                    {"mean", a.stats[0]},
                                                    {"invstd", a.stats[1]},
                                                    {"weight", a.stats[kWeight]},
                                                    {"sumDy", a.stats[3]},
                                                    {"sumDyXmu", a.stats[4]},
                                                    {"counter", a.counter},
                                                    {"gradInput", a.dx}},
                                                   8)) {
    return st;
  }
  const std::vector<int64_t> channels = {xs[1]};
  for (int i = 0; i < 5; ++i) {
    if (a.stats[i] != nullptr && Dims(a.stats[i]) != channels) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, kApi, "%s has shape %s, expected [C] = %s (C = input dim 1)",
                       kStatNames[i], DimsOf(a.stats[i]).c_str(), ShapeString(channels).c_str());
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus PlanLaunch(const Call& a, aclOpExecutor* executor) {
  const aclTensor* in[8] = {a.dy, a.x, a.stats[0], a.stats[1], a.stats[kWeight], a.stats[3], a.stats[4], a.counter};
  for (const aclTensor*& t : in) {
    if (t == nullptr) continue;  // weight
    t = l0op::Contiguous(t, executor);
    if (t == nullptr) return ACLNN_ERR_INNER_NULLPTR;
  }
  in[7] = l0op::Reshape(in[7], op::Shape{a.counter->Numel()}, executor);  // the kernel reads counter as 1-D
  if (in[7] == nullptr) return ACLNN_ERR_INNER_NULLPTR;
  if (aclnnStatus st = normgrad::l2::AddCounterCheck(kApi, a.counter, executor)) return st;
  aclTensor* dx = executor->AllocTensor(a.x->GetViewShape(), a.dx->GetDataType());
  if (dx == nullptr) return ACLNN_ERR_INNER_NULLPTR;
  if (aclnnStatus st = l0op::BatchNormElemtGrad(in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], dx, executor)) {
    return st;
  }
  return normgrad::l2::CopyInto(dx, a.dx, executor);
}

aclnnStatus GetWorkspaceSize(const Call& a, uint64_t* workspaceSize, aclOpExecutor** executor) {
  if (aclnnStatus st = CheckNulls(a)) return st;
  if (aclnnStatus st = normgrad::l2::CheckSocServed(kApi, ops::kBatchNormElemtGradSocs, "its kernel needs DataCopyPad")) {
    return st;
  }
  if (aclnnStatus st = CheckDtypesAndFormats(a)) return st;
  if (aclnnStatus st = CheckShapes(a)) return st;

  auto uniqueExecutor = CREATE_EXECUTOR();
  if (uniqueExecutor.get() == nullptr) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
  if (!a.x->IsEmpty()) {
    if (aclnnStatus st = PlanLaunch(a, uniqueExecutor.get())) return st;
  }
  *workspaceSize = uniqueExecutor->GetWorkspaceSize();
  uniqueExecutor.ReleaseTo(executor);
  return ACLNN_SUCCESS;
}

}  // namespace

extern "C" NORMGRAD_L2_EXPORT aclnnStatus aclnnBatchNormElemtBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean, const aclTensor* invstd,
    const aclTensor* weight, const aclTensor* sumDy, const aclTensor* sumDyXmu, aclTensor* counter,
    aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor) {
  L2_DFX_PHASE_1(aclnnBatchNormElemtBackward, DFX_IN(gradOut, input, mean, invstd, weight, sumDy, sumDyXmu, counter),
                 DFX_OUT(gradInput));
  return NORMGRAD_L2_BOUNDARY(kApi, {
    const Call a{gradOut, input, {mean, invstd, weight, sumDy, sumDyXmu}, counter, gradInput};
    return GetWorkspaceSize(a, workspaceSize, executor);
  });
}

extern "C" NORMGRAD_L2_EXPORT aclnnStatus aclnnBatchNormElemtBackward(void* workspace, uint64_t workspaceSize,
                                                                      aclOpExecutor* executor,
                                                                      const aclrtStream stream) {
  L2_DFX_PHASE_2(aclnnBatchNormElemtBackward);
  return CommonOpExecutorRun(workspace, workspaceSize, executor, stream);
}
