// Operand and field checks shared by the instructions, and the counters.
#include "internal.h"

namespace normgrad {
namespace isa {

bool CheckUb(const char* name, const char* role, const void* p, uint64_t extent, uint32_t align) {
  const State& s = Core();
  if (s.ubBase == nullptr || s.operandsChecked) return true;  // nothing to check against, or checked already
  const uint8_t* b = static_cast<const uint8_t*>(p);
  if (b < s.ubBase || b >= s.ubBase + s.ubSize) {
    Violation("%s: %s %p is not in the UB [%p, +%llu)", name, role, p, static_cast<const void*>(s.ubBase),
              static_cast<unsigned long long>(s.ubSize));
    return false;
  }
  uint64_t off = static_cast<uint64_t>(b - s.ubBase);
  if (align > 1 && off % align != 0) {
    Violation("%s: %s UB address %llu is not %u-byte aligned", name, role, static_cast<unsigned long long>(off),
              align);
    return false;
  }
  if (off + extent > s.ubSize) {
    Violation("%s: %s touches UB bytes [%llu, %llu), beyond the UB of %llu bytes", name, role,
              static_cast<unsigned long long>(off), static_cast<unsigned long long>(off + extent),
              static_cast<unsigned long long>(s.ubSize));
    return false;
  }
  return true;
}

bool RangeViolation(const char* name, const char* field, uint64_t v, uint64_t lo, uint64_t hi) {
  Violation("%s: %s = %lld is outside [%llu, %llu]", name, field, static_cast<long long>(v),
            static_cast<unsigned long long>(lo), static_cast<unsigned long long>(hi));
  return false;
}

void Count(int pipe, uint64_t units) {
  Counters& c = Core().counters;
  ++c.instr[pipe];
  c.repeats[pipe] += units;
}

void CountVec(State& s, VecClass cls, uint64_t repeats) {
  Counters& c = s.counters;
  ++c.instr[kPipeV];
  c.repeats[kPipeV] += repeats;
  ++c.vecInstr;
  c.vecRepeats[static_cast<int>(cls)] += repeats;
  if (s.vecCountListener != nullptr) s.vecCountListener(s.vecCountUser, cls, repeats);
}

namespace {
GmCopyHook g_gmCopyHook = nullptr;
}  // namespace

void SetGmCopyHook(GmCopyHook hook) { g_gmCopyHook = hook; }

bool CountGmCopy(State& s, bool toGm, const void* gm, uint64_t nBurst, uint64_t rowBytes, uint64_t pitch) {
  if (g_gmCopyHook != nullptr && !g_gmCopyHook(toGm, gm, nBurst, rowBytes, pitch)) return false;
  Counters& c = s.counters;
  const int pipe = toGm ? kPipeMte3 : kPipeMte2;
  ++c.instr[pipe];
  c.repeats[pipe] += nBurst;
  ++(toGm ? c.dmaOut : c.dmaIn);
  return true;
}

void DropTrailingDrain() {
  Counters& c = Core().counters;
  const uint64_t dma = c.dmaIn + c.dmaOut;
  if (dma > 0 && dma == Core().dmaAtLastDrain && c.drains > 0) --c.drains;
}

uint64_t InstructionsIssued() {
  uint64_t n = 0;
  for (uint64_t i : Core().counters.instr) n += i;
  return n;
}

void NoteFullDrain() {
  State& s = Core();
  const uint64_t dma = s.counters.dmaIn + s.counters.dmaOut;
  if (dma != s.dmaAtLastDrain) ++s.counters.drains;
  s.dmaAtLastDrain = dma;
}

}  // namespace isa
}  // namespace normgrad
