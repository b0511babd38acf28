// The view checks of level2_support.h, over the aclTensor methods both builds have (view shape,
// strides and offset in elements, dtype, storage address): the same checks on the NPU and the
// simulator.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "level2_support.h"
#include "opdev/common_types.h"
#include "opdev/op_log.h"

namespace normgrad {
namespace l2 {
namespace {

// The most bytes one tensor view may span: 2^40 (1 TiB), beyond the HBM of any Ascend device. A
// larger view (only possible with zero strides) would need a gather workspace no device has, and
// its byte counts would come near uint64 overflow.
constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 40;

struct View {
  std::vector<int64_t> shape, strides;
  int64_t offset = 0;
  int64_t numel = 0;  // -1: more than int64 holds
  uint64_t itemBytes = 0;
  uintptr_t storage = 0;
};

View ViewOf(const aclTensor* t) {
  View v;
  v.shape = Dims(t);
  const op::Strides strides = t->GetViewStrides();
  for (size_t i = 0; i < v.shape.size() && i < strides.size(); ++i) v.strides.push_back(strides[i]);
  v.strides.resize(v.shape.size(), 0);
  v.offset = t->GetViewOffset();
  if (!Numel(v.shape, &v.numel)) v.numel = -1;
  v.itemBytes = DtypeBytes(t->GetDataType());
  v.storage = reinterpret_cast<uintptr_t>(t->GetStorageAddr());
  return v;
}

bool Contiguous(const View& v) {
  if (v.offset != 0) return false;
  int64_t expected = 1;
  for (size_t d = v.shape.size(); d-- > 0;) {
    if (v.shape[d] != 1 && v.strides[d] != expected) return false;  // size-1 dims may have any stride
    expected *= v.shape[d];
  }
  return true;
}

// [first byte, one past the last byte) a view can touch; empty for a tensor with no elements.
std::pair<uintptr_t, uintptr_t> ByteSpan(const View& v) {
  if (v.numel == 0 || v.storage == 0) return {0, 0};
  const int64_t item = static_cast<int64_t>(v.itemBytes);
  int64_t low = v.offset, high = v.offset;
  for (size_t d = 0; d < v.shape.size(); ++d) {
    const int64_t reach = (v.shape[d] - 1) * v.strides[d];
    (reach < 0 ? low : high) += reach;
  }
  return {v.storage + static_cast<uintptr_t>(low * item), v.storage + static_cast<uintptr_t>((high + 1) * item)};
}

}  // namespace

aclnnStatus CheckSpan(const char* api, const char* name, const aclTensor* t) {
  const View v = ViewOf(t);
  if (v.numel != 0 && v.itemBytes > 0 && (v.numel < 0 || static_cast<uint64_t>(v.numel) > kMaxTensorBytes / v.itemBytes)) {
    NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, api, "%s %s has %lld elements (%s), more than the %llu bytes a tensor may span",
                     name, ShapeString(v.shape).c_str(), static_cast<long long>(v.numel), DtypeName(t->GetDataType()),
                     static_cast<unsigned long long>(kMaxTensorBytes));
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckOutputView(const char* api, const char* name, const aclTensor* t) {
  if (aclnnStatus st = CheckSpan(api, name, t)) return st;
  const View v = ViewOf(t);
  if (v.numel <= 1 || Contiguous(v)) return ACLNN_SUCCESS;
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of the dims with size > 1
  for (size_t d = 0; d < v.shape.size(); ++d) {
    if (v.shape[d] > 1) dims.emplace_back(v.strides[d], v.shape[d]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t span = 0;  // largest offset the smaller-stride dims reach
  for (const auto& [stride, size] : dims) {
    if (stride <= span) {
      NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, api,
                       "%s %s with strides %s could write one element twice (a zero stride, or a stride within the "
                       "span of the smaller ones); an output needs one address per element",
                       name, ShapeString(v.shape).c_str(), ShapeString(v.strides).c_str());
    }
    span += (size - 1) * stride;
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckDisjoint(const char* api, const std::vector<NamedArg>& tensors, size_t firstOutput) {
  std::vector<std::pair<uintptr_t, uintptr_t>> spans;
  for (const NamedArg& a : tensors) spans.push_back(a.t != nullptr ? ByteSpan(ViewOf(a.t)) : std::pair<uintptr_t, uintptr_t>{0, 0});
  for (size_t i = firstOutput; i < tensors.size(); ++i) {
    const auto [a0, a1] = spans[i];
    if (a0 == a1) continue;
    for (size_t j = 0; j < tensors.size(); ++j) {
      if (j == i || tensors[j].t == nullptr) continue;
      const auto [b0, b1] = spans[j];
      if (b0 < b1 && a0 < b1 && b0 < a1) {
        NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, api,
                         "%s shares device memory with %s: outputs must not overlap the inputs or each other "
                         "(no in-place computation)",
                         tensors[i].name, tensors[j].name);
      }
    }
  }
  return ACLNN_SUCCESS;
}

}  // namespace l2
}  // namespace normgrad
