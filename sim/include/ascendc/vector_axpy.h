// Axpy: dst = scalarValue * src + dst, for (dst, src) in {(half, half), (float, float), (float, half)}
// (docs/hardware-rules.md §4; asc-devkit's Axpy documentation), each issued to the model as vaxpy.
// half -> float runs 64 lanes per repeat and forbids any src/dst overlap.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ascendc/isa_issue.h"
#include "ascendc/tensor.h"
#include "ascendc/vec_engine.h"
#include "ascendc/vec_numerics.h"
#include "ascendc/vector_params.h"
#include "ascendc/vector_run.h"

namespace sim {
namespace vec {

template <class T, class U>
constexpr bool kIsAxpyPair = (std::is_same<T, half>::value && std::is_same<U, half>::value) ||
                             (std::is_same<T, float>::value && std::is_same<U, float>::value) ||
                             (std::is_same<T, float>::value && std::is_same<U, half>::value);

// The mixed half -> float vaxpy (a half src, a float dst; normgrad_isa/model.h VecAxpyF16F32).
struct MixedAxpyInstr {
  static constexpr bool kModel = true;
  uint64_t scalarBits;
  void Issue(uint8_t* dst, const uint8_t* src, const normgrad::isa::VecStrides& s) const {
    normgrad::isa::VecAxpyF16F32(dst, src, scalarBits, s);
  }
};

// The instruction CANN's Axpy issues: vaxpy on the model, same-type or mixed.
template <class T, class U>
auto AxpyOp(const U& scalarValue) {
  if constexpr (std::is_same<T, U>::value) {
    return ScalarInstr{"vaxpy", normgrad::isa::ScalarOp::kAxpy, ElemOf<T>(), ScalarBits(scalarValue)};
  } else {
    return MixedAxpyInstr{ScalarBits(scalarValue)};
  }
}

template <class T, class U>
constexpr Overlap AxpyOverlap() { return sizeof(T) == sizeof(U) ? Overlap::kExact : Overlap::kNone; }

}  // namespace vec
}  // namespace sim

namespace AscendC {

template <typename T, typename U>
inline std::enable_if_t<sim::vec::kIsAxpyPair<T, U>> Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src,
                                                           const U& scalarValue, const int32_t& count) {
  sim::vec::UnaryCount<T, U>("Axpy", sim::OpClass::kElementwise, dst, src, count, sim::vec::AxpyOverlap<T, U>(),
                             sim::vec::AxpyOp<T, U>(scalarValue));
}
template <typename T, typename U, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsAxpyPair<T, U>> Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src,
                                                           const U& scalarValue, uint64_t mask[],
                                                           const uint8_t repeatTime,
                                                           const UnaryRepeatParams& repeatParams) {
  uint32_t lanes = sim::vec::LanesFor(sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
  sim::vec::UnaryL0<T, U>("Axpy", sim::OpClass::kElementwise, dst, src,
                          sim::vec::PlanBitwise("Axpy", lanes, mask, repeatTime, isSetMask), repeatParams,
                          sim::vec::AxpyOverlap<T, U>(),
                          sim::vec::AxpyOp<T, U>(scalarValue));
}
template <typename T, typename U, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsAxpyPair<T, U>> Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src,
                                                           const U& scalarValue, uint64_t mask,
                                                           const uint8_t repeatTime,
                                                           const UnaryRepeatParams& repeatParams) {
  uint32_t lanes = sim::vec::LanesFor(sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
  sim::vec::UnaryL0<T, U>("Axpy", sim::OpClass::kElementwise, dst, src,
                          sim::vec::PlanContinuous("Axpy", lanes, static_cast<int64_t>(mask), repeatTime, isSetMask),
                          repeatParams, sim::vec::AxpyOverlap<T, U>(),
                          sim::vec::AxpyOp<T, U>(scalarValue));
}

}  // namespace AscendC
