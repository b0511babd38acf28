// The 16-bit float storage types `half` (IEEE binary16) and `bfloat16_t` (upper half of
// binary32), bit-exact conversions, and the type traits kernels use (IsSameType, PrimT).
// On the device these are compiler built-ins in the global namespace; so are they here.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace sim {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// binary32 -> binary16, round to nearest even, IEEE overflow to inf, NaN kept quiet.
inline uint16_t FloatToHalfRne(float f) {
  uint32_t x = FloatBits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) {  // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
  }
  if (absx >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520
  if (absx < 0x38800000u) {  // result is subnormal in half (|f| < 2^-14)
    if (absx < 0x33000000u) return static_cast<uint16_t>(sign);  // < 2^-25 rounds to 0
    uint32_t mant = (absx & 0x7fffffu) | 0x800000u;
    int shift = 126 - static_cast<int>(absx >> 23);  // value = mant * 2^-shift * 2^-24, shift in [14, 24]
    uint32_t half_mant = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++half_mant;
    return static_cast<uint16_t>(sign | half_mant);
  }
  uint32_t e = (absx >> 23) - 112;  // rebias 127 -> 15
  uint32_t mant = absx & 0x7fffffu;
  uint32_t h = (e << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // carry may roll into exponent: correct
  return static_cast<uint16_t>(sign | h);
}

inline float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu;
  uint32_t m = h & 0x3ffu;
  if (e == 0x1f) return BitsFloat(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    if (m == 0) return BitsFloat(sign);
    // subnormal: m * 2^-24
    float v = static_cast<float>(m) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return BitsFloat(sign | ((e + 112) << 23) | (m << 13));
}

// binary32 -> bfloat16, round to nearest even; NaN kept quiet.
inline uint16_t FloatToBf16Rne(float f) {
  uint32_t x = FloatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return static_cast<uint16_t>(x >> 16);
}
inline float Bf16ToFloat(uint16_t b) { return BitsFloat(static_cast<uint32_t>(b) << 16); }

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
