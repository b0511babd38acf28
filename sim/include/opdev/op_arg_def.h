// opdev/op_arg_def.h (CANN nnopbase), the part ADD_TO_LAUNCHER_LIST_AICORE uses: OP_INPUT,
// OP_OUTPUT and OP_ATTR collect a launch's tensors (OpDef order; nullptr for an absent optional
// input) and attribute values (OpDef order; the launcher names them from the OpDef).
#pragma once
#include <string>
#include <type_traits>
#include <vector>

#include "opdev/common_types.h"
#include "simhost/op_def_info.h"

namespace normgrad_sim {

struct OpInputs {
  std::vector<const aclTensor*> tensors;
};
struct OpOutputs {
  std::vector<const aclTensor*> tensors;
};
struct OpAttrs {
  std::vector<sim::host::AttrValue> values;
};

std::vector<bool> BoolArrayOf(const aclBoolArray* a);  // throws for a handle that is not live
std::vector<int64_t> IntArrayOf(const aclIntArray* a);

template <typename T>
sim::host::AttrValue AttrOf(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<int64_t>(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<float>(v);
  } else if constexpr (std::is_convertible_v<T, std::string>) {
    return std::string(v);
  } else if constexpr (std::is_convertible_v<T, const aclBoolArray*>) {
    return BoolArrayOf(v);
  } else {
    static_assert(std::is_convertible_v<T, const aclIntArray*>, "an attribute type the simulator does not take");
    return IntArrayOf(v);
  }
}

// Moved in one by one, not copied from an initializer list: libstdc++ 12 visits a half-copied
// AttrValue (a variant it deems never valueless) when the copy's allocation throws.
template <typename... T>
OpAttrs MakeOpAttrs(const T&... values) {
  OpAttrs attrs;
  attrs.values.reserve(sizeof...(T));
  (attrs.values.push_back(AttrOf(values)), ...);
  return attrs;
}

}  // namespace normgrad_sim

#define OP_INPUT(...) ::normgrad_sim::OpInputs{{__VA_ARGS__}}
#define OP_OUTPUT(...) ::normgrad_sim::OpOutputs{{__VA_ARGS__}}
#define OP_ATTR(...) ::normgrad_sim::MakeOpAttrs(__VA_ARGS__)
