// Cast between storage types with the documented round modes and the legal cast matrix
// (docs/hardware-rules.md §6), issued to the instruction model as one vconv. T = destination, U = source.
// Every mode is bit-exact; results that overflow saturate (half/bf16 to +-max with NaN -> 0, integers to
// their range).
#pragma once
#include <cstdint>
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

// The instruction of a Cast from U to T rounding by r: the vconv_<from>2<to><suffix> CANN's CastIntrinsicsImpl
// issues for the pair and mode (every pair ResolveCast accepts is one instruction on the model).
template <class T, class U>
ConvInstr CastOp(Rounding r) {
  return ConvInstr{"vconv", ElemOf<T>(), ElemOf<U>(), ModelRound(r)};
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
