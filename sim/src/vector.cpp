// Operand checks and work counters shared by every vector API (docs/hardware-rules.md §4).
#include <algorithm>
#include <cstring>

#include "ascendc/constants.h"
#include "ascendc/hazard.h"
#include "ascendc/isa_issue.h"
#include "ascendc/vector_fill.h"
#include "ascendc/vector_run.h"

namespace sim {
namespace vec {
namespace {

// One past the last byte (relative to op.addr) that an active lane of a repeat with mask m touches.
uint64_t LaneEnd(const Operand& op, const uint64_t* m, uint32_t lanes) {
  if (op.blkStride >= 1) {
    // Lane offsets grow with the lane, so the highest active lane ends last.
    int top = -1;
    if (lanes > 64 && m[1] != 0) {
      top = 127 - __builtin_clzll(m[1]);
    } else if (m[0] != 0) {
      top = 63 - __builtin_clzll(m[0]);
    }
    if (top < 0) return 0;
    if (top < static_cast<int>(lanes)) return op.LaneOffset(0, static_cast<uint32_t>(top)) + op.elemBytes;
  }
  uint64_t end = 0;
  for (uint32_t l = 0; l < lanes; ++l) {
    if ((m[l / 64] >> (l % 64)) & 1u) end = std::max(end, op.LaneOffset(0, l) + op.elemBytes);
  }
  return end;
}

// One past the last byte (relative to op.addr) any active lane of the instruction touches.
uint64_t FootprintEnd(const Operand& op, const LanePlan& plan) {
  if (plan.repeats == 0) return 0;
  uint64_t full[2] = {plan.lo, plan.hi};
  uint64_t tail[2] = {plan.tailLo, plan.tailHi};
  uint64_t repBytes = static_cast<uint64_t>(op.repStride) * kBlockBytes;
  uint64_t end = (plan.repeats - 1) * repBytes + LaneEnd(op, tail, plan.lanes);
  if (plan.repeats >= 2) end = std::max(end, (plan.repeats - 2) * repBytes + LaneEnd(op, full, plan.lanes));
  return end;
}

// Indices of the blocks of a repeat that hold at least one active lane.
uint32_t ActiveBlocks(const Operand& op, const uint64_t* m, uint32_t lanes, uint32_t* blocks) {
  uint32_t n = 0;
  uint32_t last = ~0u;
  for (uint32_t l = 0; l < lanes; ++l) {
    if (!((m[l / 64] >> (l % 64)) & 1u)) continue;
    uint32_t b = l * op.elemBytes / kBlockBytes;
    if (b != last) blocks[n++] = b;
    last = b;
  }
  return n;
}

// Fails if repeat r has dst and src blocks that intersect without coinciding exactly.
void CheckRepeatOverlap(const char* api, const Operand& dst, const Operand& src, const LanePlan& plan, uint64_t r) {
  uint64_t m[2];
  plan.MaskOf(r, m);
  uint32_t db[8], sb[8];
  uint32_t nd = ActiveBlocks(dst, m, plan.lanes, db);
  uint32_t ns = ActiveBlocks(src, m, plan.lanes, sb);
  auto start = [r](const Operand& op, uint32_t b) {
    return op.addr + (r * op.repStride + static_cast<uint64_t>(b) * op.blkStride) * kBlockBytes;
  };
  bool identical = nd == ns && dst.elemBytes == src.elemBytes;
  for (uint32_t i = 0; identical && i < nd; ++i) identical = start(dst, db[i]) == start(src, sb[i]);
  if (identical) return;
  for (uint32_t i = 0; i < nd; ++i) {
    for (uint32_t j = 0; j < ns; ++j) {
      uint64_t d = start(dst, db[i]), s = start(src, sb[j]);
      if (d < s + kBlockBytes && s < d + kBlockBytes) {
        Fail(api, "dst and %s partially overlap in repeat %llu (dst block at UB %llu, %s block at UB %llu); "
             "operands must coincide exactly or not at all",
             src.name, static_cast<unsigned long long>(r), static_cast<unsigned long long>(d), src.name,
             static_cast<unsigned long long>(s));
      }
    }
  }
}

}  // namespace

void CheckAligned(const char* api, const char* name, uint32_t addr, uint32_t align) {
  if (addr % align != 0) {
    Fail(api, "%s UB address %u is not %u-byte aligned (%u %% %u = %u)", name, addr, align, addr, align,
         addr % align);
  }
}

void CheckCount(const char* api, const char* name, uint64_t count, uint32_t addr, uint32_t lenBytes,
                uint32_t elemBytes) {
  if (count * elemBytes > lenBytes) {
    Fail(api, "count %llu exceeds %s of %u elements", static_cast<unsigned long long>(count), name,
         lenBytes / elemBytes);
  }
  if (addr + count * elemBytes > Core().ub.size()) {
    Fail(api, "%s: %llu elements at UB %u run past the UB end %zu", name, static_cast<unsigned long long>(count),
         addr, Core().ub.size());
  }
  hazard::VecOperand(api, name, addr, count * elemBytes);
}

void CheckFootprint(const char* api, const Operand& op, const LanePlan& plan) {
  uint64_t end = FootprintEnd(op, plan);
  if (end > op.lenBytes) {
    Fail(api, "%s: active lanes reach byte %llu but the tensor has %u bytes (%u elements); "
         "repeats %llu, blkStride %u, repStride %u",
         op.name, static_cast<unsigned long long>(end), op.lenBytes, op.lenBytes / op.elemBytes,
         static_cast<unsigned long long>(plan.repeats), op.blkStride, op.repStride);
  }
  if (op.addr + end > Core().ub.size()) {
    Fail(api, "%s: active lanes reach UB byte %llu, past the UB end %zu", op.name,
         static_cast<unsigned long long>(op.addr + end), Core().ub.size());
  }
  // The span from the first to the last active byte: exact for contiguous operands, a superset
  // for strided ones.
  hazard::VecOperand(api, op.name, op.addr, end);
}

void CheckOverlapCount(const char* api, const char* srcName, uint32_t dstAddr, uint64_t dstBytes, uint32_t srcAddr,
                       uint64_t srcBytes, bool allowNarrowing) {
  bool disjoint = dstAddr + dstBytes <= srcAddr || srcAddr + srcBytes <= dstAddr;
  if (disjoint || dstBytes == 0 || srcBytes == 0) return;
  if (dstAddr == srcAddr && (dstBytes == srcBytes || (allowNarrowing && dstBytes < srcBytes))) return;
  Fail(api, "dst [UB %u, +%llu bytes) partially overlaps %s [UB %u, +%llu bytes); "
       "operands must coincide exactly or not at all",
       dstAddr, static_cast<unsigned long long>(dstBytes), srcName, srcAddr, static_cast<unsigned long long>(srcBytes));
}

void CheckOverlapRepeats(const char* api, const Operand& dst, const Operand& src, const LanePlan& plan) {
  if (plan.repeats == 0) return;
  uint64_t dEnd = dst.addr + FootprintEnd(dst, plan), sEnd = src.addr + FootprintEnd(src, plan);
  if (dEnd <= src.addr || sEnd <= dst.addr) return;
  if (dst.addr == src.addr && dst.elemBytes == src.elemBytes && dst.blkStride == src.blkStride &&
      dst.repStride == src.repStride) {
    return;
  }
  // Equal repeat strides keep the relative layout fixed: the first and the tail repeat decide.
  if (dst.repStride == src.repStride) {
    CheckRepeatOverlap(api, dst, src, plan, 0);
    CheckRepeatOverlap(api, dst, src, plan, plan.repeats - 1);
    return;
  }
  for (uint64_t r = 0; r < plan.repeats; ++r) CheckRepeatOverlap(api, dst, src, plan, r);
}

void CheckDstBlkStride(const char* api, uint32_t dstBlkStride) {
  if (dstBlkStride == 0) Fail(api, "dstBlkStride is 0; the destination block stride must be at least 1");
}

void CheckRepeatTime(const char* api, int64_t repeatTime) {
  if (repeatTime < 0 || repeatTime > 255) {
    Fail(api, "repeatTime %lld is outside [0, 255]", static_cast<long long>(repeatTime));
  }
}

void CheckCountArg(const char* api, int64_t count) {
  if (count < 0) Fail(api, "count %lld is negative", static_cast<long long>(count));
}

void CheckDisjoint(const char* api, const char* name, uint32_t aAddr, uint64_t aBytes, uint32_t bAddr, uint64_t bBytes) {
  if (aAddr + aBytes <= bAddr || bAddr + bBytes <= aAddr || aBytes == 0 || bBytes == 0) return;
  Fail(api, "dst [UB %u, +%llu bytes) and %s [UB %u, +%llu bytes) overlap; this API forbids any overlap", aAddr,
       static_cast<unsigned long long>(aBytes), name, bAddr, static_cast<unsigned long long>(bBytes));
}

void CountInstr(OpClass cls, uint64_t repeats) { CountInstr(Core().counters, cls, repeats); }

void CountFormInstr(OpClass cls, uint64_t count, uint32_t widestBytes) {
  CoreContext& ctx = Core();
  const uint64_t repeats = CountRepeats(count, widestBytes);
  uint64_t instr = 1;
  if (!ctx.soc->countFormCounterMode) {  // dav-c100: one instruction per 255 repeats and the tail (isa_issue.h)
    const uint64_t lanes = kRepeatBytes / widestBytes, full = count / lanes;
    constexpr uint64_t kMax = AscendC::MAX_REPEAT_TIMES;
    instr = full / kMax + (full % kMax != 0 ? 1 : 0) + (count % lanes != 0 ? 1 : 0);
  }
  ctx.counters.vecInstr += instr;
  ctx.counters.vecRepeats[static_cast<int>(cls)] += repeats;
}

}  // namespace vec
}  // namespace sim

