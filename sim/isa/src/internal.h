// Model internals shared by the source files (not part of the library's interface).
#pragma once
#include <cstdint>

#include "normgrad_isa/model.h"
#include "normgrad_isa/numerics.h"

namespace normgrad {
namespace isa {

// Tells the atomic listener about the current atomic mode.
void NotifyAtomic();

// The UB operand of an instruction: false (after a violation) when p does not lie in the
// registered UB or [p, p + extent) leaves it, or p is not `align`-byte aligned within it.
bool CheckUb(const char* name, const char* role, const void* p, uint64_t extent, uint32_t align);
// Range checks of instruction fields; false after a violation.
// Inline: flags, barriers and repeat fields check one on nearly every instruction.
bool RangeViolation(const char* name, const char* field, uint64_t v, uint64_t lo, uint64_t hi);  // false
inline bool CheckRange(const char* name, const char* field, uint64_t v, uint64_t lo, uint64_t hi) {
  return (v >= lo && v <= hi) || RangeViolation(name, field, v, lo, hi);
}

// Counts one instruction with `units` repeats / bursts on `pipe`.
void Count(int pipe, uint64_t units);
// Counts one vector instruction (PIPE_V) with `repeats` repeats of class `cls` on core s (the
// calling core's: Core()).
void CountVec(State& s, VecClass cls, uint64_t repeats);
inline void CountVec(VecClass cls, uint64_t repeats) { CountVec(Core(), cls, repeats); }
// Counts one GM<->UB copy instruction of `nBurst` bursts unless the GM copy hook leaves it out;
// false when it is left out (the caller then adds no bytes either).
bool CountGmCopy(State& s, bool toGm, const void* gm, uint64_t nBurst, uint64_t rowBytes, uint64_t pitch);

constexpr int kPipeS = 0, kPipeV = 1, kPipeMte2 = 4, kPipeMte3 = 5, kPipeAll = 6;

}  // namespace isa
}  // namespace normgrad
