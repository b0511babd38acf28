// Simulator internals: the vector unit's arithmetic. float is IEEE single; half results are
// the exact result rounded once to half (RNE) and then saturated as in the A2/A3 default mode
// (inf -> +-65504, NaN -> 0); int16/int32 wrap. Also the rounding primitive Cast builds on.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ascendc/dtype.h"

namespace sim {
namespace vec {

// Types each API family accepts on A2/A3 (docs/hardware-rules.md §4, §6). bfloat16_t is storage only.
template <class T>
constexpr bool kIsArith = std::is_same<T, int16_t>::value || std::is_same<T, half>::value ||
                          std::is_same<T, int32_t>::value || std::is_same<T, float>::value;
template <class T>
constexpr bool kIsFloat = std::is_same<T, half>::value || std::is_same<T, float>::value;
template <class T>
constexpr bool kIsFill = std::is_same<T, int16_t>::value || std::is_same<T, uint16_t>::value ||
                         std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value ||
                         std::is_same<T, int32_t>::value || std::is_same<T, uint32_t>::value ||
                         std::is_same<T, float>::value;

constexpr uint16_t kHalfMaxBits = 0x7bff;  // 65504

inline uint32_t BitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float FloatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// All-ones when c holds: selects written as masks, because GCC turns ?: into branches here
// (and cannot if-convert the float add under -ftrapping-math), which stops vectorisation.
inline uint32_t MaskIf(bool c) { return 0u - static_cast<uint32_t>(c); }
inline uint32_t Select(bool c, uint32_t a, uint32_t b) { return (a & MaskIf(c)) | (b & ~MaskIf(c)); }

// half -> float without branches, so loops over it vectorise.
inline float HalfBitsToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t o = static_cast<uint32_t>(h & 0x7fffu) << 13;
  uint32_t exp = o & 0x0f800000u;
  uint32_t normal = o + (112u << 23);
  uint32_t special = o + (224u << 23);                                      // inf / NaN
  uint32_t sub = BitsOf(FloatOf(o + (113u << 23)) - FloatOf(113u << 23));   // subnormal, exact
  uint32_t r = Select(exp == 0x0f800000u, special, Select(exp == 0, sub, normal));
  return FloatOf(r | sign);
}

// float -> half RNE with saturation, without branches. Because float carries 24 >= 2*11 + 2
// bits, a float result of +, -, *, /, sqrt on half inputs rounded again to half equals the
// exact result rounded once (double rounding is innocuous at that width).
inline uint16_t FloatToHalfSatBits(float f) {
  uint32_t x = BitsOf(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t a = x & 0x7fffffffu;
  uint32_t normal = (a + 0xfffu + ((a >> 13) & 1u) - (112u << 23)) >> 13;  // RNE on bit 13, rebias
  // Subnormal results: adding 0.5 (ulp 2^-24) makes the FPU round at the half subnormal ulp.
  uint32_t sub = BitsOf(FloatOf(a) + 0.5f) - 0x3f000000u;
  uint32_t h = Select(a < 0x38800000u, sub, normal);
  h = Select(a >= 0x477ff000u, kHalfMaxBits, h);  // rounds to >= 65520 (or inf): saturate
  return static_cast<uint16_t>(Select(a > 0x7f800000u, 0u, h | sign));  // NaN -> 0
}

inline half HalfSat(float f) { return half::FromBits(FloatToHalfSatBits(f)); }
inline float Widen(half h) { return HalfBitsToFloat(h.bits); }

// double -> half RNE with saturation, straight from the double bits (one rounding).
inline half HalfSatD(double d) {
  if (d != d) return half::FromBits(0);
  uint64_t x;
  std::memcpy(&x, &d, 8);
  uint16_t sign = static_cast<uint16_t>((x >> 48) & 0x8000u);
  double a = std::fabs(d);
  if (a >= 65520.0) return half::FromBits(sign | kHalfMaxBits);  // rounds to inf, saturates
  uint64_t h;
  if (a < 6.103515625e-05) {  // below 2^-14: subnormal half, value = n * 2^-24
    double q = a * 16777216.0;
    double n = std::floor(q);
    double frac = q - n;
    if (frac > 0.5 || (frac == 0.5 && std::fmod(n, 2.0) != 0)) n += 1;
    h = static_cast<uint64_t>(n);  // n == 1024 is the smallest normal: the encoding carries over
  } else {
    uint64_t ax = x & 0x7fffffffffffffffull;
    uint64_t e = (ax >> 52) - 1023 + 15;
    uint64_t mant = ax & 0xfffffffffffffull;
    h = (e << 10) | (mant >> 42);
    uint64_t rem = mant & ((1ull << 42) - 1);
    uint64_t halfway = 1ull << 41;
    if (rem > halfway || (rem == halfway && (h & 1u))) ++h;
  }
  return half::FromBits(static_cast<uint16_t>(sign | h));
}

// Binary operations: F on float (IEEE single), I on int64 of the int operands (then wrapped).
struct OpAdd {
  static float F(float a, float b) { return a + b; }
  static int64_t I(int64_t a, int64_t b) { return a + b; }
};
struct OpSub {
  static float F(float a, float b) { return a - b; }
  static int64_t I(int64_t a, int64_t b) { return a - b; }
};
struct OpMul {
  static float F(float a, float b) { return a * b; }
  static int64_t I(int64_t a, int64_t b) { return a * b; }
};
struct OpDiv {
  static float F(float a, float b) { return a / b; }
};
// NaN in either operand gives NaN (the hardware rule is undocumented).
struct OpMax {
  static float F(float a, float b) { return (a > b || a != a) ? a : b; }
  static int64_t I(int64_t a, int64_t b) { return a > b ? a : b; }
};
struct OpMin {
  static float F(float a, float b) { return (a < b || a != a) ? a : b; }
  static int64_t I(int64_t a, int64_t b) { return a < b ? a : b; }
};

template <class Op>
inline float Apply2(float a, float b) { return Op::F(a, b); }
template <class Op>
inline half Apply2(half a, half b) { return HalfSat(Op::F(Widen(a), Widen(b))); }
template <class Op>
inline int32_t Apply2(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(Op::I(a, b)));
}
template <class Op>
inline int16_t Apply2(int16_t a, int16_t b) {
  return static_cast<int16_t>(static_cast<uint16_t>(Op::I(a, b)));
}

// Unary operations, evaluated in double and rounded once to the result type.
struct OpExp {
  static double D(double a) { return std::exp(a); }
};
struct OpLn {
  static double D(double a) { return std::log(a); }
};
struct OpSqrt {
  static double D(double a) { return std::sqrt(a); }
};
struct OpRsqrt {
  static double D(double a) { return 1.0 / std::sqrt(a); }
};
struct OpReciprocal {
  static double D(double a) { return 1.0 / a; }
};
struct OpAbs {
  static double D(double a) { return std::fabs(a); }
};

template <class Op>
inline float Apply1(float a) { return static_cast<float>(Op::D(a)); }
template <class Op>
inline half Apply1(half a) { return HalfSatD(Op::D(static_cast<float>(a))); }

// Rounding directions of Cast (RoundMode without NONE, which resolves to one of these).
enum class Rounding { kEven, kFloor, kCeil, kAway, kTrunc, kOdd };

// Rounds q to an integral value in direction r (q finite; exact for |q| < 2^53).
double RoundIntegral(double q, Rounding r);
// Rounds x to a binary format with p significant bits and minimum normal exponent emin
// (subnormals keep the ulp 2^(emin-p+1)); no overflow handling.
double RoundToPrecision(double x, int p, int emin, Rounding r);

}  // namespace vec
}  // namespace sim
