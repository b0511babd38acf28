// Simulator-private per-core state kept beside CoreContext (kernel type, SyncAll progress), and
// the barrier that the cores of one launch share.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace sim {

// Thrown inside a core to stop it because another core faulted. Not an error of its own.
struct AbortCore {};

// Vector clock of one core: entry c is the last epoch of core c known complete to it.
using VectorClock = std::vector<uint32_t>;

// The inter-core state of one launch: the SyncAll barrier, the CrossCore flag counters, the GM
// flags of IBSet/IBWait/WaitPreBlock, every core's vector clock (cross-core happens-before for
// the race detector, ascendc/race.h), and the table of waiting cores. Never hangs: a fault
// anywhere releases every waiter, and a state in which every unfinished core waits for something
// no core can still do is a deadlock error naming the waiting cores.
class LaunchBarrier {
 public:
  explicit LaunchBarrier(int blockDim);

  // Blocks until `participants` cores (block indices 0..participants-1) arrived at the same
  // kind of barrier. `number` is the caller's SyncAll count, for messages. Throws SimError on a
  // mismatch or a skipped barrier, AbortCore when another core faulted. Orders every access of
  // every participant before the barrier before every access after it.
  void Arrive(int core, bool hard, int participants, uint32_t number);
  // Called when a core's kernel returned normally; throws SimError if cores wait for it.
  void Finish(int core);
  // Records that `core` faulted and releases every waiter; later arrivals throw AbortCore.
  void Abort(int core);
  // Stops a running core early once a lower-numbered core faulted (checked at DMA and sync
  // calls). Lower cores run on, so the launch reports the lowest faulting core every time.
  void ThrowIfAborted(int core) const {
    if (core > firstFault_.load(std::memory_order_relaxed)) throw AbortCore();
  }

  // ---- for the cross-core sync APIs (sim/src/cross_core_sync.cpp); call with Lock() held.
  std::unique_lock<std::mutex> Lock() { return std::unique_lock<std::mutex>(mutex_); }
  // Waits until ready() holds; ready is evaluated under the lock after every state change.
  // `what` names the wait in a deadlock message ("CrossCoreWaitFlag(3)").
  void WaitUntil(std::unique_lock<std::mutex>& lock, int core, const std::string& what,
                 const std::function<bool()>& ready);
  // Wakes the waiters after a state change.
  void Changed() { cv_.notify_all(); }
  // Publishes `core`'s clock into `into` and starts a new epoch of the core (a release).
  void Release(int core, VectorClock& into);
  // Makes everything `from` knows known to `core` (an acquire).
  void Acquire(int core, const VectorClock& from);
  const VectorClock& Clock(int core) const { return clocks_[static_cast<size_t>(core)]; }
  int BlockDim() const { return static_cast<int>(finished_.size()); }

  // CrossCore flags (mode 0): per flag id, the rounds of sets; round k completes when every core
  // made its k-th set, and a core's k-th wait returns once round k completed.
  struct FlagRound {
    int arrivals = 0;
    VectorClock clock;
  };
  std::map<int, std::vector<FlagRound>> flagRounds;
  std::map<int, std::vector<uint32_t>> flagSets, flagWaits;  // per flag id, per core
  // GM flags (IBSet/IBWait slots, WaitPreBlock workspaces): the clock their last writers released.
  std::map<const void*, VectorClock> gmFlagClocks;

 private:
  // Throws the deadlock error (after recording it for every waiter) when no core can progress.
  void CheckDeadlock();

  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<bool> finished_;
  std::vector<const std::string*> waiting_;                 // per core: what it waits for, or null
  std::vector<const std::function<bool()>*> waitReady_;     // per core: its wait's condition
  std::string deadlock_;                                    // the deadlock error, once found
  std::vector<VectorClock> clocks_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  bool aborted_ = false;
  std::atomic<int> firstFault_{1 << 30};
  // The round in progress (valid while arrived_ > 0) and the clock the last round released.
  bool roundHard_ = true;
  int roundParticipants_ = 0;
  uint32_t roundNumber_ = 0;
  int roundFirstCore_ = 0;
  VectorClock roundClock_, releasedClock_;
};

struct CoreRuntime {
  LaunchBarrier* barrier = nullptr;
  int kernelType = -1;          // KernelMetaType, -1 until KERNEL_TASK_TYPE_DEFAULT runs
  bool kernelTypeByKey = false; // set by KERNEL_TASK_TYPE for the running tiling key
  uint32_t syncAllCount = 0;    // SyncAll calls of both kinds so far
  uint32_t pipeSerial = 0;      // TPipes constructed so far
  // Soft SyncAll workspaces used and how often, to check the zero-initialisation rule.
  std::vector<std::pair<const void*, int32_t>> softSyncUses;
};

// The calling core's runtime state (fails outside a kernel).
CoreRuntime& Runtime();
// Throws AbortCore when another core of this launch faulted; no-op outside a launch.
void ThrowIfLaunchAborted();
void BindRuntime(CoreRuntime* rt);

// Repeats `value` (valueBytes long) over `bytes`, which need not be a multiple of it: values of 1, 2,
// 4 or 8 bytes as a vectorised loop of 8-byte words, others by doubling with memcpy, so that large
// fills (GM fills, UB poison) run at memory speed.
void FillBytes(uint8_t* p, uint64_t bytes, const uint8_t* value, uint32_t valueBytes);
inline void FillRepeating(uint8_t* p, uint64_t bytes, const uint8_t* value, uint32_t valueBytes) {
  if (bytes != 0) FillBytes(p, bytes, value, valueBytes);  // pads are mostly empty
}

}  // namespace sim