namespace sim {
namespace vec {

void CheckMulAddSoc(const char* api) {
  const SocProfile* soc = Core().soc;
  if (!soc->hasMulAdd) Fail(api, "%s is not available on %s", api, soc->name);
}

void BrcbRun(const Operand& dst, const Operand& src, uint32_t repeatTime) {
  const char* api = "Brcb";
  const SocProfile* soc = Core().soc;
  if (!soc->hasBrcb) Fail(api, "Brcb is not available on %s", soc->name);
  CheckDstBlkStride(api, dst.blkStride);
  CheckAligned(api, "dst", dst.addr, kBlockBytes);
  CheckAligned(api, "src", src.addr, kBlockBytes);
  if (repeatTime != 0) {
    uint64_t srcElems = 8ull * repeatTime;
    CheckCount(api, "src", srcElems, src.addr, src.lenBytes, src.elemBytes);
    uint64_t dstEnd = ((repeatTime - 1ull) * dst.repStride + 7ull * dst.blkStride) * kBlockBytes + kBlockBytes;
    if (dstEnd > dst.lenBytes || dst.addr + dstEnd > Core().ub.size()) {
      Fail(api, "dst: %u repeats with dstBlkStride %u and dstRepStride %u reach byte %llu but the tensor has %u bytes",
           repeatTime, dst.blkStride, dst.repStride, static_cast<unsigned long long>(dstEnd), dst.lenBytes);
    }
    CheckDisjoint(api, "src", dst.addr, dstEnd, src.addr, srcElems * src.elemBytes);
    hazard::UbWrite(hazard::kV, api, dst.addr, dstEnd);
  }
  normgrad::isa::VecBrcb(src.elemBytes == 4 ? normgrad::isa::Elem::kU32 : normgrad::isa::Elem::kU16, UbAt(dst.addr),
                         UbAt(src.addr), dst.blkStride, dst.repStride, repeatTime);
}

}  // namespace vec
}  // namespace sim
