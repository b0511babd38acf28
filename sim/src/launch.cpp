// Multi-core launch: one host thread per simulated core, the shared barrier, end-of-kernel
// checks, and the run log.
#include "ascendc/launch.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "ascendc/copy.h"
#include "ascendc/cost.h"
#include "ascendc/dcache.h"
#include "ascendc/entry.h"
#include "ascendc/hazard.h"
#include "ascendc/pipe.h"
#include "ascendc/race.h"
#include "ascendc/sync.h"
#include "core_runtime.h"

namespace sim {
namespace {

thread_local CoreRuntime* t_runtime = nullptr;

// Per host thread: each thread that runs operators sees the launches of its own latest call
// (launches run on the calling thread; only their cores get threads of their own).
thread_local std::vector<LaunchReport> t_log;

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
void EndOfKernelChecks() {
  for (int e = 0; e < kHardEventCount; ++e) {
    for (int id = 0; id < kMaxEventIds; ++id) {
      if (OutstandingFlags(e, id) != 0) {
        Warn("SetFlag", "HardEvent::%s id %d is still set at kernel end (SetFlag or EnQue without its wait)",
             HardEventName(e), id);
      }
    }
  }
  if (copy::AtomicElem() != kElemNone) Warn("SetAtomicAdd", "atomic add is still on at kernel end; call SetAtomicNone()");
}

void RunCore(const SocProfile& soc, int idx, int blockDim, uint64_t tilingKey, bool trackHazards,
             race::Recorder* races, LaunchBarrier& barrier, const std::function<void()>& body, CoreResult& out) {
  CoreContext ctx;
  ctx.blockIdx = idx;
  ctx.blockNum = blockDim;
  ctx.soc = &soc;
  ctx.ub = TakeUb(soc.ubBytes);
  ctx.costSoc = EffectiveSoc(soc);  // the what-if constants as they are when the launch starts
  ctx.l2.Reset(ctx.costSoc.l2Bytes, blockDim);
  if (trackHazards) ctx.hazards = hazard::TakeTracker(soc.ubBytes);
  if (races != nullptr) races->Reset(idx, barrier.Clock(idx));
  ctx.races = races;
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
    DropTrailingDrain(ctx);
    EndOfKernelChecks();
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

}  // namespace

void AppendToLog(const LaunchReport& report) {
  t_log.push_back(report);
}

CoreRuntime& Runtime() {
  if (t_runtime == nullptr) throw SimError("Ascend C API called outside a kernel launch");
  return *t_runtime;
}

void BindRuntime(CoreRuntime* rt) { t_runtime = rt; }

void ThrowIfLaunchAborted() {
  if (t_runtime != nullptr && t_runtime->barrier != nullptr) t_runtime->barrier->ThrowIfAborted(Core().blockIdx);
}

// ---------------------------------------------------------------- LaunchBarrier

LaunchBarrier::LaunchBarrier(int blockDim)
    : finished_(static_cast<size_t>(blockDim), false),
      waiting_(static_cast<size_t>(blockDim), nullptr),
      waitReady_(static_cast<size_t>(blockDim), nullptr),
      clocks_(static_cast<size_t>(blockDim), VectorClock(static_cast<size_t>(blockDim), 0)),
      roundClock_(static_cast<size_t>(blockDim), 0),
      releasedClock_(static_cast<size_t>(blockDim), 0) {
  for (int c = 0; c < blockDim; ++c) clocks_[static_cast<size_t>(c)][static_cast<size_t>(c)] = 1;
}

void LaunchBarrier::Release(int core, VectorClock& into) {
  VectorClock& mine = clocks_[static_cast<size_t>(core)];
  if (into.size() != mine.size()) into.assign(mine.size(), 0);
  for (size_t i = 0; i < mine.size(); ++i) into[i] = std::max(into[i], mine[i]);
  ++mine[static_cast<size_t>(core)];
}

void LaunchBarrier::Acquire(int core, const VectorClock& from) {
  VectorClock& mine = clocks_[static_cast<size_t>(core)];
  for (size_t i = 0; i < mine.size() && i < from.size(); ++i) mine[i] = std::max(mine[i], from[i]);
}

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
    std::fill(roundClock_.begin(), roundClock_.end(), 0);
  } else if (roundHard_ != hard || roundParticipants_ != participants) {
    throw SimError("core " + std::to_string(core) + ": SyncAll: reached " + (hard ? "hard" : "soft") +
                   " SyncAll #" + std::to_string(number) + " over " + std::to_string(participants) +
                   " cores while core " + std::to_string(roundFirstCore_) + " waits at " +
                   (roundHard_ ? "hard" : "soft") + " SyncAll #" + std::to_string(roundNumber_) + " over " +
                   std::to_string(roundParticipants_) + " cores");
  }
  Release(core, roundClock_);
  if (++arrived_ == participants) {
    arrived_ = 0;
    ++generation_;
    releasedClock_ = roundClock_;
    Acquire(core, releasedClock_);
    cv_.notify_all();
    return;
  }
  uint64_t gen = generation_;
  WaitUntil(lock, core, std::string(hard ? "hard" : "soft") + " SyncAll #" + std::to_string(number),
            [&] { return generation_ != gen; });
  // The next round cannot complete (and overwrite releasedClock_) before this core arrives at it.
  Acquire(core, releasedClock_);
}

