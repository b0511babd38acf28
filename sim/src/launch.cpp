// Multi-core launch: one host thread per simulated core, the shared barrier, end-of-kernel
// checks, and the run log.
#include "ascendc/launch.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "ascendc/cost.h"
#include "ascendc/dcache.h"
#include "ascendc/entry.h"
#include "ascendc/hazard.h"
#include "ascendc/pipe.h"
#include "ascendc/sync.h"
#include "core_runtime.h"

namespace sim {
namespace {

thread_local CoreRuntime* t_runtime = nullptr;

std::mutex g_logMutex;
std::vector<LaunchReport> g_log;

// UB images reused across launches: allocating and zeroing 48 x 192 KiB per launch would cost
// more than a small kernel. Contents need no reset: InitBuffer poisons every byte a kernel can reach.
std::mutex g_ubPoolMutex;
std::vector<std::vector<uint8_t>> g_ubPool;

std::vector<uint8_t> TakeUb(uint32_t bytes) {
  {
    std::lock_guard<std::mutex> lock(g_ubPoolMutex);
    for (size_t i = 0; i < g_ubPool.size(); ++i) {
      if (g_ubPool[i].size() == bytes) {
        std::vector<uint8_t> ub = std::move(g_ubPool[i]);
        g_ubPool[i] = std::move(g_ubPool.back());
        g_ubPool.pop_back();
        return ub;
      }
    }
  }
  return std::vector<uint8_t>(bytes);
}

void ReturnUb(std::vector<uint8_t> ub) {
  std::lock_guard<std::mutex> lock(g_ubPoolMutex);
  if (g_ubPool.size() < 64) g_ubPool.push_back(std::move(ub));
}

std::mutex g_printedMutex;
std::set<std::string> g_printed;  // warnings already printed, without their "core N: " prefix

std::string StripCorePrefix(const std::string& msg) {
  if (msg.compare(0, 5, "core ") != 0) return msg;
  size_t colon = msg.find(": ");
  return colon == std::string::npos ? msg : msg.substr(colon + 2);
}

struct CoreResult {
  bool fault = false;
  std::string error;
  CoreCounters counters;
  std::vector<std::string> warnings;
  int kernelType = -1;
};

// What hardware leaves behind silently and the device harness reports (CheckSyncState).
void EndOfKernelChecks(CoreContext& c) {
  for (int e = 0; e < kHardEventCount; ++e) {
    for (int id = 0; id < kMaxEventIds; ++id) {
      if (c.flags[e][id]) {
        Warn("SetFlag", "HardEvent::%s id %d is still set at kernel end (SetFlag or EnQue without its wait)",
             HardEventName(e), id);
      }
    }
  }
  if (c.atomicType != 0) Warn("SetAtomicAdd", "atomic add is still on at kernel end; call SetAtomicNone()");
}

void RunCore(const SocProfile& soc, int idx, int blockDim, uint64_t tilingKey, bool trackHazards,
             LaunchBarrier& barrier, const std::function<void()>& body, CoreResult& out) {
  CoreContext ctx;
  ctx.blockIdx = idx;
  ctx.blockNum = blockDim;
  ctx.soc = &soc;
  ctx.ub = TakeUb(soc.ubBytes);
  ctx.l2.Reset(EffectiveSoc(soc).l2Bytes, blockDim);
  if (trackHazards) ctx.hazards = hazard::TakeTracker(soc.ubBytes);
  CoreRuntime rt;
  rt.barrier = &barrier;
  BindCore(&ctx);
  BindRuntime(&rt);
  g_tilingKey = tilingKey;
  auto fault = [&](std::string msg) {
    out.fault = true;
    out.error = std::move(msg);
    barrier.Abort(idx);
  };
  try {
    body();
    FlushDataCache();  // dirty scalar-written lines reach GM by the end of the kernel
    EndOfKernelChecks(ctx);
    barrier.Finish(idx);
  } catch (const AbortCore&) {
    // Another core faulted; its error is the launch's.
  } catch (const SimError& e) {
    fault(e.what());
  } catch (const std::exception& e) {
    fault("core " + std::to_string(idx) + ": kernel threw a C++ exception: " + e.what());
  } catch (...) {
    fault("core " + std::to_string(idx) + ": kernel threw a non-standard C++ exception");
  }
  out.counters = ctx.counters;
  out.warnings = std::move(ctx.warnings);
  out.kernelType = rt.kernelType;
  ReturnUb(std::move(ctx.ub));
  if (ctx.hazards != nullptr) hazard::ReturnTracker(ctx.hazards);
  BindRuntime(nullptr);
  BindCore(nullptr);
}

// One line per distinct warning, the lowest core's text, with the count of other cores.
std::vector<std::string> MergeWarnings(const std::vector<CoreResult>& results) {
  std::vector<std::string> order;
  std::map<std::string, std::pair<std::string, int>> seen;
  for (const CoreResult& r : results) {
    for (const std::string& w : r.warnings) {
      std::string key = StripCorePrefix(w);
      auto it = seen.find(key);
      if (it == seen.end()) {
        seen.emplace(key, std::make_pair(w, 1));
        order.push_back(key);
      } else {
        ++it->second.second;
      }
    }
  }
  std::vector<std::string> merged;
  for (const std::string& key : order) {
    const auto& entry = seen[key];
    std::string line = entry.first;
    if (entry.second > 1) line += " (also on " + std::to_string(entry.second - 1) + " other cores)";
    merged.push_back(line);
  }
  return merged;
}

void PrintNewWarnings(const std::string& kernel, const std::vector<std::string>& warnings) {
  std::lock_guard<std::mutex> lock(g_printedMutex);
  for (const std::string& w : warnings) {
    if (g_printed.insert(StripCorePrefix(w)).second) {
      std::fprintf(stderr, "normgrad sim warning [%s]: %s\n", kernel.c_str(), w.c_str());
    }
  }
}

void AppendToLog(const LaunchReport& report) {
  std::lock_guard<std::mutex> lock(g_logMutex);
  g_log.push_back(report);
}

}  // namespace

CoreRuntime& Runtime() {
  if (t_runtime == nullptr) throw SimError("Ascend C API called outside a kernel launch");
  return *t_runtime;
}

void BindRuntime(CoreRuntime* rt) { t_runtime = rt; }

void ThrowIfLaunchAborted() {
  if (t_runtime != nullptr && t_runtime->barrier != nullptr) t_runtime->barrier->ThrowIfAborted(Core().blockIdx);
}

// ---------------------------------------------------------------- LaunchBarrier

void LaunchBarrier::Arrive(int core, bool hard, int participants, uint32_t number) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (aborted_) throw AbortCore();
  for (int c = 0; c < participants; ++c) {
    if (finished_[static_cast<size_t>(c)]) {
      throw SimError("core " + std::to_string(c) + ": SyncAll: core " + std::to_string(c) +
                     " finished without reaching SyncAll #" + std::to_string(number));
    }
  }
  if (arrived_ == 0) {
    roundHard_ = hard;
    roundParticipants_ = participants;
    roundNumber_ = number;
    roundFirstCore_ = core;
  } else if (roundHard_ != hard || roundParticipants_ != participants) {
    throw SimError("core " + std::to_string(core) + ": SyncAll: reached " + (hard ? "hard" : "soft") +
                   " SyncAll #" + std::to_string(number) + " over " + std::to_string(participants) +
                   " cores while core " + std::to_string(roundFirstCore_) + " waits at " +
                   (roundHard_ ? "hard" : "soft") + " SyncAll #" + std::to_string(roundNumber_) + " over " +
                   std::to_string(roundParticipants_) + " cores");
  }
  if (++arrived_ == participants) {
    arrived_ = 0;
    ++generation_;
    cv_.notify_all();
    return;
  }
  uint64_t gen = generation_;
  cv_.wait(lock, [&] { return generation_ != gen || aborted_; });
  if (generation_ == gen) throw AbortCore();
}

