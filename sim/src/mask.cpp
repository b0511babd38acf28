// Lane plans: how the mask register, its mode and a call's mask argument select the lanes of
// each repeat (docs/hardware-rules.md §4).
#include "ascendc/mask.h"

namespace sim {
namespace vec {

LanePlan PlanRegister(uint32_t lanes, uint64_t repeatTime) {
  const CoreContext& core = Core();
  return normgrad::isa::num::PlanMaskRegister(lanes, core.maskCounterMode, core.maskLo, core.maskHi, repeatTime);
}

LanePlan PlanContinuous(const char* api, uint32_t lanes, int64_t mask, uint64_t repeatTime, bool isSetMask) {
  if (isSetMask) {
    if (mask < 0) Fail(api, "continuous mask %lld is negative", static_cast<long long>(mask));
    CoreContext& core = Core();
    if (core.maskCounterMode) {
      core.maskHi = 0;
      core.maskLo = static_cast<uint64_t>(mask);
    } else {
      LaneBits(static_cast<uint64_t>(mask), lanes, &core.maskLo, &core.maskHi);
    }
  }
  return PlanRegister(lanes, repeatTime);
}

LanePlan PlanBitwise(const char* api, uint32_t lanes, const uint64_t* mask, uint64_t repeatTime, bool isSetMask) {
  if (isSetMask) {
    CoreContext& core = Core();
    if (lanes <= 64 && mask[1] != 0 && !core.maskCounterMode) {
      Fail(api, "bitwise mask[1] (high word) is 0x%llx, must be 0 for %u-lane (32-bit) operands",
           static_cast<unsigned long long>(mask[1]), lanes);
    }
    core.maskLo = mask[0];
    core.maskHi = mask[1];
  }
  return PlanRegister(lanes, repeatTime);
}

void RestoreNormalFullMask() {
  CoreContext& core = Core();
  core.maskCounterMode = false;
  core.maskLo = kAllOnes;
  core.maskHi = kAllOnes;
}

}  // namespace vec
}  // namespace sim
