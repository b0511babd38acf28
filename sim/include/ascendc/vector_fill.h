// Fills: Duplicate (dst = scalarValue under a mask) and Brcb (each of 8 source elements per
// repeat fills one 32-byte destination block) (docs/hardware-rules.md §4, §6). Both move bits and never
// round or saturate; both accept bfloat16_t where the SoC has it.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ascendc/core.h"
#include "ascendc/isa_issue.h"
#include "ascendc/tensor.h"
#include "ascendc/vec_engine.h"
#include "ascendc/vec_numerics.h"
#include "ascendc/vector_params.h"
#include "ascendc/vector_run.h"

namespace sim {
namespace vec {

// bfloat16_t only exists on SoCs with bf16 storage (not on ascend910).
template <typename T>
void CheckFillType(const char* api) {
  if (std::is_same<T, bfloat16_t>::value && !Core().soc->hasBf16) {
    Fail(api, "bfloat16_t is not supported on %s", Core().soc->name);
  }
}

template <typename T>
void DuplicateL0(const AscendC::LocalTensor<T>& dst, const T& value, const LanePlan& plan, uint16_t dstBlkStride,
                 uint8_t dstRepStride) {
  CheckFillType<T>("Duplicate");
  Operand od = MakeOperand("dst", dst, dstBlkStride, dstRepStride);
  CheckDstBlkStride("Duplicate", dstBlkStride);
  CheckL0Operand("Duplicate", od, plan);
  normgrad::isa::VecDup(ElemOf<T>(), UbAt(od.addr), ScalarBits(value),
                        Strides(plan.repeats, dstBlkStride, 0, 0, dstRepStride, 0, 0));
}

// Brcb footprint, overlap and execution; repeatTime and strides come from the call.
void BrcbRun(const Operand& dst, const Operand& src, uint32_t repeatTime);

}  // namespace vec
}  // namespace sim

namespace AscendC {

template <typename T>
inline std::enable_if_t<sim::vec::kIsFill<T>> Duplicate(const LocalTensor<T>& dst, const T& scalarValue,
                                                         const int32_t& count) {
  sim::vec::CheckFillType<T>("Duplicate");
  sim::vec::CheckCountArg("Duplicate", count);
  if (count > 0) sim::vec::CheckCountOperand("Duplicate", "dst", dst, count);
  uint8_t* d = sim::vec::UbAt(dst.SimAddr());
  const uint64_t bits = sim::vec::ScalarBits(scalarValue);
  sim::vec::IssueCountForm(sizeof(T), static_cast<uint64_t>(count), [&](uint64_t repeat, uint64_t first) {
    normgrad::isa::VecDup(sim::vec::ElemOf<T>(), d + first * sizeof(T), bits,
                          sim::vec::Strides(repeat, 1, 0, 0, 8, 0, 0));
  });
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFill<T>> Duplicate(const LocalTensor<T>& dst, const T& scalarValue,
                                                         uint64_t mask[], const uint8_t repeatTime,
                                                         const uint16_t dstBlockStride, const uint8_t dstRepeatStride) {
  sim::vec::DuplicateL0(dst, scalarValue,
                        sim::vec::PlanBitwise("Duplicate", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask),
                        dstBlockStride, dstRepeatStride);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFill<T>> Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask,
                                                         const uint8_t repeatTime, const uint16_t dstBlockStride,
                                                         const uint8_t dstRepeatStride) {
  sim::vec::DuplicateL0(dst, scalarValue,
                        sim::vec::PlanContinuous("Duplicate", sim::vec::LanesFor(sizeof(T)),
                                                 static_cast<int64_t>(mask), repeatTime, isSetMask),
                        dstBlockStride, dstRepeatStride);
}

template <typename T>
inline std::enable_if_t<sim::vec::kIsFill<T>> Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                    const uint8_t repeatTime, const BrcbRepeatParams& repeatParams) {
  sim::vec::CheckFillType<T>("Brcb");
  sim::vec::BrcbRun(sim::vec::MakeOperand("dst", dst, repeatParams.dstBlkStride, repeatParams.dstRepStride),
                    sim::vec::MakeOperand("src", src, 1, 1), repeatTime);
}

}  // namespace AscendC