void LaunchBarrier::Finish(int core) {
  std::lock_guard<std::mutex> lock(mutex_);
  finished_[static_cast<size_t>(core)] = true;
  if (arrived_ > 0 && core < roundParticipants_ && !aborted_) {
    throw SimError("core " + std::to_string(core) + ": SyncAll: core " + std::to_string(core) +
                   " finished without reaching SyncAll #" + std::to_string(roundNumber_));
  }
}

void LaunchBarrier::Abort(int core) {
  std::lock_guard<std::mutex> lock(mutex_);
  aborted_ = true;
  if (core < firstFault_.load()) firstFault_ = core;
  cv_.notify_all();
}

// ---------------------------------------------------------------- Launch

LaunchReport LaunchOn(const SocProfile& soc, const std::string& kernel, int blockDim,
                      const std::function<void()>& body) {
  LaunchReport report;
  report.kernel = kernel;
  report.blockDim = blockDim;
  report.soc = &soc;
  report.tilingKey = g_tilingKey;
  if (InKernel()) {
    report.ok = false;
    report.error = "Launch: " + kernel + " launched from inside a kernel";
  } else if (blockDim < 1 || blockDim > soc.aivCores) {
    report.ok = false;
    report.error = "Launch: " + kernel + ": blockDim " + std::to_string(blockDim) + " is outside [1, " +
                   std::to_string(soc.aivCores) + "] vector cores on " + soc.name;
  }
  if (!report.ok) {
    AppendToLog(report);
    return report;
  }

  std::vector<CoreResult> results(static_cast<size_t>(blockDim));
  LaunchBarrier barrier(blockDim);
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(blockDim));
  uint64_t key = g_tilingKey;
  bool trackHazards = HazardTrackingEnabled();
  for (int i = 0; i < blockDim; ++i) {
    threads.emplace_back(RunCore, std::cref(soc), i, blockDim, key, trackHazards, std::ref(barrier),
                         std::cref(body), std::ref(results[static_cast<size_t>(i)]));
  }
  for (std::thread& t : threads) t.join();

  for (const CoreResult& r : results) {
    report.cores.push_back(r.counters);
    if (report.kernelType < 0) report.kernelType = r.kernelType;
    // The lowest faulting core's error: stable when every core hits the same bug.
    if (r.fault && report.ok) {
      report.ok = false;
      report.error = r.error;
    }
  }
  report.warnings = MergeWarnings(results);
  PrintNewWarnings(kernel, report.warnings);
  AppendToLog(report);
  return report;
}

LaunchReport Launch(const std::string& kernel, int blockDim, const std::function<void()>& body) {
  return LaunchOn(CurrentSoc(), kernel, blockDim, body);
}

const std::vector<LaunchReport>& RunLog() {
  std::lock_guard<std::mutex> lock(g_logMutex);
  return g_log;
}

void ClearRunLog() {
  std::lock_guard<std::mutex> lock(g_logMutex);
  g_log.clear();
}

}  // namespace sim
