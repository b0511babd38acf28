// Element-wise vector instructions: Add..Min, Adds..Mins, Exp..Abs, Axpy, Duplicate, Brcb, in the
// count form and both level-0 mask forms (docs/hardware-rules.md §4). bfloat16_t arithmetic
// does not compile, as on the device: the overloads are constrained away (SFINAE on the return
// type), so a detection trait sees them missing. Every function forwards to a runner in
// vector_run.h; the three forms of each API differ only in how the lanes are chosen.
#pragma once
#include <cstdint>
#include <type_traits>

#include "ascendc/core.h"
#include "ascendc/isa_issue.h"
#include "ascendc/mask.h"
#include "ascendc/tensor.h"
#include "ascendc/vec_engine.h"
#include "ascendc/vec_numerics.h"
#include "ascendc/vector_params.h"
#include "ascendc/vector_run.h"
#include "ascendc/vector_axpy.h"
#include "ascendc/vector_fill.h"
#include "ascendc/vector_mul_add.h"

namespace AscendC {

// ---- dst = src0 op src1 ----

template <typename T>
inline std::enable_if_t<sim::vec::kIsArith<T>> Add(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, const int32_t& count) {
  sim::vec::BinaryCount<sim::vec::OpAdd>("Add", dst, src0, src1, count);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Add(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, uint64_t mask[],
                                                    const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  sim::vec::BinaryL0<sim::vec::OpAdd>("Add", dst, src0, src1,
      sim::vec::PlanBitwise("Add", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatParams);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Add(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, uint64_t mask,
                                                    const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  sim::vec::BinaryL0<sim::vec::OpAdd>("Add", dst, src0, src1,
      sim::vec::PlanContinuous("Add", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask), repeatTime,
                               isSetMask),
      repeatParams);
}

template <typename T>
inline std::enable_if_t<sim::vec::kIsArith<T>> Sub(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, const int32_t& count) {
  sim::vec::BinaryCount<sim::vec::OpSub>("Sub", dst, src0, src1, count);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Sub(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, uint64_t mask[],
                                                    const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  sim::vec::BinaryL0<sim::vec::OpSub>("Sub", dst, src0, src1,
      sim::vec::PlanBitwise("Sub", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatParams);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Sub(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, uint64_t mask,
                                                    const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  sim::vec::BinaryL0<sim::vec::OpSub>("Sub", dst, src0, src1,
      sim::vec::PlanContinuous("Sub", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask), repeatTime,
                               isSetMask),
      repeatParams);
}

template <typename T>
inline std::enable_if_t<sim::vec::kIsArith<T>> Mul(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, const int32_t& count) {
  sim::vec::BinaryCount<sim::vec::OpMul>("Mul", dst, src0, src1, count);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Mul(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, uint64_t mask[],
                                                    const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  sim::vec::BinaryL0<sim::vec::OpMul>("Mul", dst, src0, src1,
      sim::vec::PlanBitwise("Mul", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatParams);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Mul(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, uint64_t mask,
                                                    const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  sim::vec::BinaryL0<sim::vec::OpMul>("Mul", dst, src0, src1,
      sim::vec::PlanContinuous("Mul", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask), repeatTime,
                               isSetMask),
      repeatParams);
}

template <typename T>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Div(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, const int32_t& count) {
  sim::vec::BinaryCount<sim::vec::OpDiv>("Div", dst, src0, src1, count);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Div(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, uint64_t mask[],
                                                    const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  sim::vec::BinaryL0<sim::vec::OpDiv>("Div", dst, src0, src1,
      sim::vec::PlanBitwise("Div", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatParams);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Div(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, uint64_t mask,
                                                    const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  sim::vec::BinaryL0<sim::vec::OpDiv>("Div", dst, src0, src1,
      sim::vec::PlanContinuous("Div", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask), repeatTime,
                               isSetMask),
      repeatParams);
}

template <typename T>
inline std::enable_if_t<sim::vec::kIsArith<T>> Max(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, const int32_t& count) {
  sim::vec::BinaryCount<sim::vec::OpMax>("Max", dst, src0, src1, count);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Max(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, uint64_t mask[],
                                                    const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  sim::vec::BinaryL0<sim::vec::OpMax>("Max", dst, src0, src1,
      sim::vec::PlanBitwise("Max", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatParams);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Max(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, uint64_t mask,
                                                    const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  sim::vec::BinaryL0<sim::vec::OpMax>("Max", dst, src0, src1,
      sim::vec::PlanContinuous("Max", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask), repeatTime,
                               isSetMask),
      repeatParams);
}

template <typename T>
inline std::enable_if_t<sim::vec::kIsArith<T>> Min(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, const int32_t& count) {
  sim::vec::BinaryCount<sim::vec::OpMin>("Min", dst, src0, src1, count);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Min(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, uint64_t mask[],
                                                    const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  sim::vec::BinaryL0<sim::vec::OpMin>("Min", dst, src0, src1,
      sim::vec::PlanBitwise("Min", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatParams);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Min(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                    const LocalTensor<T>& src1, uint64_t mask,
                                                    const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  sim::vec::BinaryL0<sim::vec::OpMin>("Min", dst, src0, src1,
      sim::vec::PlanContinuous("Min", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask), repeatTime,
                               isSetMask),
      repeatParams);
}

// ---- dst = src op scalarValue ----

template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Adds(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const T& scalarValue, const int32_t& count) {
  auto fn = sim::vec::ScalarInstr{"vadds", normgrad::isa::ScalarOp::kAdds, sim::vec::ElemOf<T>(), sim::vec::ScalarBits(scalarValue)};
  if (isSetMask) {
    sim::vec::UnaryCount<T, T>("Adds", sim::OpClass::kElementwise, dst, src, count, sim::vec::Overlap::kExact, fn);
  } else {
    sim::vec::UnaryRegister<T, T>("Adds", sim::OpClass::kElementwise, dst, src, sim::vec::Overlap::kExact, fn);
  }
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Adds(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const T& scalarValue, uint64_t mask[], const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Adds", sim::OpClass::kElementwise, dst, src,
      sim::vec::PlanBitwise("Adds", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatParams,
      sim::vec::Overlap::kExact, sim::vec::ScalarInstr{"vadds", normgrad::isa::ScalarOp::kAdds, sim::vec::ElemOf<T>(), sim::vec::ScalarBits(scalarValue)});
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Adds(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const T& scalarValue, uint64_t mask, const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Adds", sim::OpClass::kElementwise, dst, src,
      sim::vec::PlanContinuous("Adds", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask), repeatTime,
                               isSetMask),
      repeatParams, sim::vec::Overlap::kExact, sim::vec::ScalarInstr{"vadds", normgrad::isa::ScalarOp::kAdds, sim::vec::ElemOf<T>(), sim::vec::ScalarBits(scalarValue)});
}

template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Muls(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const T& scalarValue, const int32_t& count) {
  auto fn = sim::vec::ScalarInstr{"vmuls", normgrad::isa::ScalarOp::kMuls, sim::vec::ElemOf<T>(), sim::vec::ScalarBits(scalarValue)};
  if (isSetMask) {
    sim::vec::UnaryCount<T, T>("Muls", sim::OpClass::kElementwise, dst, src, count, sim::vec::Overlap::kExact, fn);
  } else {
    sim::vec::UnaryRegister<T, T>("Muls", sim::OpClass::kElementwise, dst, src, sim::vec::Overlap::kExact, fn);
  }
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Muls(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const T& scalarValue, uint64_t mask[], const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Muls", sim::OpClass::kElementwise, dst, src,
      sim::vec::PlanBitwise("Muls", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatParams,
      sim::vec::Overlap::kExact, sim::vec::ScalarInstr{"vmuls", normgrad::isa::ScalarOp::kMuls, sim::vec::ElemOf<T>(), sim::vec::ScalarBits(scalarValue)});
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Muls(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const T& scalarValue, uint64_t mask, const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Muls", sim::OpClass::kElementwise, dst, src,
      sim::vec::PlanContinuous("Muls", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask), repeatTime,
                               isSetMask),
      repeatParams, sim::vec::Overlap::kExact, sim::vec::ScalarInstr{"vmuls", normgrad::isa::ScalarOp::kMuls, sim::vec::ElemOf<T>(), sim::vec::ScalarBits(scalarValue)});
}

template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Maxs(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const T& scalarValue, const int32_t& count) {
  auto fn = sim::vec::ScalarInstr{"vmaxs", normgrad::isa::ScalarOp::kMaxs, sim::vec::ElemOf<T>(), sim::vec::ScalarBits(scalarValue)};
  if (isSetMask) {
    sim::vec::UnaryCount<T, T>("Maxs", sim::OpClass::kElementwise, dst, src, count, sim::vec::Overlap::kExact, fn);
  } else {
    sim::vec::UnaryRegister<T, T>("Maxs", sim::OpClass::kElementwise, dst, src, sim::vec::Overlap::kExact, fn);
  }
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Maxs(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const T& scalarValue, uint64_t mask[], const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Maxs", sim::OpClass::kElementwise, dst, src,
      sim::vec::PlanBitwise("Maxs", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatParams,
      sim::vec::Overlap::kExact, sim::vec::ScalarInstr{"vmaxs", normgrad::isa::ScalarOp::kMaxs, sim::vec::ElemOf<T>(), sim::vec::ScalarBits(scalarValue)});
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Maxs(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const T& scalarValue, uint64_t mask, const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Maxs", sim::OpClass::kElementwise, dst, src,
      sim::vec::PlanContinuous("Maxs", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask), repeatTime,
                               isSetMask),
      repeatParams, sim::vec::Overlap::kExact, sim::vec::ScalarInstr{"vmaxs", normgrad::isa::ScalarOp::kMaxs, sim::vec::ElemOf<T>(), sim::vec::ScalarBits(scalarValue)});
}

template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Mins(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const T& scalarValue, const int32_t& count) {
  auto fn = sim::vec::ScalarInstr{"vmins", normgrad::isa::ScalarOp::kMins, sim::vec::ElemOf<T>(), sim::vec::ScalarBits(scalarValue)};
  if (isSetMask) {
    sim::vec::UnaryCount<T, T>("Mins", sim::OpClass::kElementwise, dst, src, count, sim::vec::Overlap::kExact, fn);
  } else {
    sim::vec::UnaryRegister<T, T>("Mins", sim::OpClass::kElementwise, dst, src, sim::vec::Overlap::kExact, fn);
  }
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Mins(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const T& scalarValue, uint64_t mask[], const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Mins", sim::OpClass::kElementwise, dst, src,
      sim::vec::PlanBitwise("Mins", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatParams,
      sim::vec::Overlap::kExact, sim::vec::ScalarInstr{"vmins", normgrad::isa::ScalarOp::kMins, sim::vec::ElemOf<T>(), sim::vec::ScalarBits(scalarValue)});
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsArith<T>> Mins(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const T& scalarValue, uint64_t mask, const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Mins", sim::OpClass::kElementwise, dst, src,
      sim::vec::PlanContinuous("Mins", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask), repeatTime,
                               isSetMask),
      repeatParams, sim::vec::Overlap::kExact, sim::vec::ScalarInstr{"vmins", normgrad::isa::ScalarOp::kMins, sim::vec::ElemOf<T>(), sim::vec::ScalarBits(scalarValue)});
}

// ---- dst = f(src) ----

template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const int32_t& count) {
  if (isSetMask) {
    sim::vec::UnaryCount<T, T>("Exp", sim::OpClass::kTranscendental, dst, src, count, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vexp", normgrad::isa::UnaryOp::kExp, sim::vec::ElemOf<T>()});
  } else {
    sim::vec::UnaryRegister<T, T>("Exp", sim::OpClass::kTranscendental, dst, src, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vexp", normgrad::isa::UnaryOp::kExp, sim::vec::ElemOf<T>()});
  }
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        uint64_t mask[], const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Exp", sim::OpClass::kTranscendental, dst, src,
      sim::vec::PlanBitwise("Exp", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatParams,
      sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vexp", normgrad::isa::UnaryOp::kExp, sim::vec::ElemOf<T>()});
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        uint64_t mask, const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Exp", sim::OpClass::kTranscendental, dst, src,
      sim::vec::PlanContinuous("Exp", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask), repeatTime,
                               isSetMask),
      repeatParams, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vexp", normgrad::isa::UnaryOp::kExp, sim::vec::ElemOf<T>()});
}

template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Ln(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const int32_t& count) {
  if (isSetMask) {
    sim::vec::UnaryCount<T, T>("Ln", sim::OpClass::kTranscendental, dst, src, count, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vln", normgrad::isa::UnaryOp::kLn, sim::vec::ElemOf<T>()});
  } else {
    sim::vec::UnaryRegister<T, T>("Ln", sim::OpClass::kTranscendental, dst, src, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vln", normgrad::isa::UnaryOp::kLn, sim::vec::ElemOf<T>()});
  }
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Ln(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        uint64_t mask[], const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Ln", sim::OpClass::kTranscendental, dst, src,
      sim::vec::PlanBitwise("Ln", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatParams,
      sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vln", normgrad::isa::UnaryOp::kLn, sim::vec::ElemOf<T>()});
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Ln(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        uint64_t mask, const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Ln", sim::OpClass::kTranscendental, dst, src,
      sim::vec::PlanContinuous("Ln", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask), repeatTime,
                               isSetMask),
      repeatParams, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vln", normgrad::isa::UnaryOp::kLn, sim::vec::ElemOf<T>()});
}

template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Abs(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const int32_t& count) {
  if (isSetMask) {
    sim::vec::UnaryCount<T, T>("Abs", sim::OpClass::kElementwise, dst, src, count, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vabs", normgrad::isa::UnaryOp::kAbs, sim::vec::ElemOf<T>()});
  } else {
    sim::vec::UnaryRegister<T, T>("Abs", sim::OpClass::kElementwise, dst, src, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vabs", normgrad::isa::UnaryOp::kAbs, sim::vec::ElemOf<T>()});
  }
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Abs(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        uint64_t mask[], const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Abs", sim::OpClass::kElementwise, dst, src,
      sim::vec::PlanBitwise("Abs", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatParams,
      sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vabs", normgrad::isa::UnaryOp::kAbs, sim::vec::ElemOf<T>()});
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Abs(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        uint64_t mask, const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Abs", sim::OpClass::kElementwise, dst, src,
      sim::vec::PlanContinuous("Abs", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask), repeatTime,
                               isSetMask),
      repeatParams, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vabs", normgrad::isa::UnaryOp::kAbs, sim::vec::ElemOf<T>()});
}

template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Sqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const int32_t& count) {
  if (isSetMask) {
    sim::vec::UnaryCount<T, T>("Sqrt", sim::OpClass::kTranscendental, dst, src, count, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vsqrt", normgrad::isa::UnaryOp::kSqrt, sim::vec::ElemOf<T>()});
  } else {
    sim::vec::UnaryRegister<T, T>("Sqrt", sim::OpClass::kTranscendental, dst, src, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vsqrt", normgrad::isa::UnaryOp::kSqrt, sim::vec::ElemOf<T>()});
  }
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Sqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        uint64_t mask[], const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Sqrt", sim::OpClass::kTranscendental, dst, src,
      sim::vec::PlanBitwise("Sqrt", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatParams,
      sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vsqrt", normgrad::isa::UnaryOp::kSqrt, sim::vec::ElemOf<T>()});
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Sqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        uint64_t mask, const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Sqrt", sim::OpClass::kTranscendental, dst, src,
      sim::vec::PlanContinuous("Sqrt", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask), repeatTime,
                               isSetMask),
      repeatParams, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vsqrt", normgrad::isa::UnaryOp::kSqrt, sim::vec::ElemOf<T>()});
}

template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Rsqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const int32_t& count) {
  if (isSetMask) {
    sim::vec::UnaryCount<T, T>("Rsqrt", sim::OpClass::kTranscendental, dst, src, count, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vrsqrt", normgrad::isa::UnaryOp::kRsqrt, sim::vec::ElemOf<T>()});
  } else {
    sim::vec::UnaryRegister<T, T>("Rsqrt", sim::OpClass::kTranscendental, dst, src, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vrsqrt", normgrad::isa::UnaryOp::kRsqrt, sim::vec::ElemOf<T>()});
  }
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Rsqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        uint64_t mask[], const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Rsqrt", sim::OpClass::kTranscendental, dst, src,
      sim::vec::PlanBitwise("Rsqrt", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatParams,
      sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vrsqrt", normgrad::isa::UnaryOp::kRsqrt, sim::vec::ElemOf<T>()});
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Rsqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        uint64_t mask, const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Rsqrt", sim::OpClass::kTranscendental, dst, src,
      sim::vec::PlanContinuous("Rsqrt", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask), repeatTime,
                               isSetMask),
      repeatParams, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vrsqrt", normgrad::isa::UnaryOp::kRsqrt, sim::vec::ElemOf<T>()});
}

template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Reciprocal(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        const int32_t& count) {
  if (isSetMask) {
    sim::vec::UnaryCount<T, T>("Reciprocal", sim::OpClass::kTranscendental, dst, src, count, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vrec", normgrad::isa::UnaryOp::kRec, sim::vec::ElemOf<T>()});
  } else {
    sim::vec::UnaryRegister<T, T>("Reciprocal", sim::OpClass::kTranscendental, dst, src, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vrec", normgrad::isa::UnaryOp::kRec, sim::vec::ElemOf<T>()});
  }
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Reciprocal(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        uint64_t mask[], const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Reciprocal", sim::OpClass::kTranscendental, dst, src,
      sim::vec::PlanBitwise("Reciprocal", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatParams,
      sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vrec", normgrad::isa::UnaryOp::kRec, sim::vec::ElemOf<T>()});
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> Reciprocal(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                        uint64_t mask, const uint8_t repeatTime,
                                                        const UnaryRepeatParams& repeatParams) {
  sim::vec::UnaryL0<T, T>("Reciprocal", sim::OpClass::kTranscendental, dst, src,
      sim::vec::PlanContinuous("Reciprocal", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask), repeatTime,
                               isSetMask),
      repeatParams, sim::vec::Overlap::kExact, sim::vec::UnaryInstr{"vrec", normgrad::isa::UnaryOp::kRec, sim::vec::ElemOf<T>()});
}

}  // namespace AscendC
