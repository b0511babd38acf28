// Multiply-add with a tensor addend, A2/A3 only (not on the Atlas training series; asc-devkit's
// MulAddDst and FusedMulAdd documentation, docs/sim.md):
//   MulAddDst:   dst = src0 * src1 + dst
//   FusedMulAdd: dst = src0 * dst + src1
// in the count form and both level-0 mask forms. Types: half or float, every operand the same
// (MulAddDst's float dst with half sources is not simulated: a call with it does not compile).
// Rounding as Axpy's: float rounds the product and then the sum (the device documents no fused
// form); half is the exact result rounded once. One element-wise repeat per 256 bytes.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ascendc/core.h"
#include "ascendc/tensor.h"
#include "ascendc/vec_engine.h"
#include "ascendc/vec_numerics.h"
#include "ascendc/vector_params.h"
#include "ascendc/vector_run.h"

namespace sim {
namespace vec {

void CheckMulAddSoc(const char* api);

// dst = src0 * src1 + dst (vmla) and dst = src0 * dst + src1 (vmadd) on T.
template <typename T>
BinaryInstr MulAddDstInstr() { return BinaryInstr{"vmla", normgrad::isa::BinOp::kMla, ElemOf<T>()}; }
template <typename T>
BinaryInstr FusedMulAddInstr() { return BinaryInstr{"vmadd", normgrad::isa::BinOp::kMadd, ElemOf<T>()}; }

template <typename T>
void TernaryL0(const char* api, const BinaryInstr& in, const AscendC::LocalTensor<T>& dst,
               const AscendC::LocalTensor<T>& src0, const AscendC::LocalTensor<T>& src1, const LanePlan& plan,
               const AscendC::BinaryRepeatParams& p) {
  CheckMulAddSoc(api);
  BinaryL0Issue(api, in, dst, src0, src1, plan, p);
}

template <typename T>
void TernaryCount(const char* api, const BinaryInstr& in, const AscendC::LocalTensor<T>& dst,
                  const AscendC::LocalTensor<T>& src0, const AscendC::LocalTensor<T>& src1, int32_t count) {
  CheckMulAddSoc(api);
  BinaryCountIssue(api, in, dst, src0, src1, count);
}

}  // namespace vec
}  // namespace sim

namespace AscendC {

template <typename T, typename U>
inline std::enable_if_t<std::is_same<T, U>::value && sim::vec::kIsFloat<T>> MulAddDst(
    const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1, const int32_t& count) {
  sim::vec::TernaryCount("MulAddDst", sim::vec::MulAddDstInstr<T>(), dst, src0, src1, count);
}
template <typename T, typename U, bool isSetMask = true>
inline std::enable_if_t<std::is_same<T, U>::value && sim::vec::kIsFloat<T>> MulAddDst(
    const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1, const uint64_t mask[],
    const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  sim::vec::TernaryL0("MulAddDst", sim::vec::MulAddDstInstr<T>(), dst, src0, src1,
                      sim::vec::PlanBitwise("MulAddDst", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask),
                      repeatParams);
}
template <typename T, typename U, bool isSetMask = true>
inline std::enable_if_t<std::is_same<T, U>::value && sim::vec::kIsFloat<T>> MulAddDst(
    const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1, uint64_t mask,
    const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  sim::vec::TernaryL0("MulAddDst", sim::vec::MulAddDstInstr<T>(), dst, src0, src1,
                      sim::vec::PlanContinuous("MulAddDst", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask),
                                               repeatTime, isSetMask),
                      repeatParams);
}

template <typename T>
inline std::enable_if_t<sim::vec::kIsFloat<T>> FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                           const LocalTensor<T>& src1, const int32_t& count) {
  sim::vec::TernaryCount("FusedMulAdd", sim::vec::FusedMulAddInstr<T>(), dst, src0, src1, count);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                           const LocalTensor<T>& src1, uint64_t mask[],
                                                           const uint8_t repeatTime,
                                                           const BinaryRepeatParams& repeatParams) {
  sim::vec::TernaryL0("FusedMulAdd", sim::vec::FusedMulAddInstr<T>(), dst, src0, src1,
                      sim::vec::PlanBitwise("FusedMulAdd", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask),
                      repeatParams);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                           const LocalTensor<T>& src1, uint64_t mask,
                                                           const uint8_t repeatTime,
                                                           const BinaryRepeatParams& repeatParams) {
  sim::vec::TernaryL0("FusedMulAdd", sim::vec::FusedMulAddInstr<T>(), dst, src0, src1,
                      sim::vec::PlanContinuous("FusedMulAdd", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask),
                                               repeatTime, isSetMask),
                      repeatParams);
}

}  // namespace AscendC