void LaunchBarrier::WaitUntil(std::unique_lock<std::mutex>& lock, int core, const std::string& what,
                              const std::function<bool()>& ready) {
  if (aborted_) throw AbortCore();
  if (ready()) return;
  const size_t c = static_cast<size_t>(core);
  waiting_[c] = &what;
  waitReady_[c] = &ready;
  struct Unregister {
    LaunchBarrier* b;
    size_t c;
    ~Unregister() {
      b->waiting_[c] = nullptr;
      b->waitReady_[c] = nullptr;
    }
  } unregister{this, c};
  CheckDeadlock();
  cv_.wait(lock, [&] { return aborted_ || !deadlock_.empty() || ready(); });
  if (!deadlock_.empty()) throw SimError(deadlock_);
  if (!ready()) throw AbortCore();
}

void LaunchBarrier::CheckDeadlock() {
  if (!deadlock_.empty() || aborted_) return;
  std::vector<int> waiters, done;
  for (size_t c = 0; c < finished_.size(); ++c) {
    if (finished_[c]) {
      done.push_back(static_cast<int>(c));
      continue;
    }
    if (waiting_[c] == nullptr || (*waitReady_[c])()) return;  // a core that runs or may go on
    waiters.push_back(static_cast<int>(c));
  }
  if (waiters.empty()) return;
  std::string msg = "core " + std::to_string(waiters[0]) + ": " + *waiting_[static_cast<size_t>(waiters[0])] +
                    ": deadlock: no core can end the wait of ";
  for (size_t i = 0; i < waiters.size(); ++i) {
    msg += (i == 0 ? "core " : ", core ") + std::to_string(waiters[i]) + " (" +
           *waiting_[static_cast<size_t>(waiters[i])] + ")";
  }
  if (!done.empty()) {
    msg += "; finished: core";
    if (done.size() > 1) msg += "s";
    for (size_t i = 0; i < done.size(); ++i) msg += (i == 0 ? " " : ", ") + std::to_string(done[i]);
  }
  msg += " (hangs on hardware)";
  deadlock_ = msg;
  cv_.notify_all();
}

void LaunchBarrier::Finish(int core) {
  std::lock_guard<std::mutex> lock(mutex_);
  finished_[static_cast<size_t>(core)] = true;
  if (arrived_ > 0 && core < roundParticipants_ && !aborted_) {
    throw SimError("core " + std::to_string(core) + ": SyncAll: core " + std::to_string(core) +
                   " finished without reaching SyncAll #" + std::to_string(roundNumber_));
  }
  CheckDeadlock();  // the cores still waiting may have waited for this one
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
  } else if (const int cores = EffectiveSoc(soc).aivCores; blockDim < 1 || blockDim > cores) {
    // The what-if aiv_cores caps the cores as it caps what the tiling saw (PlatformAscendC).
    report.ok = false;
    report.error = "Launch: " + kernel + ": blockDim " + std::to_string(blockDim) + " is outside [1, " +
                   std::to_string(cores) + "] vector cores on " + soc.name;
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
  // Races are only possible between cores; recorders live until the check after the join.
  std::vector<race::Recorder> races;
  if (RaceDetectionEnabled() && blockDim > 1) {
    for (int i = 0; i < blockDim; ++i) races.push_back(race::TakeRecorder());
  }
  // A core whose thread cannot start (no memory, no threads left) fails the launch: the cores
  // already running stop at their next DMA or sync as after a fault, and are joined before
  // anything else may throw (a joinable std::thread destroyed would end the process).
  int unstarted = -1;
  char unstartedWhy[160] = "";
  for (int i = 0; i < blockDim; ++i) {
    race::Recorder* recorder = races.empty() ? nullptr : &races[static_cast<size_t>(i)];
    try {
      threads.emplace_back(RunCore, std::cref(soc), i, blockDim, key, trackHazards, recorder, std::ref(barrier),
                           std::cref(body), std::ref(results[static_cast<size_t>(i)]));
    } catch (const std::exception& e) {
      unstarted = i;
      std::snprintf(unstartedWhy, sizeof(unstartedWhy), "%s", e.what());
      barrier.Abort(i);
      break;
    }
  }
  for (std::thread& t : threads) t.join();
  if (unstarted >= 0) {
    report.ok = false;
    report.error = "Launch: " + kernel + ": the thread of core " + std::to_string(unstarted) +
                   " could not start: " + unstartedWhy;
  }

  for (const CoreResult& r : results) {
    report.cores.push_back(r.counters);
    if (report.kernelType < 0) report.kernelType = r.kernelType;
    // The lowest faulting core's error: stable when every core hits the same bug.
    if (r.fault && report.ok) {
      report.ok = false;
      report.error = r.error;
    }
  }
  if (report.ok && !races.empty()) {
    std::vector<const race::Recorder*> recorders;
    for (const race::Recorder& r : races) recorders.push_back(&r);
    std::string race = race::FindRace(recorders);
    if (!race.empty()) {
      report.ok = false;
      report.error = race;
    }
  }
  for (race::Recorder& r : races) race::ReturnRecorder(std::move(r));
  report.warnings = MergeWarnings(results);
  PrintNewWarnings(kernel, report.warnings);
  AppendToLog(report);
  return report;
}

LaunchReport Launch(const std::string& kernel, int blockDim, const std::function<void()>& body) {
  return LaunchOn(CurrentSoc(), kernel, blockDim, body);
}

const std::vector<LaunchReport>& RunLog() {
  return t_log;
}

void ClearRunLog() {
  t_log.clear();
}

}  // namespace sim
