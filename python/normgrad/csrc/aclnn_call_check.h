// NORMGRAD_EXEC_NPU_CMD: torch_npu's EXEC_NPU_CMD with a compile-time check of its arguments
// against the aclnn declaration in this project's aclnnop/aclnn_*.h.
//
// Why: EXEC_NPU_CMD looks the two aclnn functions up by name at run time and casts the address to
// a function type it *deduces from the arguments it is given* (each argument through op-plugin's
// ConvertType, then uint64_t* workspaceSize and aclOpExecutor** executor). A missing argument, an
// `int` where the declaration says int64_t or a tensor where it says aclIntArray* therefore
// compiles, and calls the function with the wrong ABI on the device. This header computes that
// same deduced type and static_asserts, argument by argument, that it is the declared one.
//
// What it cannot see: two arguments of the same C type in the wrong order (gradInput and gamma
// are both aclTensor*). Those are checked by reading the call against the declaration.
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "op_plugin/utils/op_api_common.h"  // ConvertType, EXEC_NPU_CMD

namespace normgrad::npu_check {

// The parameter types of a declared aclnn...GetWorkspaceSize function.
template <typename F>
struct Params;
template <typename R, typename... A>
struct Params<R (*)(A...)> {
  using type = std::tuple<A...>;
};

// What EXEC_NPU_CMD makes of one argument: ConvertType's result, decayed, as its
// ConvertToOpApiFunc does when it builds the function type.
template <typename Arg>
using Converted = std::decay_t<decltype(ConvertType(std::declval<Arg&>()))>;

// A converted argument fits a declared parameter when the types are the same, or when the
// declaration only adds const to the pointee (aclTensor* passed for const aclTensor*: the same
// ABI, and the callee promises not to write). Integer widths and pointer kinds must be exact.
template <typename Passed, typename Declared>
struct Fits : std::is_same<Passed, Declared> {};
template <typename T>
struct Fits<T*, const T*> : std::true_type {};

// One instantiation per argument, so that a failure names the position (I, counted from 0 in
// the aclnn declaration) and both types in the compiler's "required from" line.
template <std::size_t I, typename Passed, typename Declared>
struct ArgumentCheck {
  static_assert(Fits<Passed, Declared>::value,
                "NORMGRAD_EXEC_NPU_CMD: argument I converts to Passed, but the aclnn declaration's "
                "parameter I is Declared");
  static constexpr bool ok = true;
};

template <typename DeclaredTuple, typename PassedTuple, std::size_t... I>
constexpr bool CheckEach(std::index_sequence<I...>) {
  return (ArgumentCheck<I, std::tuple_element_t<I, PassedTuple>, std::tuple_element_t<I, DeclaredTuple>>::ok &&
          ...);
}

template <typename DeclaredTuple, typename PassedTuple, bool SameCount>
struct CheckAll {
  static constexpr bool ok = CheckEach<DeclaredTuple, PassedTuple>(
      std::make_index_sequence<std::tuple_size_v<DeclaredTuple>>{});
};
template <typename DeclaredTuple, typename PassedTuple>
struct CheckAll<DeclaredTuple, PassedTuple, false> {
  static constexpr bool ok = false;  // the count assertion below has already said why
};

// GetWorkspaceSizeFn: decltype(&aclnnXxxGetWorkspaceSize); Args: the arguments given to
// EXEC_NPU_CMD (workspaceSize and executor are appended by the macro, as EXEC_NPU_CMD does).
template <typename GetWorkspaceSizeFn, typename... Args>
constexpr bool ArgumentsMatch() {
  using Declared = typename Params<GetWorkspaceSizeFn>::type;
  using Passed = std::tuple<Converted<Args>..., uint64_t*, aclOpExecutor**>;
  constexpr bool same_count = std::tuple_size_v<Declared> == std::tuple_size_v<Passed>;
  static_assert(same_count,
                "NORMGRAD_EXEC_NPU_CMD: the number of arguments (plus workspaceSize and executor) differs "
                "from the aclnn declaration's");
  return CheckAll<Declared, Passed, same_count>::ok;
}

// The argument types of a call, for decltype only (never defined, never called): a kernel's
// arguments are references, which C++17 does not let a constant expression name.
template <typename... Args>
struct TypeList {};
template <typename... Args>
TypeList<Args...> TypesOf(const Args&...);

template <typename GetWorkspaceSizeFn, typename... Args>
constexpr bool ArgumentsMatchList(TypeList<Args...>) {
  return ArgumentsMatch<GetWorkspaceSizeFn, Args...>();
}

}  // namespace normgrad::npu_check

// The declaration must be visible (#include "aclnnop/aclnn_<op>.h"); decltype does not odr-use
// it, so nothing links against the symbol: EXEC_NPU_CMD still finds it at run time.
#define NORMGRAD_EXEC_NPU_CMD(aclnn_api, ...)                                                             \
  do {                                                                                                    \
    static_assert(normgrad::npu_check::ArgumentsMatchList<decltype(&aclnn_api##GetWorkspaceSize)>(     \
                      decltype(normgrad::npu_check::TypesOf(__VA_ARGS__)){}),                             \
                  "NORMGRAD_EXEC_NPU_CMD(" #aclnn_api ", ...): arguments do not match the declaration");  \
    EXEC_NPU_CMD(aclnn_api, __VA_ARGS__);                                                                 \
  } while (false)
