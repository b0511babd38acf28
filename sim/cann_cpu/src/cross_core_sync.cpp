// Hard cross-core synchronisation (dav-c220): ffts_cross_core_sync(pipe, config) with config
// 1 | mode << 4 | flag << 8 (the devkit's GetffstMsg) sets flag `flag`; wait_flag_dev(flag) waits for it.
// Mode 0 (the one SyncAll<true> uses: SYNC_AIV_ONLY_ALL) sets the flag on every core of the launch once all
// of them have set it, so the pair is a barrier over the launch's cores. The arrivals are counted in the
// launch's shared state; each core remembers how many times it has waited on each flag, and its n-th wait
// returns when n * cores arrivals are in. Modes 1 and 2 (within an AIC/AIV group) do not arise for vector
// kernels and are reported as violations.
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "stub_fun.h"
#include "cost_report.h"
#include "launch_state.h"
#include "normgrad_isa/state.h"

namespace {

uint32_t g_waits[normgrad::cann::kFftsFlags] = {};  // this core's waits per flag (per process)

// The flag hard SyncAll sets and waits for (the devkit's SYNC_AIV_ONLY_ALL); the others are the kernel's
// own CrossCoreSetFlag / CrossCoreWaitFlag.
constexpr unsigned kAllCoresFlag = 14;

// How long a launch must look deadlocked (NoCoreCanProceed) before the wait reports it.
constexpr auto kDeadlockGrace = std::chrono::milliseconds(200);

// True when no core can end any wait: every core of the launch has ended, or waits for arrivals on a flag
// that are not all in. A core whose wait is already over but that has not left it yet is not stuck: up to
// 48 core processes share 2 CPUs here, so it may not run for a while. (Counting the cores inside a wait
// instead took such a core for a stuck one: with two SyncAlls in a row, the cores already in the second
// one plus a core not yet scheduled out of the first made "every core waits", and after 200 ms without
// that core running the launch failed as deadlocked, about once in 8 runs of ops-nn's LayerNormGradV3 on
// lm 1x16384 fp32: sim/cann_cpu/DIFFERENCES.md, finding 5.)
bool NoCoreCanProceed(const normgrad::cann::SharedLaunch& s) {
  for (int i = 0; i < s.cores; ++i) {
    if (s.coreExited[i].load() != 0) continue;
    const uint8_t flag = s.waitFlag[i].load();
    if (flag == normgrad::cann::kNotWaiting) return false;                 // it runs
    if (s.fftsSet[flag].load() >= s.waitTarget[i].load()) return false;   // its wait is over
  }
  return true;
}

}  // namespace

template <>
void ffts_cross_core_sync<pipe_t, unsigned short>(pipe_t pipe, unsigned short config) {
  (void)pipe;
  const unsigned mode = (config >> 4) & 0x3u;
  const unsigned flag = (config >> 8) & 0xfu;
  if ((config & 1u) == 0 || mode != 0) {
    normgrad::isa::Violation("ffts_cross_core_sync: config 0x%x (mode %u, flag %u): only mode 0 (all cores) is "
                             "modelled", static_cast<unsigned>(config), mode, flag);
    return;
  }
  if (flag != kAllCoresFlag) normgrad::cann::NoteCrossCoreSet(flag);  // CrossCoreSetFlag
  normgrad::cann::Shared().fftsSet[flag].fetch_add(1);
}

template <>
void wait_flag_dev<unsigned short>(unsigned short flag) {
  if (flag >= normgrad::cann::kFftsFlags) {
    normgrad::isa::Violation("wait_flag_dev: flag %u out of range 0-15", static_cast<unsigned>(flag));
    return;
  }
  if (flag == kAllCoresFlag) {
    normgrad::cann::NoteSyncAll();
  } else {
    normgrad::cann::NoteCrossCoreWait(flag);  // CrossCoreWaitFlag
  }
  normgrad::cann::SharedLaunch& s = normgrad::cann::Shared();
  const int core = normgrad::cann::CoreIndex();
  const uint64_t target = static_cast<uint64_t>(++g_waits[flag]) * static_cast<uint64_t>(s.cores);
  s.waitTarget[core] = target;  // before the flag: a core seen waiting on a flag has this wait's target
  s.waitFlag[core] = static_cast<uint8_t>(flag);
  auto stuckSince = std::chrono::steady_clock::time_point::max();
  while (s.fftsSet[flag].load() < target) {
    if (s.failed.load() != 0) {
      s.waitFlag[core] = normgrad::cann::kNotWaiting;
      _exit(3);  // another core failed: its message is the launch's
    }
    if (NoCoreCanProceed(s)) {
      const auto now = std::chrono::steady_clock::now();
      if (stuckSince == std::chrono::steady_clock::time_point::max()) stuckSince = now;
      if (now - stuckSince > kDeadlockGrace) {
        s.waitFlag[core] = normgrad::cann::kNotWaiting;
        normgrad::isa::Violation("wait_flag_dev(%u): deadlock: %u of %d cores have set the flag for this wait, "
                                 "and no other core can set it (the others wait or have ended)",
                                 static_cast<unsigned>(flag),
                                 static_cast<unsigned>(s.fftsSet[flag].load() - (g_waits[flag] - 1) * s.cores),
                                 s.cores);
        return;
      }
    } else {
      stuckSince = std::chrono::steady_clock::time_point::max();
    }
    usleep(20);  // up to 48 processes share 2 CPUs here: a waiting core gives its time to the others
  }
  s.waitFlag[core] = normgrad::cann::kNotWaiting;
}
