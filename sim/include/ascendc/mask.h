// The vector mask register: SetVectorMask, SetMaskCount/SetMaskNorm, ResetMask (docs/hardware-rules.md §4).
// Normal mode: 128 lane bits (lo = lanes 0..63, hi = lanes 64..127). Counter mode: the low
// word is a total element count. Kernels start in Normal mode with every lane on.
#pragma once
#include <cstdint>

#include "ascendc/core.h"
#include "ascendc/vec_engine.h"
#include "normgrad_isa/model.h"

namespace AscendC {

enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };

// Writes the register as is: lane bits in Normal mode, (0, count) in counter mode.
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
  sim::Core();  // inside a kernel only
  normgrad::isa::SetVectorMask(maskHigh, maskLow);
}

// NORMAL: lanes [0, len) of a T-typed instruction; COUNTER: a count of len elements.
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(int32_t len) {
  if (len < 0) sim::Fail("SetVectorMask", "len %d is negative", len);
  sim::Core();  // inside a kernel only
  if (mode == MaskMode::COUNTER) {
    normgrad::isa::SetVectorMask(0, static_cast<uint64_t>(len));
    return;
  }
  uint64_t lo = 0, hi = 0;
  sim::vec::LaneBits(static_cast<uint64_t>(len), sim::vec::LanesFor(sizeof(T)), &lo, &hi);
  normgrad::isa::SetVectorMask(hi, lo);
}

inline void SetMaskCount() {
  sim::Core();
  normgrad::isa::SetMaskCount();
}
inline void SetMaskNorm() {
  sim::Core();
  normgrad::isa::SetMaskNorm();
}
inline void ResetMask() { SetVectorMask<uint16_t>(sim::vec::kAllOnes, sim::vec::kAllOnes); }

}  // namespace AscendC
