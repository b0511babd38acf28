// Simulator internals: the runners behind every element-wise API and Cast. Each runner checks
// its operands once per call, counts the instruction, then either runs a tight loop over raw
// UB pointers (count form, no partial overlap possible) or the level-0 lane executor.
#pragma once
#include <algorithm>
#include <cstdint>

#include "ascendc/core.h"
#include "ascendc/tensor.h"
#include "ascendc/vec_engine.h"
#include "ascendc/vec_numerics.h"
#include "ascendc/vector_params.h"

namespace sim {
namespace vec {

// How a source may overlap the destination.
enum class Overlap {
  kExact,          // identical operands or disjoint (the general rule)
  kNarrowInPlace,  // also dst starting at src with narrower elements (Cast float -> half in place)
  kNone,           // disjoint only (Axpy half -> float)
};

void CheckCountArg(const char* api, int64_t count);
void CheckDisjoint(const char* api, const char* name, uint32_t aAddr, uint64_t aBytes, uint32_t bAddr, uint64_t bBytes);

template <typename T>
void CheckCountOperand(const char* api, const char* name, const AscendC::LocalTensor<T>& t, uint64_t count) {
  CheckAligned(api, name, t.SimAddr(), kBlockBytes);
  CheckCount(api, name, count, t.SimAddr(), t.GetLength(), sizeof(T));
}

inline void CheckL0Operand(const char* api, const Operand& op, const LanePlan& plan) {
  CheckAligned(api, op.name, op.addr, kBlockBytes);
  CheckFootprint(api, op, plan);
}

inline void CheckL0Overlap(const char* api, const Operand& dst, const Operand& src, const LanePlan& plan,
                           Overlap rule) {
  if (rule == Overlap::kNarrowInPlace && dst.addr == src.addr) return;
  if (rule == Overlap::kNone) {
    CheckDisjoint(api, src.name, dst.addr, dst.lenBytes, src.addr, src.lenBytes);
    return;
  }
  CheckOverlapRepeats(api, dst, src, plan);
}

// The operands of a level-0 instruction on dst, src0 and src1, checked and the instruction counted.
struct BinaryOperands {
  Operand dst, src0, src1;
};
template <typename T>
BinaryOperands CheckBinaryL0(const char* api, OpClass cls, const AscendC::LocalTensor<T>& dst,
                             const AscendC::LocalTensor<T>& src0, const AscendC::LocalTensor<T>& src1,
                             const LanePlan& plan, const AscendC::BinaryRepeatParams& p) {
  BinaryOperands o{MakeOperand("dst", dst, p.dstBlkStride, p.dstRepStride),
                   MakeOperand("src0", src0, p.src0BlkStride, p.src0RepStride),
                   MakeOperand("src1", src1, p.src1BlkStride, p.src1RepStride)};
  CheckDstBlkStride(api, p.dstBlkStride);
  CheckL0Operand(api, o.dst, plan);
  CheckL0Operand(api, o.src0, plan);
  CheckL0Operand(api, o.src1, plan);
  CheckOverlapRepeats(api, o.dst, o.src0, plan);
  CheckOverlapRepeats(api, o.dst, o.src1, plan);
  CountInstr(cls, plan.repeats);
  return o;
}

// The same for the count form: count elements of each, coinciding exactly or not at all.
template <typename T>
void CheckBinaryCount(const char* api, OpClass cls, const AscendC::LocalTensor<T>& dst,
                      const AscendC::LocalTensor<T>& src0, const AscendC::LocalTensor<T>& src1, int32_t count) {
  CheckCountArg(api, count);
  CountFormInstr(cls, static_cast<uint64_t>(count), sizeof(T));
  if (count <= 0) return;
  CheckCountOperand(api, "dst", dst, count);
  CheckCountOperand(api, "src0", src0, count);
  CheckCountOperand(api, "src1", src1, count);
  uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
  CheckOverlapCount(api, "src0", dst.SimAddr(), bytes, src0.SimAddr(), bytes, false);
  CheckOverlapCount(api, "src1", dst.SimAddr(), bytes, src1.SimAddr(), bytes, false);
}

template <class Op, typename T>
void BinaryL0(const char* api, OpClass cls, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
              const AscendC::LocalTensor<T>& src1, const LanePlan& plan, const AscendC::BinaryRepeatParams& p) {
  const BinaryOperands o = CheckBinaryL0(api, cls, dst, src0, src1, plan, p);
  const Operand &od = o.dst, &o0 = o.src0, &o1 = o.src1;
  const uint8_t* ub = Core().ub.data();
  constexpr uint32_t kPer = kBlockBytes / sizeof(T);
  bool done = ExecuteL0Blocks<T>(plan, od, [&](uint64_t r, uint32_t b, T* out) {
    const T* a = BlockPtr<T>(ub, o0, r, b);
    const T* c = BlockPtr<T>(ub, o1, r, b);
    for (uint32_t i = 0; i < kPer; ++i) out[i] = Apply2<Op>(a[i], c[i]);
  });
  if (done) return;
  ExecuteL0<T>(plan, od, [&](uint64_t r, uint32_t l) {
    return Apply2<Op>(LoadLane<T>(ub, o0, r, l), LoadLane<T>(ub, o1, r, l));
  });
}

template <class Op, typename T>
void BinaryCount(const char* api, OpClass cls, const AscendC::LocalTensor<T>& dst,
                 const AscendC::LocalTensor<T>& src0, const AscendC::LocalTensor<T>& src1, int32_t count) {
  CheckBinaryCount(api, cls, dst, src0, src1, count);
  if (count > 0) {
    T* d = dst.SimData();
    const T* a = src0.SimData();
    const T* b = src1.SimData();
    // Operands coincide exactly or not at all (checked above) and lane i only touches index i,
    // so in-place forms vectorise too instead of failing the compiler's runtime alias check.
#pragma GCC ivdep
    for (int32_t i = 0; i < count; ++i) d[i] = Apply2<Op>(a[i], b[i]);
  }
  RestoreNormalFullMask();
}

// Level-0 unary-shaped instruction: dst lane = fn(src lane, old dst lane).
template <typename TD, typename TS, class Fn>
void UnaryL0(const char* api, OpClass cls, const AscendC::LocalTensor<TD>& dst, const AscendC::LocalTensor<TS>& src,
             const LanePlan& plan, const AscendC::UnaryRepeatParams& p, Overlap rule, Fn fn) {
  Operand od = MakeOperand("dst", dst, p.dstBlkStride, p.dstRepStride);
  Operand os = MakeOperand("src", src, p.srcBlkStride, p.srcRepStride);
  CheckDstBlkStride(api, p.dstBlkStride);
  CheckL0Operand(api, od, plan);
  CheckL0Operand(api, os, plan);
  CheckL0Overlap(api, od, os, plan, rule);
  CountInstr(cls, plan.repeats);
  const uint8_t* ub = Core().ub.data();
  if constexpr (sizeof(TD) == sizeof(TS)) {
    constexpr uint32_t kPer = kBlockBytes / sizeof(TD);
    bool done = ExecuteL0Blocks<TD>(plan, od, [&](uint64_t r, uint32_t b, TD* out) {
      const TS* s = BlockPtr<TS>(ub, os, r, b);
      const TD* d = BlockPtr<TD>(ub, od, r, b);
      for (uint32_t i = 0; i < kPer; ++i) out[i] = fn(s[i], d[i]);
    });
    if (done) return;
  }
  ExecuteL0<TD>(plan, od, [&](uint64_t r, uint32_t l) {
    return fn(LoadLane<TS>(ub, os, r, l), LoadLane<TD>(ub, od, r, l));
  });
}

// Count-form unary-shaped instruction: dst[i] = fn(src[i], dst[i]) for i < count.
template <typename TD, typename TS, class Fn>
void UnaryCount(const char* api, OpClass cls, const AscendC::LocalTensor<TD>& dst,
                const AscendC::LocalTensor<TS>& src, int64_t count, Overlap rule, Fn fn) {
  CheckCountArg(api, count);
  if (count > 0) {
    CheckCountOperand(api, "dst", dst, count);
    CheckCountOperand(api, "src", src, count);
    uint64_t dBytes = static_cast<uint64_t>(count) * sizeof(TD), sBytes = static_cast<uint64_t>(count) * sizeof(TS);
    if (rule == Overlap::kNone) {
      CheckDisjoint(api, "src", dst.SimAddr(), dBytes, src.SimAddr(), sBytes);
    } else {
      CheckOverlapCount(api, "src", dst.SimAddr(), dBytes, src.SimAddr(), sBytes, rule == Overlap::kNarrowInPlace);
    }
    if (sizeof(TD) != sizeof(TS) && dst.SimAddr() == src.SimAddr()) {
      // In-place narrowing: the lane executor orders each repeat's reads before its writes.
      UnaryL0<TD, TS>(api, cls, dst, src, PlanCount(LanesFor(std::max(sizeof(TD), sizeof(TS))), count),
                      AscendC::UnaryRepeatParams(1, 1, sizeof(TD) * 8 / std::max(sizeof(TD), sizeof(TS)),
                                                 sizeof(TS) * 8 / std::max(sizeof(TD), sizeof(TS))),
                      rule, fn);
      RestoreNormalFullMask();
      return;
    }
    TD* d = dst.SimData();
    const TS* s = src.SimData();
    // Operands are disjoint or identical here, and lane i only touches index i.
#pragma GCC ivdep
    for (int64_t i = 0; i < count; ++i) d[i] = fn(s[i], d[i]);
  }
  CountFormInstr(cls, static_cast<uint64_t>(count), std::max(sizeof(TD), sizeof(TS)));
  RestoreNormalFullMask();
}

// Count form with isSetMask = false: one repeat under the current mask register and mode.
template <typename TD, typename TS, class Fn>
void UnaryRegister(const char* api, OpClass cls, const AscendC::LocalTensor<TD>& dst,
                   const AscendC::LocalTensor<TS>& src, Overlap rule, Fn fn) {
  uint32_t widest = static_cast<uint32_t>(std::max(sizeof(TD), sizeof(TS)));
  AscendC::UnaryRepeatParams p(1, 1, sizeof(TD) * 8 / widest, sizeof(TS) * 8 / widest);
  UnaryL0<TD, TS>(api, cls, dst, src, PlanRegister(LanesFor(widest), 1), p, rule, fn);
}

}  // namespace vec
}  // namespace sim
