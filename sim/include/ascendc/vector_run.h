// Simulator internals: the runners behind every element-wise API and Cast. Each runner checks
// its operands once per call (the API's rules, with the API's name), then issues the instructions
// CANN's implementation issues for the call to the instruction-level model (ascendc/isa_issue.h),
// which executes and counts them. An API the model has no instruction for passes a lane function
// instead: the runner then counts the instruction itself and runs the lanes here.
#pragma once
#include <algorithm>
#include <cstdint>

#include "ascendc/core.h"
#include "ascendc/isa_issue.h"
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
BinaryOperands CheckBinaryL0(const char* api, const AscendC::LocalTensor<T>& dst,
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
  return o;
}

// The same for the count form: count elements of each, coinciding exactly or not at all.
template <typename T>
void CheckBinaryCount(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                      const AscendC::LocalTensor<T>& src1, int32_t count) {
  CheckCountArg(api, count);
  if (count <= 0) return;
  CheckCountOperand(api, "dst", dst, count);
  CheckCountOperand(api, "src0", src0, count);
  CheckCountOperand(api, "src1", src1, count);
  uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
  CheckOverlapCount(api, "src0", dst.SimAddr(), bytes, src0.SimAddr(), bytes, false);
  CheckOverlapCount(api, "src1", dst.SimAddr(), bytes, src1.SimAddr(), bytes, false);
}

// The instruction of binary operation Op (vec_numerics.h) on T.
template <class Op, typename T>
BinaryInstr BinaryInstrOf() {
  return BinaryInstr{Op::kInstr, Op::kIsa, ElemOf<T>()};
}

// A level-0 dst/src0/src1 instruction, checked, then issued.
template <typename T>
void BinaryL0Issue(const char* api, const BinaryInstr& in, const AscendC::LocalTensor<T>& dst,
                   const AscendC::LocalTensor<T>& src0, const AscendC::LocalTensor<T>& src1, const LanePlan& plan,
                   const AscendC::BinaryRepeatParams& p) {
  const BinaryOperands o = CheckBinaryL0(api, dst, src0, src1, plan, p);
  in.Issue(UbAt(o.dst.addr), UbAt(o.src0.addr), UbAt(o.src1.addr),
           Strides(plan.repeats, p.dstBlkStride, p.src0BlkStride, p.src1BlkStride, p.dstRepStride, p.src0RepStride,
                   p.src1RepStride));
}

// The count form of a dst/src0/src1 instruction, checked, then issued as CANN's implementation does.
template <typename T>
void BinaryCountIssue(const char* api, const BinaryInstr& in, const AscendC::LocalTensor<T>& dst,
                      const AscendC::LocalTensor<T>& src0, const AscendC::LocalTensor<T>& src1, int32_t count) {
  CheckBinaryCount(api, dst, src0, src1, count);
  uint8_t* d = UbAt(dst.SimAddr());
  const uint8_t* a = UbAt(src0.SimAddr());
  const uint8_t* b = UbAt(src1.SimAddr());
  IssueCountForm(sizeof(T), static_cast<uint64_t>(count), [&](uint64_t repeat, uint64_t first) {
    const uint64_t off = first * sizeof(T);
    in.Issue(d + off, a + off, b + off, Strides(repeat, 1, 1, 1, 8, 8, 8));
  });
}

template <class Op, typename T>
void BinaryL0(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
              const AscendC::LocalTensor<T>& src1, const LanePlan& plan, const AscendC::BinaryRepeatParams& p) {
  BinaryL0Issue(api, BinaryInstrOf<Op, T>(), dst, src0, src1, plan, p);
}

template <class Op, typename T>
void BinaryCount(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                 const AscendC::LocalTensor<T>& src1, int32_t count) {
  BinaryCountIssue(api, BinaryInstrOf<Op, T>(), dst, src0, src1, count);
}

// Level-0 unary-shaped instruction: a model instruction (ascendc/isa_issue.h: ScalarInstr,
// UnaryInstr, ConvInstr) issued on dst and src, or a lane function dst lane = fn(src lane, old dst lane).
template <typename TD, typename TS, class Fn>
void UnaryL0(const char* api, OpClass cls, const AscendC::LocalTensor<TD>& dst, const AscendC::LocalTensor<TS>& src,
             const LanePlan& plan, const AscendC::UnaryRepeatParams& p, Overlap rule, Fn fn) {
  Operand od = MakeOperand("dst", dst, p.dstBlkStride, p.dstRepStride);
  Operand os = MakeOperand("src", src, p.srcBlkStride, p.srcRepStride);
  CheckDstBlkStride(api, p.dstBlkStride);
  CheckL0Operand(api, od, plan);
  CheckL0Operand(api, os, plan);
  CheckL0Overlap(api, od, os, plan, rule);
  if constexpr (IsModelInstr<Fn>::value) {
    fn.Issue(UbAt(od.addr), UbAt(os.addr),
             Strides(plan.repeats, p.dstBlkStride, p.srcBlkStride, 0, p.dstRepStride, p.srcRepStride, 0));
  } else {
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
}

// Count-form unary-shaped instruction over count elements: a model instruction issued as CANN's
// implementation issues the count form, or dst[i] = fn(src[i], dst[i]) for i < count.
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
  }
  constexpr uint32_t kWidest = sizeof(TD) > sizeof(TS) ? sizeof(TD) : sizeof(TS);
  if constexpr (IsModelInstr<Fn>::value) {
    uint8_t* d = UbAt(dst.SimAddr());
    const uint8_t* s = UbAt(src.SimAddr());
    IssueCountForm(kWidest, static_cast<uint64_t>(count), [&](uint64_t repeat, uint64_t first) {
      fn.Issue(d + first * sizeof(TD), s + first * sizeof(TS),
               Strides(repeat, 1, 1, 0, sizeof(TD) * 8 / kWidest, sizeof(TS) * 8 / kWidest, 0));
    });
    return;
  } else {
    if (count > 0 && sizeof(TD) != sizeof(TS) && dst.SimAddr() == src.SimAddr()) {
      // In-place narrowing: the lane executor orders each repeat's reads before its writes.
      UnaryL0<TD, TS>(api, cls, dst, src, PlanCount(LanesFor(kWidest), count),
                      AscendC::UnaryRepeatParams(1, 1, sizeof(TD) * 8 / kWidest, sizeof(TS) * 8 / kWidest), rule, fn);
      RestoreNormalFullMask();
      return;
    }
    if (count > 0) {
      TD* d = dst.SimData();
      const TS* s = src.SimData();
      // Operands are disjoint or identical here, and lane i only touches index i.
#pragma GCC ivdep
      for (int64_t i = 0; i < count; ++i) d[i] = fn(s[i], d[i]);
    }
    CountFormInstr(cls, static_cast<uint64_t>(count), kWidest);
    RestoreNormalFullMask();
  }
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
