// The 16-bit float storage types `half` (IEEE binary16) and `bfloat16_t` (upper half of
// binary32), bit-exact conversions, and the type traits kernels use (IsSameType, PrimT).
// On the device these are compiler built-ins in the global namespace; so are they here.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "normgrad_isa/numerics.h"

namespace sim {

// The IEEE conversions of the storage types are the shared numerics of the two front ends
// (sim/isa/include/normgrad_isa/numerics.h).
using normgrad::isa::num::Bf16ToFloat;
using normgrad::isa::num::BitsFloat;
using normgrad::isa::num::FloatBits;
using normgrad::isa::num::FloatToBf16Rne;
using normgrad::isa::num::FloatToHalfRne;
using normgrad::isa::num::HalfToFloat;

}  // namespace sim

// IEEE binary16 storage type. Arithmetic happens in float (then rounds when stored back).
struct half {
  uint16_t bits;
  half() = default;
  half(float f) : bits(sim::FloatToHalfRne(f)) {}   // NOLINT: implicit like the device type
  half(double d) : half(static_cast<float>(d)) {}   // NOLINT
  half(int i) : half(static_cast<float>(i)) {}      // NOLINT
  operator float() const { return sim::HalfToFloat(bits); }  // NOLINT
  static half FromBits(uint16_t b) {
    half h;
    h.bits = b;
    return h;
  }
};

// bfloat16 storage type. Not an arithmetic type on the vector unit (see vector.h).
struct bfloat16_t {
  uint16_t bits;
  bfloat16_t() = default;
  explicit bfloat16_t(float f) : bits(sim::FloatToBf16Rne(f)) {}
  operator float() const { return sim::Bf16ToFloat(bits); }  // NOLINT
  static bfloat16_t FromBits(uint16_t b) {
    bfloat16_t h;
    h.bits = b;
    return h;
  }
};

static_assert(sizeof(half) == 2 && std::is_trivially_copyable<half>::value, "half is a 16-bit POD");
static_assert(sizeof(bfloat16_t) == 2 && std::is_trivially_copyable<bfloat16_t>::value,
              "bfloat16_t is a 16-bit POD");

namespace AscendC {

template <class T, class U>
struct IsSameType {
  static constexpr bool value = false;
};
template <class T>
struct IsSameType<T, T> {
  static constexpr bool value = true;
};

template <typename T>
using PrimT = T;

// Legacy scalar conversions for bfloat16 (L:ToBfloat16 / L:ToFloat).
inline bfloat16_t ToBfloat16(float f) { return bfloat16_t(f); }
inline float ToFloat(bfloat16_t b) { return static_cast<float>(b); }
inline float ToFloat(half h) { return static_cast<float>(h); }

}  // namespace AscendC
