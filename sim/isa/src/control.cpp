// Mask and mode registers, atomics, event flags and barriers, the scalar bit instructions.
#include "internal.h"

namespace normgrad {
namespace isa {
namespace {

bool CheckFlag(const char* name, int src, int dst, int id) {
  return CheckRange(name, "src pipe", static_cast<uint64_t>(src), 0, kPipeCount - 1) &&
         CheckRange(name, "dst pipe", static_cast<uint64_t>(dst), 0, kPipeCount - 1) &&
         CheckRange(name, "event id", static_cast<uint64_t>(id), 0, kEventIds - 1);
}

}  // namespace

void SetAtomicType(Arch arch, AtomicType t) {
  State& s = Core();
  s.atomicType = t;
  s.atomicEnabled = t != AtomicType::kNone;
  s.vectorGmOperands = s.atomicEnabled && arch == Arch::k910 && !s.deviceAtomicStores;
  if (t == AtomicType::kNone) s.atomicOp = AtomicOp::kAdd;
  NotifyAtomic();
}
void SetAtomicOp(AtomicOp op) {
  Core().atomicOp = op;
  NotifyAtomic();
}

// In one process the pipes run in program order, so a flag only has to be set before it is
// waited for; what is checked is the pairing a device needs to make progress.
void SetFlag(int srcPipe, int dstPipe, int id) {
  if (!CheckFlag("set_flag", srcPipe, dstPipe, id)) return;
  State& s = Core();
  ++s.flags[srcPipe][dstPipe][id];
  ++s.counters.setFlags;
  ++s.counters.instr[srcPipe];
}

void WaitFlag(int srcPipe, int dstPipe, int id) {
  if (!CheckFlag("wait_flag", srcPipe, dstPipe, id)) return;
  State& s = Core();
  ++s.counters.waitFlags;
  ++s.counters.instr[dstPipe];
  if (s.flags[srcPipe][dstPipe][id] == 0) {
    Violation("wait_flag(%s, %s, EVENT_ID%d) has no earlier set_flag on the same pipes and id: the device would "
              "wait forever",
              PipeName(srcPipe), PipeName(dstPipe), id);
    return;
  }
  --s.flags[srcPipe][dstPipe][id];
}

void PipeBarrier(int pipe) {
  if (!CheckRange("pipe_barrier", "pipe", static_cast<uint64_t>(pipe), 0, kPipeCount - 1)) return;
  State& s = Core();
  ++s.counters.barriers;
  ++s.counters.instr[pipe];
  if (pipe == kPipeAll) {
    ++s.counters.fullBarriers;
    NoteFullDrain();
    s.instrAtFullBarrier = InstructionsIssued();
  }
}

int64_t Sff0(uint64_t x) {
  ++Core().counters.instr[kPipeS];
  return ~x == 0 ? -1 : __builtin_ctzll(~x);  // all ones: no zero bit
}

uint64_t Sbitset0(uint64_t x, int64_t idx) {
  ++Core().counters.instr[kPipeS];
  if (!CheckRange("sbitset0", "idx", static_cast<uint64_t>(idx), 0, 63)) return x;
  return x & ~(1ull << idx);
}

uint64_t Sbitset1(uint64_t x, int64_t idx) {
  ++Core().counters.instr[kPipeS];
  if (!CheckRange("sbitset1", "idx", static_cast<uint64_t>(idx), 0, 63)) return x;
  return x | (1ull << idx);
}

}  // namespace isa
}  // namespace normgrad
