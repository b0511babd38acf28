// normgrad::l2::AddCounterCheck (op_host/op_api/level2_support.h) on the simulator: the counts are
// device data, so they are checked in the execute phase, before any kernel. A negative or
// non-finite count, or a total of 0 for a non-empty input, has no meaning (the mean over zero
// elements), and the kernel would turn it into NaN/inf outputs without a word.
#include <cmath>
#include <cstring>

#include "aclnn_common.h"
#include "ascendc/dtype.h"
#include "level2_support.h"

namespace normgrad {
namespace l2 {
namespace {

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

}  // namespace

aclnnStatus AddCounterCheck(const char* api, const aclTensor* counterHandle, aclOpExecutor* executor) {
  TensorDesc counter;
  if (aclnnStatus st = Describe(api, "counter", counterHandle, &counter)) return st;
  const std::string name = api;
  executor->pre_.push_back({[counter, name](uint8_t*) -> aclnnStatus {
    const auto* base = static_cast<const uint8_t*>(counter.data);
    double total = 0;
    aclnnStatus status = ACL_SUCCESS;
    ForEachElement(counter, [&](int64_t storage, int64_t linear) {
      const double v = CounterValue(base, storage, counter.dtype);
      if (status == ACL_SUCCESS && (!std::isfinite(v) || v < 0)) {
        status = Error(kStatusInvalid, name.c_str(), "counter[%lld] is %g; counts must be finite and >= 0",
                       static_cast<long long>(linear), v);
      }
      total += v;
    });
    if (status == ACL_SUCCESS && !(total > 0)) {
      status = Error(kStatusInvalid, name.c_str(),
                     "counter %s sums to 0: the statistics average over no elements (the total must be > 0 "
                     "when input is not empty)",
                     ShapeString(counter.shape).c_str());
    }
    return status;
  }});
  return ACLNN_SUCCESS;
}

}  // namespace l2
}  // namespace normgrad
