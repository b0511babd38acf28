// opdev/op_dfx.h (CANN nnopbase), the part level-2 and level-0 code uses. L2_DFX_PHASE_1 does
// what CANN's does (checks workspaceSize and executor, 161001 when null; opens the API's
// context) plus the checks the simulator adds to the C API (docs/sim.md, "Misuse of the C API"):
// every tensor and array argument that is not null must be a live handle whose storage is still
// the allocation it was made on, else 161002 naming the argument. L2_DFX_PHASE_2 opens the
// execute phase's context; L0_DFX records nothing.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "aclnn/acl_meta.h"
#include "opdev/op_errno.h"

namespace normgrad_sim {

struct DfxArg {
  const void* handle;
  int kind;  // 0 aclTensor, 1 aclIntArray, 2 aclBoolArray, -1 not a handle
};
template <typename T>
DfxArg DfxArgOf(const T& v) {
  using P = std::remove_cv_t<std::remove_pointer_t<std::decay_t<T>>>;
  if constexpr (!std::is_pointer_v<std::decay_t<T>>) {
    return DfxArg{nullptr, -1};
  } else if constexpr (std::is_same_v<P, aclTensor>) {
    return DfxArg{v, 0};
  } else if constexpr (std::is_same_v<P, aclIntArray>) {
    return DfxArg{v, 1};
  } else if constexpr (std::is_same_v<P, aclBoolArray>) {
    return DfxArg{v, 2};
  } else {
    return DfxArg{nullptr, -1};
  }
}
template <typename... T>
std::array<DfxArg, sizeof...(T)> DfxArgs(const std::tuple<T...>& t) noexcept {
  return std::apply([](const auto&... v) { return std::array<DfxArg, sizeof...(T)>{DfxArgOf(v)...}; }, t);
}

// names: the macro text "DFX_IN(a, b, ...)"; the arguments in the same order. Never throws.
aclnnStatus L2Phase1(const char* api, void* workspaceSize, void* executor, const char* inNames, const DfxArg* in,
                     size_t inCount, const char* outNames, const DfxArg* out, size_t outCount) noexcept;
template <size_t NIn, size_t NOut>
aclnnStatus L2Phase1(const char* api, void* workspaceSize, void* executor, const char* inNames,
                     const std::array<DfxArg, NIn>& in, const char* outNames,
                     const std::array<DfxArg, NOut>& out) noexcept {
  return L2Phase1(api, workspaceSize, executor, inNames, in.data(), NIn, outNames, out.data(), NOut);
}
void L2Phase2(const char* api) noexcept;

constexpr bool SameName(const char* a, const char* b) {
  return *a == *b && (*a == '\0' || SameName(a + 1, b + 1));
}

}  // namespace normgrad_sim

#define DFX_IN(...) std::make_tuple(__VA_ARGS__)
#define DFX_OUT(...) std::make_tuple(__VA_ARGS__)
#define OP_TYPE_REGISTER(kernelName) \
  [[maybe_unused]] inline uint32_t kernelName##OpTypeId() { return 0; }
#define L2_DFX_PHASE_1(APIName, IN, OUT)                                                                       \
  static_assert(::normgrad_sim::SameName(#APIName "GetWorkspaceSize", __func__),                              \
                "Invalid DFX:" #APIName "GetWorkspaceSize");                                                  \
  if (aclnnStatus dfxStatus_ = ::normgrad_sim::L2Phase1(#APIName, workspaceSize, executor, #IN,               \
                                                        ::normgrad_sim::DfxArgs(IN), #OUT,                    \
                                                        ::normgrad_sim::DfxArgs(OUT))) {                      \
    return dfxStatus_;                                                                                        \
  }
#define L2_DFX_PHASE_2(APIName)                                                                \
  static_assert(::normgrad_sim::SameName(#APIName, __func__), "Invalid L2 DFX name: " #APIName); \
  ::normgrad_sim::L2Phase2(#APIName)
#define L0_DFX(profilingName, ...) \
  do {                             \
  } while (false)
