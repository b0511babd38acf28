// Simulator internals shared by every vector API (not Ascend C API; kernels never use them):
// which lanes one instruction activates (mask register, counter mode, repeats), where lane l
// of repeat r of an operand lives, the operand checks, the work counters, and the level-0
// executor. Addressing (docs/hardware-rules.md §4): lane l of repeat r of an operand with element
// size s, block stride bs and repeat stride rs (32-byte blocks) is at
// base + (r*rs + floor(l*s/32)*bs)*32 + (l*s mod 32).
#pragma once
#include <cstdint>
#include <cstring>
#include <utility>

#include "ascendc/core.h"
#include "ascendc/tensor.h"
#include "normgrad_isa/numerics.h"

namespace sim {
namespace vec {

// Lane plans and addressing are the shared ones of sim/isa (normgrad_isa/numerics.h).
using normgrad::isa::num::kAllOnes;
using normgrad::isa::num::kBlockBytes;
using normgrad::isa::num::kMaxLanes;
using normgrad::isa::num::kRepeatBytes;
using normgrad::isa::num::LaneBits;   // bits for lanes [0, n) of a repeat
using normgrad::isa::num::LanePlan;   // lanes one instruction activates
using normgrad::isa::num::LanesFor;   // lanes per repeat for the widest element
using normgrad::isa::num::PlanCount;  // plan of a count-form call (counter mode)
// Plan from the current mask register and mode; repeatTime is ignored in counter mode.
LanePlan PlanRegister(uint32_t lanes, uint64_t repeatTime);
// Level-0 continuous mask: with isSetMask the register is programmed first (and stays so).
LanePlan PlanContinuous(const char* api, uint32_t lanes, int64_t mask, uint64_t repeatTime, bool isSetMask);
// Level-0 bitwise mask {lo, hi}: hi must be 0 when lanes <= 64.
LanePlan PlanBitwise(const char* api, uint32_t lanes, const uint64_t* mask, uint64_t repeatTime, bool isSetMask);
// What every count-form call leaves behind on A2/A3: Normal mode, all lanes on.
void RestoreNormalFullMask();

// One operand of an instruction, as the hardware addresses it.
struct Operand {
  const char* name;
  uint32_t addr;       // UB byte address
  uint32_t lenBytes;   // bytes of the LocalTensor view
  uint32_t elemBytes;
  uint32_t blkStride;  // in 32-byte blocks
  uint32_t repStride;  // in 32-byte blocks
  uint64_t LaneOffset(uint64_t r, uint32_t l) const {
    return normgrad::isa::num::LaneOffset(r, l, elemBytes, blkStride, repStride);
  }
};

template <typename T>
Operand MakeOperand(const char* name, const AscendC::LocalTensor<T>& t, uint32_t blkStride = 1,
                    uint32_t repStride = 8) {
  return Operand{name, t.SimAddr(), t.GetLength(), static_cast<uint32_t>(sizeof(T)), blkStride, repStride};
}

// Checks; each fails with "<api>: <rule>, <values>".
void CheckAligned(const char* api, const char* name, uint32_t addr, uint32_t align);
// Count form: count <= tensor size (elements), and inside the UB.
void CheckCount(const char* api, const char* name, uint64_t count, uint32_t addr, uint32_t lenBytes,
                uint32_t elemBytes);
// Level 0: the bytes of every active lane lie inside the tensor view and the UB.
void CheckFootprint(const char* api, const Operand& op, const LanePlan& plan);
// Count form: src and dst are identical, disjoint, or (allowNarrowing) an in-place narrowing.
void CheckOverlapCount(const char* api, const char* srcName, uint32_t dstAddr, uint64_t dstBytes,
                       uint32_t srcAddr, uint64_t srcBytes, bool allowNarrowing);
// Level 0: within every repeat, dst and src blocks coincide exactly or not at all.
void CheckOverlapRepeats(const char* api, const Operand& dst, const Operand& src, const LanePlan& plan);
void CheckDstBlkStride(const char* api, uint32_t dstBlkStride);
void CheckRepeatTime(const char* api, int64_t repeatTime);
// Work counters: one instruction with `repeats` repeats of class `cls`.
void CountInstr(OpClass cls, uint64_t repeats);
inline void CountInstr(CoreCounters& c, OpClass cls, uint64_t repeats) {
  ++c.vecInstr;
  c.vecRepeats[static_cast<int>(cls)] += repeats;
}
// Repeats of a count-form call: ceil(count * widestBytes / 256).
inline uint64_t CountRepeats(uint64_t count, uint32_t widestBytes) {
  return (count * widestBytes + kRepeatBytes - 1) / kRepeatBytes;
}
// Work counters of a count-form call of `count` elements (lanes of widestBytes): the instructions CANN's
// implementation issues for it. Atlas A2/A3 (dav-c220): one, in counter mode. Training series (dav-c100,
// whose count forms do not use counter mode: asc-devkit AscendCUtils::CalIntriInfo and the
// dav_c100 *Compute helpers): one per 255 full repeats, one for the remaining full repeats, one with
// a mask for the tail lanes. The repeats are ceil(count * widestBytes / 256) either way.
void CountFormInstr(OpClass cls, uint64_t count, uint32_t widestBytes);

template <typename T>
inline T LoadLane(const uint8_t* ub, const Operand& op, uint64_t r, uint32_t l) {
  T v;
  std::memcpy(&v, ub + op.addr + op.LaneOffset(r, l), sizeof(T));
  return v;
}

// Runs a level-0 instruction: for each repeat, compute(r, l) for every active lane l (all
// reads of the repeat happen before its writes, so 100 % overlap is exact), then store to dst.
template <typename TD, typename F>
void ExecuteL0(const LanePlan& plan, const Operand& dst, F&& compute) {
  normgrad::isa::num::ExecuteRepeats<TD>(plan, Core().ub.data() + dst.addr, dst.elemBytes, dst.blkStride,
                                         dst.repStride, std::forward<F>(compute));
}

template <typename T>
inline const T* BlockPtr(const uint8_t* ub, const Operand& op, uint64_t r, uint32_t b) {
  return normgrad::isa::num::BlockPtr<T>(ub + op.addr, op.blkStride, op.repStride, r, b);
}

// ExecuteL0 for the common case where every operand has dst's element size and the masks
// switch whole 32-byte blocks on or off (normgrad_isa/numerics.h, ExecuteBlocks): computeBlock(r,
// b, out) writes the 32 / sizeof(TD) lanes of block b of repeat r into out from whole source
// blocks. Same results as ExecuteL0; returns false (nothing done) when it does not apply.
template <typename TD, typename F>
bool ExecuteL0Blocks(const LanePlan& plan, const Operand& dst, F&& computeBlock) {
  if (dst.elemBytes != sizeof(TD)) return false;
  return normgrad::isa::num::ExecuteBlocks<TD>(plan, Core().ub.data() + dst.addr, dst.blkStride, dst.repStride,
                                               std::forward<F>(computeBlock));
}

}  // namespace vec
}  // namespace sim
