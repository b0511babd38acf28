// Multi-core launch: runs a kernel body on blockDim simulated cores, concurrently, and reports
// the first hardware-rule violation, the warnings and every core's work counters.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ascendc/core.h"
#include "ascendc/soc.h"

namespace sim {

struct LaunchReport {
  std::string kernel;                 // name given to Launch
  int blockDim = 0;
  const SocProfile* soc = nullptr;
  bool ok = true;
  std::string error;                  // first violation ("core 3: DataCopy: ..."), empty when ok
  std::vector<std::string> warnings;  // de-duplicated, all cores
  std::vector<CoreCounters> cores;    // one entry per core, index = block index
  int kernelType = -1;                // KernelMetaType the kernel declared, -1 if none
  uint64_t tilingKey = 0;             // g_tilingKey the cores ran with
};

// Runs body() on blockDim threads, each bound to its own CoreContext (own UB, mask, events);
// every core sees the launching thread's g_tilingKey (ICPU_SET_TILING_KEY or a plain assignment).
// Never throws for kernel faults: a SimError on any core aborts every core (SyncAll waiters
// included) and is returned in the report. blockDim must be in [1, soc.aivCores]; a larger
// launch with inter-core sync would deadlock on hardware, so it is reported as an error.
LaunchReport Launch(const std::string& kernel, int blockDim, const std::function<void()>& body);

// Launch on a given profile instead of CurrentSoc().
LaunchReport LaunchOn(const SocProfile& soc, const std::string& kernel, int blockDim,
                      const std::function<void()>& body);

// The reports of the launches this thread made since its last ClearRunLog(), in order (the aclnn
// execute phase clears it, so it holds the kernels of the thread's latest operator call).
const std::vector<LaunchReport>& RunLog();
// Appends a launch another front end ran (sim/src/cann_frontend.cpp: front end B) to this thread's log.
void AppendToLog(const LaunchReport& report);
void ClearRunLog();

}  // namespace sim
