// Per-core state of the instruction-level model (one process = one core, as CANN's CPU-debug
// launcher runs kernels): the vector mask register and its mode, the atomic-store mode, the
// event flags, the cost counters, the core's UB window and the violation hook. Front end B reads
// and registers these; the intrinsics (intrinsics.h) change them. No CANN header needed.
#pragma once
#include <cstdint>

namespace normgrad {
namespace isa {

// Hardware pipes, numbered as CANN's pipe_t (cann-check stubs/stub_fun.h): PIPE_S = 0, PIPE_V,
// PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5, PIPE_V2, PIPE_FIX.
constexpr int kPipeCount = 11;
constexpr int kEventIds = 8;
const char* PipeName(int pipe);

// Element type of an atomic add (set_atomic_<type>); kNone = plain stores.
enum class AtomicType : uint8_t { kNone, kF32, kF16, kBf16, kS32, kS16, kS8 };
// The operation (set_atomic_add / _max / _min); only kAdd is modelled.
enum class AtomicOp : uint8_t { kAdd, kMax, kMin };

// Work done by this core, by pipe and DMA direction (a cost model multiplies these out).
struct Counters {
  uint64_t instr[kPipeCount] = {};    // instructions issued per pipe
  uint64_t repeats[kPipeCount] = {};  // vector repeats (PIPE_V), bursts (MTE2/MTE3)
  uint64_t gmToUbBytes = 0, ubToGmBytes = 0, ubToUbBytes = 0;
  uint64_t setFlags = 0, waitFlags = 0, barriers = 0;
};

struct State {
  // Vector mask register: normal mode, one bit per lane (lo = lanes 0-63, hi = 64-127);
  // counter mode (set_mask_count), lo = number of elements, hi ignored.
  uint64_t maskHi = ~0ull, maskLo = ~0ull;
  bool counterMode = false;
  AtomicType atomicType = AtomicType::kNone;
  AtomicOp atomicOp = AtomicOp::kAdd;
  bool atomicEnabled = false;        // set_atomic_<type> seen and not cleared by set_atomic_none
  // dav-c100 with the atomic mode on: CANN's CPU-debug build emulates an atomic-add store there
  // (DataCopyWithAtomicCom, asc-devkit impl/basic_api/kernel_utils.h, ASCENDC_CPU_DEBUG only) by a
  // vector add whose operand is the GM destination itself, so vector operands may then lie outside
  // the UB. The path exists only in CPU-debug builds; on a device the copy adds.
  bool vectorGmOperands = false;
  uint64_t movPadVal = 0;            // set_mov_pad_val: the pad element of the _align copies
  uint64_t accVal = 0;               // the ACC register (vcadd accMode 1, get_acc_val): element bits
  // Outstanding set_flag count per (src pipe, dst pipe, event id).
  uint32_t flags[kPipeCount][kPipeCount][kEventIds] = {};
  Counters counters;
  // The core's UB (CANN's CPU-debug mode allocates it: AscendC::ConstDefiner::Instance().cpuUB,
  // bufferInitLen.at(Hardware::UB) bytes). Null = not registered: UB accesses are then not
  // bounds-checked and UB alignment is checked on the raw address.
  const uint8_t* ubBase = nullptr;
  uint64_t ubSize = 0;
};

// This process's (core's) state.
State& Core();
// Back to power-on state (mask all ones, normal mode, no atomics, no flags, counters zero); the
// UB registration and the hooks stay.
void ResetCore();
// Registers the core's UB window for bounds and alignment checks.
void RegisterUb(const void* base, uint64_t size);

// Called with a message on every rule violation (bad parameters, UB out of bounds, unmatched
// wait_flag, a trapped intrinsic). The default prints "normgrad-isa: <message>" to stderr and
// exits with status 3. A hook that returns makes the model skip the offending instruction.
using ViolationHook = void (*)(const char* message);
void SetViolationHook(ViolationHook hook);  // nullptr restores the default
[[gnu::format(printf, 1, 2)]] void Violation(const char* fmt, ...);
// An intrinsic that links but is not implemented: always exits (status 4), naming it.
[[noreturn]] void Trap(const char* intrinsic);

// Told about every change of the atomic mode, so that the front end can keep the devkit's
// globals g_isAtomic / g_atomicType in step (CPU-debug code reads them around GM stores).
using AtomicListener = void (*)(bool enabled, AtomicOp op);
void SetAtomicListener(AtomicListener listener);

// End-of-kernel check: every set_flag was waited for. Reports a violation naming the first
// unbalanced (src, dst, id) and returns false when one is outstanding.
bool CheckFlagsBalanced();

}  // namespace isa
}  // namespace normgrad
