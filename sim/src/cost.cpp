// The cost model of ascendc/cost.h (performance-model.md §5.1, §5.2).
#include "ascendc/cost.h"

#include <algorithm>

namespace sim {

double CyclesPerRepeat(OpClass cls) {
  switch (cls) {
    case OpClass::kElementwise: return 1.0;
    case OpClass::kReduce: return 3.0;
    case OpClass::kTranscendental: return 3.0;
    case OpClass::kCast: return 1.0;
    case OpClass::kCount: break;
  }
  return 1.0;
}

CoreTime ModelCore(const CoreCounters& c, const SocProfile& soc) {
  const double cyclesPerUs = soc.clockGHz * 1e3;
  const double dmaBytesPerUs = soc.coreDmaBytesPerCycle * cyclesPerUs;
  const double dmaIssueUs = soc.dmaIssueCycles / cyclesPerUs;
  CoreTime t;
  const double dmaInUs = static_cast<double>(c.gmToUbBytes) / dmaBytesPerUs + static_cast<double>(c.dmaIn) * dmaIssueUs;
  const double dmaOutUs = static_cast<double>(c.ubToGmBytes) / dmaBytesPerUs + static_cast<double>(c.dmaOut) * dmaIssueUs;
  // DCache line fills and write-backs use the core's GM port like the DMA copies do (the per-core
  // 32 B/cycle rate, performance-model.md §1.3): fills on the read side, write-backs on the write
  // side. They are not DMA instructions, so they add no issue cost and stay out of T_fill.
  t.mte2Us = dmaInUs + static_cast<double>(c.scalarGmBytesIn) / dmaBytesPerUs;
  t.mte3Us = dmaOutUs + static_cast<double>(c.scalarGmBytesOut) / dmaBytesPerUs;
  double vecCycles = static_cast<double>(c.vecInstr) * soc.vecIssueCycles;
  for (int k = 0; k < static_cast<int>(OpClass::kCount); ++k) {
    vecCycles += static_cast<double>(c.vecRepeats[k]) * CyclesPerRepeat(static_cast<OpClass>(k));
  }
  // UB->UB DataCopy runs on the vector pipe, 256 bytes per cycle like an elementwise repeat.
  vecCycles += static_cast<double>((c.ubToUbBytes + 255) / 256) * CyclesPerRepeat(OpClass::kElementwise);
  t.vecUs = vecCycles / cyclesPerUs;
  if (c.dmaIn > 0) t.fillUs += dmaInUs / static_cast<double>(c.dmaIn);
  if (c.dmaOut > 0) t.fillUs += dmaOutUs / static_cast<double>(c.dmaOut);
  double steady = std::max({t.mte2Us, t.mte3Us, t.vecUs});
  t.coreUs = steady > 0 ? steady + t.fillUs : 0;
  return t;
}

KernelTime ModelKernel(const std::vector<CoreCounters>& cores, const SocProfile& soc) {
  KernelTime k;
  k.launchUs = soc.launchUs;
  uint64_t syncAlls = 0;
  double sumCoreUs = 0;
  for (const CoreCounters& c : cores) {
    CoreTime t = ModelCore(c, soc);
    k.cores.push_back(t);
    k.bytesIn += c.gmToUbBytes + c.scalarGmBytesIn;
    k.bytesOut += c.ubToGmBytes + c.scalarGmBytesOut;
    k.scalarBytesIn += c.scalarGmBytesIn;
    k.scalarBytesOut += c.scalarGmBytesOut;
    // Each inter-core wait (SyncAll, CrossCoreWaitFlag, IBWait, WaitPreBlock) costs one barrier latency.
    syncAlls = std::max(syncAlls, c.syncAll + c.crossCoreWaits);
    sumCoreUs += t.coreUs;
    k.maxCoreUs = std::max(k.maxCoreUs, t.coreUs);
    if (t.coreUs > 0) ++k.busyCores;
  }
  const double hbmBytesPerUs = soc.hbmSustainedTBs * 1e6;
  k.hbmUs = static_cast<double>(k.bytesIn + k.bytesOut) / hbmBytesPerUs;
  k.syncUs = static_cast<double>(syncAlls) * soc.syncAllUs;
  k.meanCoreUs = cores.empty() ? 0 : sumCoreUs / static_cast<double>(cores.size());
  if (k.maxCoreUs > 0) {
    k.loadBalance = k.meanCoreUs / k.maxCoreUs;
    k.chipUtilization = sumCoreUs / (static_cast<double>(soc.aivCores) * k.maxCoreUs);
  }
  k.totalUs = k.launchUs + std::max(k.hbmUs, k.maxCoreUs) + k.syncUs;
  return k;
}

KernelTime ModelLaunch(const LaunchReport& report) {
  return ModelKernel(report.cores, report.soc != nullptr ? *report.soc : CurrentSoc());
}

double ModelCallUs(const std::vector<LaunchReport>& launches) {
  double us = 0;
  for (const LaunchReport& r : launches) us += ModelLaunch(r).totalUs;
  return us;
}

}  // namespace sim
