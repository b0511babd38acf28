// normgrad::l2::CheckViews (op_host/op_api/level2_support.h) on the simulator: the checks of the
// tensors' views that the aclnn layer always made here (aclnn_common.h: CheckTensorBytes,
// CheckOutputLayout, CheckOutputsDisjoint).
#include <vector>

#include "aclnn_common.h"
#include "level2_support.h"

namespace normgrad {
namespace l2 {

aclnnStatus CheckViews(const char* api, const std::vector<NamedArg>& tensors, size_t firstOutput) {
  std::vector<TensorDesc> descs(tensors.size());
  std::vector<NamedTensor> named;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const NamedArg& a = tensors[i];
    if (a.t == nullptr) {
      named.push_back({a.name, nullptr});
      continue;
    }
    if (aclnnStatus st = Describe(api, a.name, a.t, &descs[i])) return st;
    if (aclnnStatus st = CheckTensorBytes(api, a.name, descs[i])) return st;
    if (i >= firstOutput) {
      if (aclnnStatus st = CheckOutputLayout(api, a.name, descs[i])) return st;
    }
    named.push_back({a.name, &descs[i]});
  }
  return CheckOutputsDisjoint(api, named, firstOutput);
}

}  // namespace l2
}  // namespace normgrad
