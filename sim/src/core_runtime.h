// Simulator-private per-core state kept beside CoreContext (kernel type, SyncAll progress), and
// the barrier that the cores of one launch share.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace sim {

// Thrown inside a core to stop it because another core faulted. Not an error of its own.
struct AbortCore {};

// A reusable barrier over the cores of one launch. Never hangs: a fault anywhere releases every
// waiter, and a core that returns while others wait at a barrier it did not reach is an error.
class LaunchBarrier {
 public:
  explicit LaunchBarrier(int blockDim) : finished_(static_cast<size_t>(blockDim), false) {}

  // Blocks until `participants` cores (block indices 0..participants-1) arrived at the same
  // kind of barrier. `number` is the caller's SyncAll count, for messages. Throws SimError on a
  // mismatch or a skipped barrier, AbortCore when another core faulted.
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

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<bool> finished_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  bool aborted_ = false;
  std::atomic<int> firstFault_{1 << 30};
  // The round in progress (valid while arrived_ > 0).
  bool roundHard_ = true;
  int roundParticipants_ = 0;
  uint32_t roundNumber_ = 0;
  int roundFirstCore_ = 0;
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

}  // namespace sim
