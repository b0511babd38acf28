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

// a * b + c, rounded as the device's Axpy.
inline float MulAddLane(float a, float b, float c) { return normgrad::isa::num::MulAddF32(a, b, c); }
inline half MulAddLane(half a, half b, half c) {
  return half::FromBits(normgrad::isa::num::MulAddHalfBits(static_cast<float>(a), static_cast<float>(b),
                                                           static_cast<float>(c)));
}

void CheckMulAddSoc(const char* api);

// dst lane = fn(src0 lane, src1 lane, old dst lane), level 0.
template <typename T, class Fn>
void TernaryL0(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
               const AscendC::LocalTensor<T>& src1, const LanePlan& plan, const AscendC::BinaryRepeatParams& p,
               Fn fn) {
  CheckMulAddSoc(api);
  const BinaryOperands o = CheckBinaryL0(api, OpClass::kElementwise, dst, src0, src1, plan, p);
  const Operand &od = o.dst, &o0 = o.src0, &o1 = o.src1;
  const uint8_t* ub = Core().ub.data();
  constexpr uint32_t kPer = kBlockBytes / sizeof(T);
  bool done = ExecuteL0Blocks<T>(plan, od, [&](uint64_t r, uint32_t b, T* out) {
    const T* a = BlockPtr<T>(ub, o0, r, b);
    const T* c = BlockPtr<T>(ub, o1, r, b);
    const T* d = BlockPtr<T>(ub, od, r, b);
    for (uint32_t i = 0; i < kPer; ++i) out[i] = fn(a[i], c[i], d[i]);
  });
  if (done) return;
  ExecuteL0<T>(plan, od, [&](uint64_t r, uint32_t l) {
    return fn(LoadLane<T>(ub, o0, r, l), LoadLane<T>(ub, o1, r, l), LoadLane<T>(ub, od, r, l));
  });
}

// Count form: dst[i] = fn(src0[i], src1[i], dst[i]) for i < count.
template <typename T, class Fn>
void TernaryCount(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                  const AscendC::LocalTensor<T>& src1, int32_t count, Fn fn) {
  CheckMulAddSoc(api);
  CheckBinaryCount(api, OpClass::kElementwise, dst, src0, src1, count);
  if (count > 0) {
    T* d = dst.SimData();
    const T* a = src0.SimData();
    const T* b = src1.SimData();
    // Operands coincide exactly or not at all (checked above) and lane i only touches index i.
#pragma GCC ivdep
    for (int32_t i = 0; i < count; ++i) d[i] = fn(a[i], b[i], d[i]);
  }
  RestoreNormalFullMask();
}

// dst = src0 * src1 + dst
struct MulAddDstFn {
  template <typename T>
  T operator()(T s0, T s1, T d) const { return MulAddLane(s0, s1, d); }
};
// dst = src0 * dst + src1
struct FusedMulAddFn {
  template <typename T>
  T operator()(T s0, T s1, T d) const { return MulAddLane(s0, d, s1); }
};

}  // namespace vec
}  // namespace sim

namespace AscendC {

template <typename T, typename U>
inline std::enable_if_t<std::is_same<T, U>::value && sim::vec::kIsFloat<T>> MulAddDst(
    const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1, const int32_t& count) {
  sim::vec::TernaryCount("MulAddDst", dst, src0, src1, count, sim::vec::MulAddDstFn());
}
template <typename T, typename U, bool isSetMask = true>
inline std::enable_if_t<std::is_same<T, U>::value && sim::vec::kIsFloat<T>> MulAddDst(
    const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1, const uint64_t mask[],
    const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  sim::vec::TernaryL0("MulAddDst", dst, src0, src1,
                      sim::vec::PlanBitwise("MulAddDst", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask),
                      repeatParams, sim::vec::MulAddDstFn());
}
template <typename T, typename U, bool isSetMask = true>
inline std::enable_if_t<std::is_same<T, U>::value && sim::vec::kIsFloat<T>> MulAddDst(
    const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1, uint64_t mask,
    const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  sim::vec::TernaryL0("MulAddDst", dst, src0, src1,
                      sim::vec::PlanContinuous("MulAddDst", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask),
                                               repeatTime, isSetMask),
                      repeatParams, sim::vec::MulAddDstFn());
}

template <typename T>
inline std::enable_if_t<sim::vec::kIsFloat<T>> FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                           const LocalTensor<T>& src1, const int32_t& count) {
  sim::vec::TernaryCount("FusedMulAdd", dst, src0, src1, count, sim::vec::FusedMulAddFn());
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                           const LocalTensor<T>& src1, uint64_t mask[],
                                                           const uint8_t repeatTime,
                                                           const BinaryRepeatParams& repeatParams) {
  sim::vec::TernaryL0("FusedMulAdd", dst, src0, src1,
                      sim::vec::PlanBitwise("FusedMulAdd", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask),
                      repeatParams, sim::vec::FusedMulAddFn());
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                                           const LocalTensor<T>& src1, uint64_t mask,
                                                           const uint8_t repeatTime,
                                                           const BinaryRepeatParams& repeatParams) {
  sim::vec::TernaryL0("FusedMulAdd", dst, src0, src1,
                      sim::vec::PlanContinuous("FusedMulAdd", sim::vec::LanesFor(sizeof(T)), static_cast<int64_t>(mask),
                                               repeatTime, isSetMask),
                      repeatParams, sim::vec::FusedMulAddFn());
}

}  // namespace AscendC
