// Reductions in the documented order (docs/hardware-rules.md §4): a pairwise tree over lanes in lane
// order inside a repeat or block, repeat results accumulated sequentially (ReduceSum count
// form) or by further trees (ReduceSum high-dim form). Instantiated for half and float.
#include "ascendc/reduce.h"

#include <cstring>

#include "ascendc/hazard.h"
#include "ascendc/isa_issue.h"
#include "ascendc/pipe.h"
#include "ascendc/sync.h"

namespace sim {
namespace vec {
namespace {

inline float AddT(float a, float b) { return a + b; }
inline half AddT(half a, half b) { return Apply2<OpAdd>(a, b); }

// Pairwise tree over v[0, n), n a power of two (shared with the instruction-level model).
template <typename T>
T TreeSum(const T* v, uint32_t n) {
  return normgrad::isa::num::TreeSum(v, n, [](T a, T b) { return AddT(a, b); });
}

// Lane values of repeat r (inactive lanes 0); returns whether any lane is active.
template <typename T>
bool GatherLanes(const uint8_t* ub, const Operand& src, const LanePlan& plan, uint64_t r, T* v) {
  uint64_t m[2];
  plan.MaskOf(r, m);
  uint64_t full[2];
  LaneBits(plan.lanes, plan.lanes, &full[0], &full[1]);
  if (m[0] == full[0] && m[1] == full[1] && src.blkStride == 1) {  // contiguous repeat: one copy
    std::memcpy(v, ub + src.addr + r * src.repStride * kBlockBytes, plan.lanes * sizeof(T));
    return true;
  }
  for (uint32_t l = 0; l < plan.lanes; ++l) {
    v[l] = (m[l / 64] >> (l % 64)) & 1u ? LoadLane<T>(ub, src, r, l) : T(0.0f);
  }
  return (m[0] | m[1]) != 0;
}

bool AnyActive(const LanePlan& plan, uint64_t r, uint32_t first, uint32_t count) {
  uint64_t m[2];
  plan.MaskOf(r, m);
  for (uint32_t l = first; l < first + count; ++l) {
    if ((m[l / 64] >> (l % 64)) & 1u) return true;
  }
  return false;
}

void CheckDst(const char* api, uint32_t dstAddr, uint32_t dstBytes, uint64_t endBytes, uint32_t align) {
  CheckAligned(api, "dst", dstAddr, align);
  if (endBytes > dstBytes || dstAddr + endBytes > Core().ub.size()) {
    Fail(api, "dst: results reach byte %llu but the tensor has %u bytes", static_cast<unsigned long long>(endBytes),
         dstBytes);
  }
  hazard::UbWrite(hazard::kV, api, dstAddr, endBytes);
}

// WholeReduceSum (vcadd, one sum per repeat) and BlockReduceSum (vcgadd, one per 32-byte block) as
// the instructions CANN's implementation issues; PairReduceSum (vcpadd) has no model instruction yet.
template <typename T>
void IssueReduce(ReduceKind kind, uint32_t dstAddr, const Operand& src, const LanePlan& plan, int32_t dstRepStride) {
  const isa::Elem t = ElemOf<T>();
  const uint64_t dstRep = static_cast<uint64_t>(dstRepStride);
  if (kind == ReduceKind::kWhole) {
    const isa::Arch arch = CountFormUsesCounterMode() ? isa::Arch::kA2 : isa::Arch::k910;
    isa::VecCadd(arch, t, UbAt(dstAddr), UbAt(src.addr), plan.repeats, dstRep, src.blkStride, src.repStride, 0);
  } else {
    isa::VecCgadd(t, UbAt(dstAddr), UbAt(src.addr), plan.repeats, dstRep, src.blkStride, src.repStride);
  }
}

template <typename T>
void Store(uint8_t* ub, uint32_t addr, uint64_t index, T v) {
  std::memcpy(ub + addr + index * sizeof(T), &v, sizeof(T));
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
  if (kind == ReduceKind::kPair) CountInstr(OpClass::kReduce, plan.repeats);  // the others: the model counts
  CheckAligned(api, "src", src.addr, kBlockBytes);
  CheckFootprint(api, src, plan);
  if (plan.repeats == 0) {
    if (kind != ReduceKind::kPair) IssueReduce<T>(kind, dstAddr, src, plan, dstRepStride);
    return;
  }
  // Output elements per repeat and the dst element stride per dstRepStride unit.
  uint32_t outPerRepeat = kind == ReduceKind::kWhole ? 1 : kind == ReduceKind::kBlock ? 8 : plan.lanes / 2;
  uint64_t unit = kind == ReduceKind::kWhole ? 1 : kind == ReduceKind::kBlock ? 8 : 128 / sizeof(T);
  uint32_t align = kind == ReduceKind::kWhole ? sizeof(T) : kind == ReduceKind::kBlock ? 8 * sizeof(T) : kBlockBytes;
  uint64_t end = ((plan.repeats - 1) * dstRepStride * unit + outPerRepeat) * sizeof(T);
  CheckDst(api, dstAddr, dstBytes, end, align);
  if (kind != ReduceKind::kPair) {
    IssueReduce<T>(kind, dstAddr, src, plan, dstRepStride);
    return;
  }
  uint8_t* ub = Core().ub.data();
  T v[kMaxLanes];
  for (uint64_t r = 0; r < plan.repeats; ++r) {
    GatherLanes<T>(ub, src, plan, r, v);
    uint64_t base = r * dstRepStride * unit;
    for (uint32_t k = 0; k < plan.lanes / 2; ++k) {
      if (AnyActive(plan, r, 2 * k, 2)) Store(ub, dstAddr, base + k, AddT(v[2 * k], v[2 * k + 1]));
    }
  }
}

// The scalar unit's handshake around get_acc_val in CANN's dav-c220 ReduceSumImpl: V -> S before the
// read, S -> V and S -> MTE3 after the scalar store, each on an event id TPipe::FetchEventID gives.
void AccHandshake(const char* api, AscendC::HardEvent event) {
  const CoreContext& c = Core();
  const int32_t id = c.pipe != nullptr ? static_cast<AscendC::TPipe*>(c.pipe)->FetchEventID(event) : 0;
  sync::SetFlag(api, static_cast<int>(event), id);
  sync::WaitFlag(api, static_cast<int>(event), id);
}

template <typename T>
void ReduceSumCount(uint32_t dstAddr, uint32_t dstBytes, const Operand& src, const LanePlan& plan, uint64_t count,
                    bool setMask) {
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
  // dav-c100: CANN's implementation is three steps through sharedTmpBuffer (ReduceSumFirstStep ...); not
  // issued here (docs/sim.md): one instruction, the repeat sums accumulated in order.
  CountInstr(OpClass::kReduce, plan.repeats);
  if (plan.repeats > 0) {
    uint8_t* ub = Core().ub.data();
    T v[kMaxLanes];
    T acc = T(0.0f);
    for (uint64_t r = 0; r < plan.repeats; ++r) {
      GatherLanes<T>(ub, src, plan, r, v);
      T t = TreeSum(v, plan.lanes);
      acc = r == 0 ? t : AddT(acc, t);
    }
    Store(ub, dstAddr, 0, acc);
  }
  RestoreNormalFullMask();
}

template <typename T>
void ReduceSumHighDim(uint32_t dstAddr, uint32_t dstBytes, const Operand& src, uint32_t tmpAddr, uint32_t tmpBytes,
                      const LanePlan& plan, int32_t repeatTime) {
  const char* api = "ReduceSum";
  CheckAligned(api, "src", src.addr, kBlockBytes);
  CheckFootprint(api, src, plan);
  uint64_t repeats = plan.repeats;
  if (repeats == 0) {
    CountInstr(OpClass::kReduce, 0);
    RestoreNormalFullMask();
    return;
  }
  const uint32_t perBlock = kBlockBytes / sizeof(T);
  uint64_t need = (repeats + perBlock - 1) / perBlock * perBlock;
  CheckAligned(api, "sharedTmpBuffer", tmpAddr, kBlockBytes);
  if (need * sizeof(T) > tmpBytes) {
    Fail(api, "sharedTmpBuffer has %u elements, %d repeats need %llu", tmpBytes / static_cast<uint32_t>(sizeof(T)),
         repeatTime, static_cast<unsigned long long>(need));
  }
  hazard::UbWrite(hazard::kV, api, tmpAddr, need * sizeof(T));
  CheckDst(api, dstAddr, dstBytes, sizeof(T), sizeof(T));
  uint8_t* ub = Core().ub.data();
  T v[kMaxLanes];
  for (uint64_t r = 0; r < repeats; ++r) {
    GatherLanes<T>(ub, src, plan, r, v);
    Store(ub, tmpAddr, r, TreeSum(v, plan.lanes));
  }
  // Then trees over the partial sums, lanes at a time (tail lanes 0), until one value is left.
  uint64_t executed = repeats;
  Operand tmp{"sharedTmpBuffer", tmpAddr, tmpBytes, static_cast<uint32_t>(sizeof(T)), 1, 8};
  for (uint64_t n = repeats; n > 1;) {
    LanePlan stage = PlanCount(plan.lanes, n);
    for (uint64_t r = 0; r < stage.repeats; ++r) {
      GatherLanes<T>(ub, tmp, stage, r, v);
      Store(ub, tmpAddr, r, TreeSum(v, plan.lanes));
    }
    executed += stage.repeats;
    n = stage.repeats;
  }
  T total;
  std::memcpy(&total, ub + tmpAddr, sizeof(T));
  Store(ub, dstAddr, 0, total);
  CountInstr(OpClass::kReduce, executed);
  RestoreNormalFullMask();
}

template void ReduceRepeats<float>(ReduceKind, const char*, uint32_t, uint32_t, const Operand&, const LanePlan&,
                                   int32_t, int32_t);
template void ReduceRepeats<half>(ReduceKind, const char*, uint32_t, uint32_t, const Operand&, const LanePlan&,
                                  int32_t, int32_t);
template void ReduceSumCount<float>(uint32_t, uint32_t, const Operand&, const LanePlan&, uint64_t, bool);
template void ReduceSumCount<half>(uint32_t, uint32_t, const Operand&, const LanePlan&, uint64_t, bool);
template void ReduceSumHighDim<float>(uint32_t, uint32_t, const Operand&, uint32_t, uint32_t, const LanePlan&, int32_t);
template void ReduceSumHighDim<half>(uint32_t, uint32_t, const Operand&, uint32_t, uint32_t, const LanePlan&, int32_t);

}  // namespace vec
}  // namespace sim
