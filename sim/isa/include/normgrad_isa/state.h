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

// How the cost model prices a vector instruction's repeats: front end A's sim::OpClass, same order
// (elementwise; reductions vcadd/vcgadd; vdiv/vsqrt; conversions).
enum class VecClass : uint8_t { kElementwise, kReduce, kTranscendental, kCast };
constexpr int kVecClasses = 4;

// Work done by this core, by pipe and DMA direction (a cost model multiplies these out). The fields
// after `barriers` are those of front end A's sim::CoreCounters that the cost model reads.
struct Counters {
  uint64_t instr[kPipeCount] = {};    // instructions issued per pipe
  uint64_t repeats[kPipeCount] = {};  // vector repeats (PIPE_V), bursts (MTE2/MTE3)
  uint64_t gmToUbBytes = 0, ubToGmBytes = 0, ubToUbBytes = 0;
  uint64_t setFlags = 0, waitFlags = 0, barriers = 0;
  uint64_t dmaIn = 0, dmaOut = 0;        // GM->UB and UB->GM copy instructions
  uint64_t vecInstr = 0;                 // vector instructions, UB->UB copies included (PIPE_V)
  uint64_t vecRepeats[kVecClasses] = {}; // their repeats by VecClass
  uint64_t fullBarriers = 0;             // pipe_barrier(PIPE_ALL)
  uint64_t drains = 0;                   // full drains with a DMA copy issued since the previous one
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
  // The UB->GM copies add on dav-c100 as well, as the device's DMA does: set by a front end that issues
  // the device's instructions (front end A). Left false under CANN's CPU-debug API (front end B), which
  // has added into the UB source already (DataCopyWithAtomic) when it issues the copy there; a vector
  // operand in GM (vectorGmOperands) is then never allowed.
  bool deviceAtomicStores = false;
  uint64_t movPadVal = 0;            // set_mov_pad_val: the pad element of the _align copies
  uint64_t accVal = 0;               // the ACC register (vcadd accMode 1, get_acc_val): element bits
  // Outstanding set_flag count per (src pipe, dst pipe, event id).
  uint32_t flags[kPipeCount][kPipeCount][kEventIds] = {};
  Counters counters;
  uint64_t dmaAtLastDrain = 0;       // dmaIn + dmaOut at the last counted drain
  uint64_t instrAtFullBarrier = ~0ull;  // InstructionsIssued() right after the last pipe_barrier(PIPE_ALL)
  // The core's UB (CANN's CPU-debug mode allocates it: AscendC::ConstDefiner::Instance().cpuUB,
  // bufferInitLen.at(Hardware::UB) bytes). Null = not registered: UB accesses are then not
  // bounds-checked and UB alignment is checked on the raw address.
  const uint8_t* ubBase = nullptr;
  uint64_t ubSize = 0;
  // The front end checks every UB operand (alignment, bounds within its tensor and the UB), and every
  // field of the DMA instructions, before it issues an instruction (front end A, with the API's name in
  // the message): the model then skips those checks of its own, which would repeat them. Front end B
  // leaves it false.
  bool operandsChecked = false;
  // SetVecCountListener's listener and its user pointer (kept by ResetCore).
  void (*vecCountListener)(void* user, VecClass cls, uint64_t repeats) = nullptr;
  void* vecCountUser = nullptr;
};

namespace detail {
extern thread_local State t_state;  // state.cpp; constant-initialised
}  // namespace detail

// The calling core's state: one per process under CANN's launcher (front end B), one per thread
// under front end A, which runs each core on a thread. Inline: every instruction reads it.
inline State& Core() { return detail::t_state; }
// Back to power-on state (mask all ones, normal mode, no atomics, no flags, counters zero); the
// UB registration, deviceAtomicStores, the hooks and the calling core's count listener stay.
void ResetCore();
// Registers the core's UB window for bounds and alignment checks (operandsChecked: the front end has
// checked every operand already, see State).
void RegisterUb(const void* base, uint64_t size, bool operandsChecked = false);

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

// Told about every vector instruction the calling core's model counts (its class and repeats), so
// that a front end with counters of its own (front end A's sim::CoreCounters, passed as `user`)
// counts exactly the instructions issued. Per core: set it on the core's thread.
using VecCountListener = void (*)(void* user, VecClass cls, uint64_t repeats);
void SetVecCountListener(VecCountListener listener, void* user);  // nullptr: none

// Told about the GM side of every GM<->UB copy before it executes (rows of rowBytes, pitch bytes
// apart); returning false leaves the copy out of the counters (it still executes). Front end B uses
// it for the L2 re-read model and to leave a soft SyncAll's own flag copies uncounted.
using GmCopyHook = bool (*)(bool toGm, const void* gm, uint64_t rows, uint64_t rowBytes, uint64_t pitch);
void SetGmCopyHook(GmCopyHook hook);  // nullptr: count every copy

// Reads `bytes` of GM at `gm` into `dst` for the GM -> UB copies (process-wide). Front end A sets it to
// read GM through its views of strided and broadcast tensors, which have no bytes in memory.
using GmReader = void (*)(void* dst, const void* gm, uint64_t bytes);
void SetGmReader(GmReader reader);  // nullptr: GM is plain memory (memmove)

// Every pipe drains (pipe_barrier(PIPE_ALL), and the one a SyncAll starts with): a drain counts when a
// DMA copy was issued since the previous one (the cost model's pipeline refills, ascendc/cost.h).
void NoteFullDrain();
// Kernel end: a drain no DMA copy followed refills nothing (the pipeline's epilogue is paid once anyway),
// so it is not counted (front end A's sim::DropTrailingDrain, the same rule).
void DropTrailingDrain();
// Instructions this core has issued (the sum of Counters::instr).
uint64_t InstructionsIssued();

// End-of-kernel check: every set_flag was waited for. Reports a violation naming the first
// unbalanced (src, dst, id) and returns false when one is outstanding.
bool CheckFlagsBalanced();

}  // namespace isa
}  // namespace normgrad
