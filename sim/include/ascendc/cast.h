// Cast between storage types with the documented round modes and the legal cast matrix
// (docs/hardware-rules.md §6). T = destination, U = source. Every mode is bit-exact; results
// that overflow saturate (half/bf16 to +-max with NaN -> 0, integers to their range).
#pragma once
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ascendc/core.h"
#include "ascendc/isa_issue.h"
#include "ascendc/tensor.h"
#include "ascendc/vec_engine.h"
#include "ascendc/vec_numerics.h"
#include "ascendc/vector_params.h"
#include "ascendc/vector_run.h"

namespace AscendC {

enum class RoundMode { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD, CAST_HYBRID };

}  // namespace AscendC

namespace sim {
namespace vec {

enum class TypeCode { kHalf, kBf16, kFloat, kInt8, kUint8, kInt16, kInt32, kInt64, kOther };

template <class T>
constexpr TypeCode CodeOf() {
  return std::is_same<T, half>::value         ? TypeCode::kHalf
         : std::is_same<T, bfloat16_t>::value ? TypeCode::kBf16
         : std::is_same<T, float>::value      ? TypeCode::kFloat
         : std::is_same<T, int8_t>::value     ? TypeCode::kInt8
         : std::is_same<T, uint8_t>::value    ? TypeCode::kUint8
         : std::is_same<T, int16_t>::value    ? TypeCode::kInt16
         : std::is_same<T, int32_t>::value    ? TypeCode::kInt32
         : std::is_same<T, int64_t>::value    ? TypeCode::kInt64
                                              : TypeCode::kOther;
}

// The rounding a (dst <- src, mode) cast performs on the current SoC; fails naming the pair
// and mode when the device does not support it. CAST_NONE resolves to round-half-even.
Rounding ResolveCast(TypeCode dst, TypeCode src, AscendC::RoundMode mode);

// Scalar conversions of one lane (out of line: the slow, general paths).
float ToFloat(double x, Rounding r, bool integralResult);
float Int64ToFloat(int64_t v, Rounding r);
half ToHalf(double x, Rounding r);
bfloat16_t ToBf16(double x, Rounding r);
// Rounds to an integer in direction r and saturates to [lo, hi]; NaN gives 0.
int64_t ToInt(double x, Rounding r, int64_t lo, int64_t hi);

// float -> bfloat16, round-half-even, saturating (infinities and overflow give +-max, NaN gives
// 0). Selects instead of branches so the count-form Cast loop vectorises; for non-NaN x the sum
// cannot carry out of 32 bits (the largest is -inf, 0xff800000, plus 0x8000).
inline bfloat16_t Bf16SatRne(float f) { return bfloat16_t::FromBits(normgrad::isa::num::Bf16SatRneBits(f)); }

template <class U>
inline double ToDouble(U v) {
  return static_cast<double>(static_cast<float>(v));
}
template <>
inline double ToDouble<int32_t>(int32_t v) { return v; }
template <>
inline double ToDouble<int16_t>(int16_t v) { return v; }
template <>
inline double ToDouble<int8_t>(int8_t v) { return v; }
template <>
inline double ToDouble<uint8_t>(uint8_t v) { return v; }

// One lane of a (T <- U) cast with rounding r (already checked legal).
template <class T, class U>
inline T CastLane(U v, Rounding r) {
  if constexpr (std::is_same<U, int64_t>::value) {
    if constexpr (std::is_same<T, float>::value) return Int64ToFloat(v, r);
    if constexpr (std::is_integral<T>::value) {
      return static_cast<T>(v < std::numeric_limits<T>::min()   ? std::numeric_limits<T>::min()
                            : v > std::numeric_limits<T>::max() ? std::numeric_limits<T>::max()
                                                                : v);
    }
    return T();
  } else {
    if constexpr (std::is_same<T, float>::value) {
      if constexpr (std::is_same<U, half>::value) return Widen(v);
      if constexpr (std::is_same<U, bfloat16_t>::value) return static_cast<float>(v);
      return ToFloat(ToDouble(v), r, std::is_same<U, float>::value);
    } else if constexpr (std::is_same<T, half>::value) {
      if constexpr (std::is_same<U, float>::value) {
        if (r == Rounding::kEven) return HalfSat(v);
      }
      return ToHalf(ToDouble(v), r);
    } else if constexpr (std::is_same<T, bfloat16_t>::value) {
      if constexpr (std::is_same<U, float>::value) {
        if (r == Rounding::kEven) return Bf16SatRne(v);
      }
      return ToBf16(ToDouble(v), r);
    } else if constexpr (std::is_integral<T>::value) {
      return static_cast<T>(ToInt(ToDouble(v), r, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    } else {
      return T();
    }
  }
}

// CastLane for round-half-even, with the hot pairs free of runtime branches so loops vectorise.
template <class T, class U>
inline T CastLaneEven(U v) {
  if constexpr (std::is_same<T, half>::value && std::is_same<U, float>::value) return HalfSat(v);
  if constexpr (std::is_same<T, bfloat16_t>::value && std::is_same<U, float>::value) return Bf16SatRne(v);
  if constexpr (std::is_same<T, float>::value && std::is_same<U, half>::value) return Widen(v);
  return CastLane<T, U>(v, Rounding::kEven);
}

// Conversions the instruction-level model has (vconv_f162f32, vconv_bf162f32, vconv_f322f16*,
// vconv_f322bf16*) are issued to it; the others run their lanes here.
template <class T, class U>
constexpr bool kModelConverts =
    (std::is_same<T, float>::value && (std::is_same<U, half>::value || std::is_same<U, bfloat16_t>::value)) ||
    ((std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value) && std::is_same<U, float>::value);

inline normgrad::isa::Round ModelRound(Rounding r) {
  switch (r) {
    case Rounding::kFloor: return normgrad::isa::Round::kFloor;
    case Rounding::kCeil: return normgrad::isa::Round::kCeil;
    case Rounding::kAway: return normgrad::isa::Round::kAway;
    case Rounding::kTrunc: return normgrad::isa::Round::kTrunc;
    case Rounding::kOdd: return normgrad::isa::Round::kOdd;
    default: return normgrad::isa::Round::kRint;
  }
}

// The instruction of a Cast from U to T rounding by r.
template <class T, class U>
auto CastOp(Rounding r) {
  if constexpr (kModelConverts<T, U>) {
    return ConvInstr{"vconv", ElemOf<T>(), ElemOf<U>(), ModelRound(r)};
  } else if constexpr (std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value) {
    return [r](U v, T) { return r == Rounding::kEven ? CastLaneEven<T, U>(v) : CastLane<T, U>(v, r); };
  } else {
    return [r](U v, T) { return CastLane<T, U>(v, r); };
  }
}

template <class T, class U>
constexpr Overlap CastOverlap() { return sizeof(T) < sizeof(U) ? Overlap::kNarrowInPlace : Overlap::kExact; }

}  // namespace vec
}  // namespace sim

namespace AscendC {

template <typename T, typename U>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, const uint32_t count) {
  sim::vec::Rounding r = sim::vec::ResolveCast(sim::vec::CodeOf<T>(), sim::vec::CodeOf<U>(), roundMode);
  sim::vec::UnaryCount<T, U>("Cast", sim::OpClass::kCast, dst, src, count, sim::vec::CastOverlap<T, U>(),
                             sim::vec::CastOp<T, U>(r));
}
template <typename T, typename U, bool isSetMask = true>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                 const uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {
  sim::vec::Rounding r = sim::vec::ResolveCast(sim::vec::CodeOf<T>(), sim::vec::CodeOf<U>(), roundMode);
  uint32_t lanes = sim::vec::LanesFor(sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
  sim::vec::UnaryL0<T, U>("Cast", sim::OpClass::kCast, dst, src,
                          sim::vec::PlanBitwise("Cast", lanes, mask, repeatTime, isSetMask), repeatParams,
                          sim::vec::CastOverlap<T, U>(), sim::vec::CastOp<T, U>(r));
}
template <typename T, typename U, bool isSetMask = true>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, const uint64_t mask,
                 const uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {
  sim::vec::Rounding r = sim::vec::ResolveCast(sim::vec::CodeOf<T>(), sim::vec::CodeOf<U>(), roundMode);
  uint32_t lanes = sim::vec::LanesFor(sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
  sim::vec::UnaryL0<T, U>("Cast", sim::OpClass::kCast, dst, src,
                          sim::vec::PlanContinuous("Cast", lanes, static_cast<int64_t>(mask), repeatTime, isSetMask),
                          repeatParams, sim::vec::CastOverlap<T, U>(), sim::vec::CastOp<T, U>(r));
}

}  // namespace AscendC
