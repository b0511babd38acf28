// Per-core simulator state: the Unified Buffer, the mask and event registers, the work
// counters, and how a hardware-rule violation stops the kernel.
#pragma once
#include <array>
#include <cstdarg>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ascendc/dcache.h"
#include "ascendc/l2cache.h"
#include "ascendc/soc.h"

namespace sim {

namespace hazard {
class Tracker;
}  // namespace hazard
namespace race {
class Recorder;
}  // namespace race

// Thrown when a kernel breaks a hardware rule; the launch turns it into an error report
// naming the core. Message format: "<API>: <rule>, <values>".
class SimError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Stops the running kernel: "core <idx>: <api>: <printf message>".
[[noreturn]] void Fail(const char* api, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// Records a warning for the running kernel (printed to stderr once per message, kept in the
// launch report). Used where hardware silently does something surprising (DataCopy round-down).
void Warn(const char* api, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// Vector op classes the cost model prices differently (docs/cost-model.md §3).
enum class OpClass : int { kElementwise = 0, kReduce, kTranscendental, kCast, kCount };

// Work done by one core during one launch. Plain counters, summed by the cost model.
struct CoreCounters {
  uint64_t gmToUbBytes = 0;   // MTE2 payload
  uint64_t ubToGmBytes = 0;   // MTE3 payload
  uint64_t ubToUbBytes = 0;   // UB->UB DataCopy (pipe V)
  uint64_t dmaIn = 0;         // MTE2 instructions
  uint64_t dmaOut = 0;        // MTE3 instructions
  uint64_t vecInstr = 0;      // vector instructions issued
  uint64_t vecRepeats[static_cast<int>(OpClass::kCount)] = {};  // 256-byte repeats by class
  uint64_t scalarGm = 0;      // GlobalTensor GetValue/SetValue
  uint64_t scalarGmBytesIn = 0;   // DCache line fills of scalar GM reads (ascendc/dcache.h)
  uint64_t scalarGmBytesOut = 0;  // DCache write-backs of dirty lines (scalar GM writes)
  uint64_t scalarUb = 0;      // LocalTensor GetValue/SetValue
  uint64_t syncs = 0;         // SetFlag/WaitFlag/PipeBarrier
  uint64_t syncAll = 0;       // inter-core barriers
  uint64_t crossCoreWaits = 0;  // CrossCoreWaitFlag, IBWait, WaitPreBlock (ascendc/cross_core_sync.h)
  // Per CrossCoreWaitFlag: the core's modeled busy time (max of its pipes, us) between the
  // matching CrossCoreSetFlag and the wait, the part of the barrier latency that work hides.
  std::vector<double> splitWaitOverlapUs;
  uint64_t fullBarriers = 0;  // PipeBarrier<PIPE_ALL> (not counting the one inside each SyncAll)
  uint64_t drains = 0;        // full drains (PipeBarrier<PIPE_ALL>, SyncAll) with DMA issued since the
                              // previous one: each costs a pipeline refill (back-to-back ones once)
  uint64_t l2HitBytes = 0;    // the part of gmToUbBytes the L2 re-read model serves (ascendc/l2cache.h)
  uint64_t ubPeakBytes = 0;   // highest UB byte the TPipe pool reached (InitBuffer rounding included)
};

// Hard events (kernel_event.h order); only the AIV pairs are legal in a vector kernel.
constexpr int kHardEventCount = 35;
constexpr int kMaxEventIds = 8;

// State of one simulated vector core. Lives for one launch on that core's host thread.
struct CoreContext {
  int blockIdx = 0;
  int blockNum = 1;
  const SocProfile* soc = nullptr;
  SocProfile costSoc{};          // *soc with the launch's what-if constants (cost model, L2 model)
  std::vector<uint8_t> ub;       // ub.size() == soc->ubBytes; UB addresses are offsets into it
  CoreCounters counters;
  DataCache dcache;              // scalar GM accesses go through it (cost only, holds no data)
  // The GM allocations scalar accesses fell in lately (sim/src/dcache.cpp, DeviceAddress).
  struct ScalarAllocation {
    uintptr_t begin = 0, end = 0, tag = 0;
  };
  std::array<ScalarAllocation, 4> scalarAllocations{};
  uint32_t nextScalarAllocation = 0;
  L2Reuse l2;                    // GM re-reads served by the L2 (cost only, holds no data)
  uint64_t dmaAtLastDrain = 0;   // dmaIn + dmaOut at the last full drain (counters.drains)
  // Busy time (us) at each CrossCoreSetFlag not yet waited for, per flag id, oldest first.
  std::vector<std::vector<double>> flagSetBusyUs;
  // The vector mask register and its mode are the instruction-level model's (normgrad::isa::Core(),
  // one per core thread; ascendc/isa_issue.h).
  // SetFlag/WaitFlag flags: the instruction-level model's (sim::OutstandingFlags, ascendc/sync.h).
  // Atomic accumulation of UB->GM copies: the instruction-level model's atomic register
  // (sim::copy::AtomicElem, ascendc/copy.h).
  bool davC100 = false;          // the training series' instruction set (set when the core is bound)
  void* pipe = nullptr;          // the kernel's TPipe (AscendC::TPipe*), one per kernel
  hazard::Tracker* hazards = nullptr;  // pipe-hazard tracker (ascendc/hazard.h), null when off
  race::Recorder* races = nullptr;     // cross-core GM race recorder (ascendc/race.h), null when off
  std::vector<std::string> warnings;
};

// A PipeBarrier<PIPE_ALL> or SyncAll: every pipe drains. Counts a drain (a pipeline refill in the
// cost model) when DMA was issued since the previous one.
inline void NoteFullDrain(CoreContext& c) {
  uint64_t dma = c.counters.dmaIn + c.counters.dmaOut;
  if (dma != c.dmaAtLastDrain) ++c.counters.drains;
  c.dmaAtLastDrain = dma;
}

// Kernel end: a drain no DMA followed (the TPipe's destruction, as CANN's TPipe::Destroy issues
// pipe_barrier(PIPE_ALL), or a last PipeBarrier<PIPE_ALL>) refills nothing: the pipeline's epilogue is
// the fill every core pays once (cost.h), so that drain is not counted.
inline void DropTrailingDrain(CoreContext& c) {
  uint64_t dma = c.counters.dmaIn + c.counters.dmaOut;
  if (dma > 0 && dma == c.dmaAtLastDrain && c.counters.drains > 0) --c.counters.drains;
}

namespace detail {
extern thread_local CoreContext* t_core;  // core.cpp; the calling thread's core, or null
[[noreturn]] void NoCoreBound();          // throws SimError
}  // namespace detail

// The context of the core the calling thread is simulating. Fails if no kernel is running.
// Inline: the API layer asks for it several times per instruction.
inline CoreContext& Core() {
  CoreContext* c = detail::t_core;
  if (__builtin_expect(c == nullptr, 0)) detail::NoCoreBound();
  return *c;
}
// True while the calling thread simulates a core (false on the host).
bool InKernel();

// Installs `ctx` as the calling thread's core (launch internals; nullptr unbinds).
void BindCore(CoreContext* ctx);

// UB byte address of a pointer into the current core's UB.
inline uint8_t* UbPtr(uint32_t addr) { return Core().ub.data() + addr; }

// Global memory registry: every device allocation (aclrtMalloc, GmAlloc) is registered so
// that any access outside an allocation is caught, as the device MMU / CANN's CPU mode does.
// Each registration gets a serial number, never reused in the process, so that a user of an
// address (an aclTensor) can tell its allocation from a later one at the same address.
namespace gm {
// readOnly: a kernel write into it fails (host memory registered with ACL_HOST_REGISTER_READONLY).
void Register(const void* base, uint64_t bytes, bool readOnly = false);
void Unregister(const void* base);
bool IsRegistered(const void* base);
// Fails (inside a kernel) if [p, p+bytes) is not inside one registered allocation, or is a write
// into a read-only one.
void CheckRange(const char* api, const void* p, uint64_t bytes, bool isWrite);
// The registered allocation holding p: its base, size and (when serial is given) serial number;
// false if none.
bool FindAllocation(const void* p, uintptr_t* base, uint64_t* bytes, uint64_t* serial = nullptr);

// A strided view of device memory (shape, strides and offset in elements, as an aclTensor's).
struct StridedSource {
  const uint8_t* storage = nullptr;  // element 0 of the storage
  std::vector<int64_t> shape, strides;
  int64_t offset = 0;
  uint32_t elemBytes = 0;
};
// The row-major contiguous image of src (numel * elemBytes bytes) as a read-only allocation whose
// bytes are never stored: reads (Read) compute them from src.storage, so a broadcast (zero-stride)
// input of any size costs address space only. Returns its base (reserved, inaccessible address
// space: a direct dereference faults); nullptr if the space cannot be reserved.
void* RegisterView(const StridedSource& src);
void UnregisterView(void* base);
// Copies bytes of device memory at src (inside one allocation, checked by CheckRange) to the host
// memory dst: a memcpy, or for a view region the elements it stands for.
void Read(void* dst, const void* src, uint64_t bytes);
}  // namespace gm

}  // namespace sim
