// Rounding helpers every tiling uses. Host only.
#pragma once
#include <cstdint>
#include <type_traits>

namespace normgrad {

// Both compute in 64 bits: signed when both operands are signed (BatchNorm's int64_t shapes),
// unsigned otherwise, whatever the width of either operand.
template <typename A, typename B>
using TilingInt = std::conditional_t<std::is_signed_v<A> && std::is_signed_v<B>, int64_t, uint64_t>;

// ceil(a / b) for a >= 0, b > 0.
template <typename A, typename B>
constexpr TilingInt<A, B> CeilDiv(A a, B b) {
  using T = TilingInt<A, B>;
  return (static_cast<T>(a) + static_cast<T>(b) - 1) / static_cast<T>(b);
}
// v rounded up to a multiple of a.
template <typename A, typename B>
constexpr TilingInt<A, B> AlignUp(A v, B a) {
  return CeilDiv(v, a) * static_cast<TilingInt<A, B>>(a);
}

}  // namespace normgrad
