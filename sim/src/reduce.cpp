// Reductions as CANN's implementation issues them to the instruction model (vcadd, vcgadd, vcpadd; the
// model sums in the documented order, docs/hardware-rules.md §4): ReduceSum's count form accumulates the
// repeat sums in order on Atlas A2/A3 (the ACC register) and by trees through sharedTmpBuffer on the
// training series, its high-dim form by trees through sharedTmpBuffer. Instantiated for half and float.
#include "ascendc/reduce.h"

#include <algorithm>
#include <cstring>

#include "ascendc/hazard.h"
#include "ascendc/isa_issue.h"
#include "ascendc/pipe.h"
#include "ascendc/sync.h"

namespace sim {
namespace vec {
namespace {

void CheckDst(const char* api, uint32_t dstAddr, uint32_t dstBytes, uint64_t endBytes, uint32_t align) {
  CheckAligned(api, "dst", dstAddr, align);
  if (endBytes > dstBytes || dstAddr + endBytes > Core().ub.size()) {
    Fail(api, "dst: results reach byte %llu but the tensor has %u bytes", static_cast<unsigned long long>(endBytes),
         dstBytes);
  }
  hazard::UbWrite(hazard::kV, api, dstAddr, endBytes);
}

// WholeReduceSum (vcadd, one sum per repeat), BlockReduceSum (vcgadd, one per 32-byte block) and
// PairReduceSum (vcpadd, one per lane pair) as the instructions CANN's implementation issues.
template <typename T>
void IssueReduce(ReduceKind kind, uint32_t dstAddr, const Operand& src, const LanePlan& plan, int32_t dstRepStride) {
  const isa::Elem t = ElemOf<T>();
  const uint64_t dstRep = static_cast<uint64_t>(dstRepStride);
  if (kind == ReduceKind::kWhole) {
    const isa::Arch arch = CountFormUsesCounterMode() ? isa::Arch::kA2 : isa::Arch::k910;
    isa::VecCadd(arch, t, UbAt(dstAddr), UbAt(src.addr), plan.repeats, dstRep, src.blkStride, src.repStride, 0);
  } else if (kind == ReduceKind::kBlock) {
    isa::VecCgadd(t, UbAt(dstAddr), UbAt(src.addr), plan.repeats, dstRep, src.blkStride, src.repStride);
  } else {
    isa::VecCpadd(t, UbAt(dstAddr), UbAt(src.addr), plan.repeats, dstRep, src.blkStride, src.repStride);
  }
}

}  // namespace

LanePlan PlanReduceContinuous(const char* api, uint32_t lanes, int32_t mask, int32_t repeatTime, bool isSetMask) {
  if (repeatTime < 0) Fail(api, "repeatTime %d is negative", repeatTime);
  return PlanContinuous(api, lanes, mask, static_cast<uint64_t>(repeatTime), isSetMask);
}

LanePlan PlanReduceBitwise(const char* api, uint32_t lanes, const uint64_t* mask, int32_t repeatTime, bool isSetMask) {
  if (repeatTime < 0) Fail(api, "repeatTime %d is negative", repeatTime);
  if (isSetMask && mask[0] == 0 && mask[1] == 0) Warn(api, "bitwise mask is all zero; nothing is reduced");
  return PlanBitwise(api, lanes, mask, static_cast<uint64_t>(repeatTime), isSetMask);
}

template <typename T>
void ReduceRepeats(ReduceKind kind, const char* api, uint32_t dstAddr, uint32_t dstBytes, const Operand& src,
                   const LanePlan& plan, int32_t repeatTime, int32_t dstRepStride) {
  CheckRepeatTime(api, repeatTime);
  if (dstRepStride < 0) Fail(api, "dstRepStride %d is negative", dstRepStride);
  CheckAligned(api, "src", src.addr, kBlockBytes);
  CheckFootprint(api, src, plan);
  if (plan.repeats > 0) {
    // Output elements per repeat and the dst element stride per dstRepStride unit.
    uint32_t outPerRepeat = kind == ReduceKind::kWhole ? 1 : kind == ReduceKind::kBlock ? 8 : plan.lanes / 2;
    uint64_t unit = kind == ReduceKind::kWhole ? 1 : kind == ReduceKind::kBlock ? 8 : 128 / sizeof(T);
    uint32_t align = kind == ReduceKind::kWhole ? sizeof(T) : kind == ReduceKind::kBlock ? 8 * sizeof(T) : kBlockBytes;
    uint64_t end = ((plan.repeats - 1) * dstRepStride * unit + outPerRepeat) * sizeof(T);
    CheckDst(api, dstAddr, dstBytes, end, align);
  }
  IssueReduce<T>(kind, dstAddr, src, plan, dstRepStride);
}

// The scalar unit's handshake around get_acc_val in CANN's dav-c220 ReduceSumImpl: V -> S before the
// read, S -> V and S -> MTE3 after the scalar store, each on an event id TPipe::FetchEventID gives.
void AccHandshake(const char* api, AscendC::HardEvent event) {
  const CoreContext& c = Core();
  const int32_t id = c.pipe != nullptr ? static_cast<AscendC::TPipe*>(c.pipe)->FetchEventID(event) : 0;
  sync::SetFlag(api, static_cast<int>(event), id);
  sync::WaitFlag(api, static_cast<int>(event), id);
}

// sharedTmpBuffer as CANN's api_check takes it (kernel_vec_reduce_check.cpp: element-aligned, at least
// `repeats` elements), and as the sequence uses it: A also needs room for every element the sequence writes
// (`written`) and, where a vcadd reads it, 32-byte alignment (the instruction's source rule).
template <typename T>
void CheckTmp(const char* api, uint32_t tmpAddr, uint32_t tmpBytes, uint64_t repeats, uint64_t written,
              bool readByVector) {
  CheckAligned(api, "sharedTmpBuffer", tmpAddr, readByVector ? kBlockBytes : static_cast<uint32_t>(sizeof(T)));
  const uint64_t need = std::max(repeats, written);
  if (need * sizeof(T) > tmpBytes) {
    Fail(api, "sharedTmpBuffer has %u elements, %llu repeats need %llu", tmpBytes / static_cast<uint32_t>(sizeof(T)),
         static_cast<unsigned long long>(repeats), static_cast<unsigned long long>(need));
  }
  hazard::UbWrite(hazard::kV, api, tmpAddr, need * sizeof(T));
}

// The result dst[0] = tmp[0] read by the scalar unit, between CANN's V -> S and S -> V, S -> MTE3 handshakes.
template <typename T>
void ScalarResult(const char* api, uint32_t dstAddr, uint32_t tmpAddr) {
  AccHandshake(api, AscendC::HardEvent::V_S);
  std::memcpy(UbAt(dstAddr), UbAt(tmpAddr), sizeof(T));
  AccHandshake(api, AscendC::HardEvent::S_V);
  AccHandshake(api, AscendC::HardEvent::S_MTE3);
}

// CANN's ReduceImplNoIndex for REDUCE_SUM (asc-devkit dav_c220 / dav_c100 kernel_operator_vec_reduce_impl.h):
// `repeats` repeats of src under the mask (hi, lo), srcRep blocks apart, summed to dst[0] through tmp.
// ReduceSumFirstStep: one vcadd sum per repeat into tmp[0, repeats), at most 255 repeats an instruction
// (dav-c100: 256 - 32 / sizeof(T)); SecondStep: the sums of each 64 (half: 128) of them into tmp[0, ...)
// (dav-c220: one counter-mode vcadd, the device branch, ASCENDC_CPU_DEBUG == 0; dav-c100: full repeats, then
// the tail into dst and back to tmp by the scalar unit); FinalStep: their sum into dst. The mask is left
// as the last step set it, as CANN leaves it.
template <typename T>
void IssueReduceSumImpl(const char* api, uint32_t dstAddr, uint32_t srcAddr, uint32_t tmpAddr, uint64_t hi,
                        uint64_t lo, uint64_t repeats, uint64_t srcRep) {
  const bool a2 = CountFormUsesCounterMode();
  const isa::Arch arch = a2 ? isa::Arch::kA2 : isa::Arch::k910;
  const isa::Elem t = ElemOf<T>();
  auto vcadd = [&](uint32_t dst, uint32_t src, uint64_t repeat, uint64_t rep) {
    isa::VecCadd(arch, t, UbAt(dst), UbAt(src), repeat, 1, 1, rep, 0);
  };
  if (repeats == 1) {
    isa::SetVectorMask(hi, lo);
    vcadd(tmpAddr, srcAddr, 1, srcRep);
    ScalarResult<T>(api, dstAddr, tmpAddr);
    return;
  }
  const uint64_t maxRepeats = a2 ? 255 : 256 - kBlockBytes / sizeof(T);
  for (uint64_t done = 0; done < repeats;) {
    const uint64_t n = std::min(maxRepeats, repeats - done);
    isa::SetVectorMask(hi, lo);
    vcadd(tmpAddr + static_cast<uint32_t>(done * sizeof(T)),
          srcAddr + static_cast<uint32_t>(done * srcRep * kBlockBytes), n, srcRep);
    done += n;
  }
  sync::PipeBarrier(PIPE_V);
  const uint32_t lanes = LanesFor(sizeof(T));
  if (a2) {
    isa::SetMaskCount();
    isa::SetVectorMask(0, repeats);
    vcadd(tmpAddr, tmpAddr, 1, 8);
    isa::SetMaskNorm();
  } else {
    const uint64_t full = repeats / lanes, left = repeats % lanes;
    uint64_t mlo = 0, mhi = 0;
    if (full != 0) {
      LaneBits(lanes, lanes, &mlo, &mhi);
      isa::SetVectorMask(mhi, mlo);
      vcadd(tmpAddr, tmpAddr, full, 8);
    }
    if (left != 0) {
      LaneBits(left, lanes, &mlo, &mhi);
      isa::SetVectorMask(mhi, mlo);
      vcadd(dstAddr, tmpAddr + static_cast<uint32_t>(full * lanes * sizeof(T)), 1, 8);
      AccHandshake(api, AscendC::HardEvent::V_S);
      std::memcpy(UbAt(tmpAddr + static_cast<uint32_t>(full * sizeof(T))), UbAt(dstAddr), sizeof(T));
      if (full != 0) AccHandshake(api, AscendC::HardEvent::S_V);
    }
  }
  sync::PipeBarrier(PIPE_V);
  const uint64_t second = (repeats + lanes - 1) / lanes;
  if (second == 1) {
    ScalarResult<T>(api, dstAddr, tmpAddr);
    return;
  }
  uint64_t mlo = 0, mhi = 0;
  LaneBits(second, lanes, &mlo, &mhi);
  isa::SetVectorMask(mhi, mlo);
  vcadd(dstAddr, tmpAddr, 1, 8);
}

template <typename T>
void ReduceSumCount(uint32_t dstAddr, uint32_t dstBytes, const Operand& src, uint32_t tmpAddr, uint32_t tmpBytes,
                    const LanePlan& plan, uint64_t count, bool setMask) {
  const char* api = "ReduceSum";
  CheckAligned(api, "src", src.addr, kBlockBytes);
  CheckFootprint(api, src, plan);
  if (plan.repeats > 0) CheckDst(api, dstAddr, dstBytes, sizeof(T), sizeof(T));
  if (CountFormUsesCounterMode()) {
    // dav-c220 (asc-devkit ReduceSumImpl): counter mode, one vcadd accumulating into the ACC register
    // (accMode 1), the V -> S handshake, get_acc_val and a scalar store to dst[0], the S -> V and
    // S -> MTE3 handshakes; the mask is restored only when the call set it.
    if (setMask) {
      isa::SetMaskCount();
      isa::SetVectorMask(0, count);
    }
    isa::VecCadd(isa::Arch::kA2, ElemOf<T>(), UbAt(dstAddr), UbAt(src.addr), 1, 1, 1, 8, 1);
    AccHandshake(api, AscendC::HardEvent::V_S);
    const int64_t acc = isa::GetAccVal();
    if (plan.repeats > 0) std::memcpy(UbAt(dstAddr), &acc, sizeof(T));
    AccHandshake(api, AscendC::HardEvent::S_V);
    AccHandshake(api, AscendC::HardEvent::S_MTE3);
    if (setMask) RestoreNormalFullMask();
    return;
  }
  // dav-c100 (asc-devkit ReduceSum, "other version"): the full repeats (or the whole count when it is
  // shorter than a repeat) as one ReduceImpl, the tail as another, then both sums added by a third.
  const uint32_t lanes = LanesFor(sizeof(T));
  if (!setMask) {  // isSetMask does not apply here: the footprint is the count's
    CheckFootprint(api, src, PlanCount(lanes, count));
    if (count > 0) CheckDst(api, dstAddr, dstBytes, sizeof(T), sizeof(T));
  }
  uint64_t repeats = count / lanes, body = lanes, tail = count % lanes;
  if (repeats == 0) repeats = 1, body = count, tail = 0;
  CheckTmp<T>(api, tmpAddr, tmpBytes, repeats, std::max<uint64_t>(repeats, tail != 0 ? 2 : 1), repeats > 1 || tail != 0);
  if (count == 0) return;
  uint64_t lo = 0, hi = 0;
  LaneBits(body, lanes, &lo, &hi);
  IssueReduceSumImpl<T>(api, dstAddr, src.addr, tmpAddr, hi, lo, repeats, 8);
  AccHandshake(api, AscendC::HardEvent::V_S);
  if (tail == 0) return;
  T bodySum, tailSum;
  std::memcpy(&bodySum, UbAt(dstAddr), sizeof(T));
  LaneBits(tail, lanes, &lo, &hi);
  IssueReduceSumImpl<T>(api, dstAddr, src.addr + static_cast<uint32_t>(repeats * lanes * sizeof(T)), tmpAddr, hi, lo,
                        1, 8);
  AccHandshake(api, AscendC::HardEvent::V_S);
  std::memcpy(&tailSum, UbAt(dstAddr), sizeof(T));
  std::memcpy(UbAt(tmpAddr), &bodySum, sizeof(T));
  std::memcpy(UbAt(tmpAddr + sizeof(T)), &tailSum, sizeof(T));
  AccHandshake(api, AscendC::HardEvent::S_V);
  LaneBits(2, lanes, &lo, &hi);
  IssueReduceSumImpl<T>(api, dstAddr, tmpAddr, tmpAddr, hi, lo, 1, 8);
}

template <typename T>
void ReduceSumHighDim(uint32_t dstAddr, uint32_t dstBytes, const Operand& src, uint32_t tmpAddr, uint32_t tmpBytes,
                      const LanePlan& plan) {
  const char* api = "ReduceSum";
  CheckAligned(api, "src", src.addr, kBlockBytes);
  CheckFootprint(api, src, plan);
  uint64_t mask[2];
  plan.MaskOf(0, mask);
  // CANN's ReduceSum returns before its checks' instructions when the mask selects nothing.
  if (plan.repeats == 0 || (mask[0] == 0 && mask[1] == 0)) return;
  CheckTmp<T>(api, tmpAddr, tmpBytes, plan.repeats, plan.repeats, plan.repeats > 1);
  CheckDst(api, dstAddr, dstBytes, sizeof(T), sizeof(T));
  IssueReduceSumImpl<T>(api, dstAddr, src.addr, tmpAddr, mask[1], mask[0], plan.repeats, src.repStride);
}

template void ReduceRepeats<float>(ReduceKind, const char*, uint32_t, uint32_t, const Operand&, const LanePlan&,
                                   int32_t, int32_t);
template void ReduceRepeats<half>(ReduceKind, const char*, uint32_t, uint32_t, const Operand&, const LanePlan&,
                                  int32_t, int32_t);
template void ReduceSumCount<float>(uint32_t, uint32_t, const Operand&, uint32_t, uint32_t, const LanePlan&, uint64_t,
                                   bool);
template void ReduceSumCount<half>(uint32_t, uint32_t, const Operand&, uint32_t, uint32_t, const LanePlan&, uint64_t,
                                  bool);
template void ReduceSumHighDim<float>(uint32_t, uint32_t, const Operand&, uint32_t, uint32_t, const LanePlan&);
template void ReduceSumHighDim<half>(uint32_t, uint32_t, const Operand&, uint32_t, uint32_t, const LanePlan&);

}  // namespace vec
}  // namespace sim
