// The view checks of op_host/op_api/level2_support.h on the simulator: the ones the aclnn layer always
// made here (aclnn_common.h: CheckTensorBytes, CheckOutputLayout, CheckOutputsDisjoint).
#include <vector>

#include "aclnn_common.h"
#include "level2_support.h"

namespace normgrad {
namespace l2 {

aclnnStatus CheckSpan(const char* api, const char* name, const aclTensor* t) {
  TensorDesc d;
  if (aclnnStatus st = Describe(api, name, t, &d)) return st;
  return CheckTensorBytes(api, name, d);
}

aclnnStatus CheckOutputView(const char* api, const char* name, const aclTensor* t) {
  TensorDesc d;
  if (aclnnStatus st = Describe(api, name, t, &d)) return st;
  if (aclnnStatus st = CheckTensorBytes(api, name, d)) return st;
  return CheckOutputLayout(api, name, d);
}

aclnnStatus CheckDisjoint(const char* api, const std::vector<NamedArg>& tensors, size_t firstOutput) {
  std::vector<TensorDesc> descs(tensors.size());
  std::vector<NamedTensor> named;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const NamedArg& a = tensors[i];
    if (a.t != nullptr) {
      if (aclnnStatus st = Describe(api, a.name, a.t, &descs[i])) return st;
    }
    named.push_back({a.name, a.t != nullptr ? &descs[i] : nullptr});
  }
  return CheckOutputsDisjoint(api, named, firstOutput);
}

}  // namespace l2
}  // namespace normgrad
