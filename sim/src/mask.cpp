// Lane plans: how the mask register, its mode and a call's mask argument select the lanes of
// each repeat (docs/hardware-rules.md §4).
#include "ascendc/mask.h"

#include "ascendc/isa_issue.h"

namespace sim {
namespace vec {

LanePlan PlanRegister(uint32_t lanes, uint64_t repeatTime) {
  const isa::State& reg = isa::Core();
  return normgrad::isa::num::PlanMaskRegister(lanes, reg.counterMode, reg.maskLo, reg.maskHi, repeatTime);
}

namespace {

// CANN's api_check (asc-tools cpudebug/src/api_check/kernel_base_check.cpp, CheckMaskImm and CheckMaskArray,
// for __NPU_ARCH__ 1001 and 2002) rejects a level-0 call in normal mask mode whose mask selects no lane on
// the Atlas training series (dav-c100) and Ascend 310P (dav-m200); on Atlas A2/A3 such a call is a no-op. The
// mask checked is the one the call runs with: its argument when it sets the register, else the register; for
// 32-bit lanes only the low word (api_check clears the high one, as the hardware ignores it).
void CheckNormalMaskSelectsALane(const char* api, uint32_t lanes) {
  const CoreContext& core = Core();
  const isa::State& reg = isa::Core();
  if (reg.counterMode || !core.soc->rejectsZeroMask) return;
  if (reg.maskLo == 0 && (lanes <= 64 || reg.maskHi == 0)) {
    Fail(api, "the mask selects no lane in normal mode, which %s rejects (CANN's api_check: \"maskHigh and "
         "maskLow cannot be both 0\" on the Atlas training series; on Atlas A2/A3 it is a no-op)", core.soc->name);
  }
}

}  // namespace

LanePlan PlanContinuous(const char* api, uint32_t lanes, int64_t mask, uint64_t repeatTime, bool isSetMask) {
  if (isSetMask) {
    if (mask < 0) Fail(api, "continuous mask %lld is negative", static_cast<long long>(mask));
    if (isa::Core().counterMode) {
      isa::SetVectorMask(0, static_cast<uint64_t>(mask));
    } else {
      uint64_t lo = 0, hi = 0;
      LaneBits(static_cast<uint64_t>(mask), lanes, &lo, &hi);
      isa::SetVectorMask(hi, lo);
    }
  }
  CheckNormalMaskSelectsALane(api, lanes);
  return PlanRegister(lanes, repeatTime);
}

LanePlan PlanBitwise(const char* api, uint32_t lanes, const uint64_t* mask, uint64_t repeatTime, bool isSetMask) {
  if (isSetMask) {
    if (lanes <= 64 && mask[1] != 0 && !isa::Core().counterMode) {
      Fail(api, "bitwise mask[1] (high word) is 0x%llx, must be 0 for %u-lane (32-bit) operands",
           static_cast<unsigned long long>(mask[1]), lanes);
    }
    isa::SetVectorMask(mask[1], mask[0]);
  }
  CheckNormalMaskSelectsALane(api, lanes);
  return PlanRegister(lanes, repeatTime);
}

void RestoreNormalFullMask() {
  isa::SetMaskNorm();
  isa::SetVectorMask(kAllOnes, kAllOnes);
}

}  // namespace vec
}  // namespace sim
