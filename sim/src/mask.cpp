// Lane plans: how the mask register, its mode and a call's mask argument select the lanes of
// each repeat (docs/hardware-rules.md §4).
#include "ascendc/mask.h"

namespace sim {
namespace vec {
namespace {

// Keeps only lanes that exist in a repeat of `lanes` lanes.
void ClampToLanes(uint32_t lanes, uint64_t* lo, uint64_t* hi) {
  if (lanes <= 64) {
    *hi = 0;
    if (lanes < 64) *lo &= (1ull << lanes) - 1;
  } else if (lanes < 128) {
    *hi &= (1ull << (lanes - 64)) - 1;
  }
}

}  // namespace

void LaneBits(uint64_t n, uint32_t lanes, uint64_t* lo, uint64_t* hi) {
  if (n > lanes) n = lanes;
  *lo = n >= 64 ? kAllOnes : (1ull << n) - 1;
  *hi = n <= 64 ? 0 : (n >= 128 ? kAllOnes : (1ull << (n - 64)) - 1);
}

LanePlan PlanCount(uint32_t lanes, uint64_t count) {
  LanePlan p;
  p.lanes = lanes;
  p.repeats = (count + lanes - 1) / lanes;
  LaneBits(lanes, lanes, &p.lo, &p.hi);
  uint64_t tail = count - (p.repeats == 0 ? 0 : (p.repeats - 1) * lanes);
  LaneBits(tail, lanes, &p.tailLo, &p.tailHi);
  return p;
}

LanePlan PlanRegister(uint32_t lanes, uint64_t repeatTime) {
  const CoreContext& core = Core();
  if (core.maskCounterMode) return PlanCount(lanes, core.maskLo);
  LanePlan p;
  p.lanes = lanes;
  p.lo = core.maskLo;
  p.hi = core.maskHi;
  ClampToLanes(lanes, &p.lo, &p.hi);
  // An all-zero mask is a NOP: no repeat touches anything.
  p.repeats = (p.lo | p.hi) == 0 ? 0 : repeatTime;
  p.tailLo = p.lo;
  p.tailHi = p.hi;
  return p;
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
