// The cost model of ascendc/cost.h and its what-if constants.
#include "ascendc/cost.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>

namespace sim {
namespace {

// Cycles per 256-byte repeat by OpClass (docs/sim.md, "Cost-model constants").
constexpr double kDefaultCpr[static_cast<int>(OpClass::kCount)] = {1.0, 3.0, 3.0, 1.0};

std::mutex g_overrideMutex;
std::map<std::string, double> g_overrides;  // what-if key -> value

const char* const kKeys[] = {"launch_us",        "sync_us",          "hbm_tbs",         "hbm_peak_tbs",
                             "core_bytes_per_cycle", "dma_issue_cycles", "vec_issue_cycles", "clock_ghz",
                             "l2_mb",            "cpr_elementwise",  "cpr_reduce",      "cpr_transcendental",
                             "cpr_cast",         "aiv_cores"};

bool Override(const char* key, double* value) {
  std::lock_guard<std::mutex> lock(g_overrideMutex);
  auto it = g_overrides.find(key);
  if (it == g_overrides.end()) return false;
  *value = it->second;
  return true;
}

}  // namespace

double CyclesPerRepeat(OpClass cls) {
  static const char* const kCprKeys[] = {"cpr_elementwise", "cpr_reduce", "cpr_transcendental", "cpr_cast"};
  int k = static_cast<int>(cls);
  if (k < 0 || k >= static_cast<int>(OpClass::kCount)) return kDefaultCpr[0];
  double v = kDefaultCpr[k];
  Override(kCprKeys[k], &v);
  return v;
}

bool SetCostOverrides(const std::string& spec, std::string* error) {
  std::map<std::string, double> parsed;
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string item = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? spec.size() : comma + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq);
    bool known = false;
    for (const char* k : kKeys) known = known || key == k;
    if (eq == std::string::npos || !known) {
      std::string keys;
      for (const char* k : kKeys) keys += std::string(keys.empty() ? "" : ", ") + k;
      *error = "what-if '" + item + "': expected key=value with a key among " + keys;
      return false;
    }
    std::string text = item.substr(eq + 1);
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end == nullptr || *end != '\0' || !(v >= 0) || v > 1e12) {
      *error = "what-if '" + item + "': the value must be a non-negative number";
      return false;
    }
    bool mustBePositive = key != "launch_us" && key != "sync_us" && key != "dma_issue_cycles" &&
                          key != "vec_issue_cycles" && key != "l2_mb";
    if (mustBePositive && v == 0) {
      *error = "what-if '" + item + "': " + key + " must be greater than 0";
      return false;
    }
    if (key == "aiv_cores" && (v < 1 || v > 1e6 || v != std::floor(v))) {
      *error = "what-if '" + item + "': aiv_cores must be a whole number of cores, at least 1";
      return false;
    }
    parsed[key] = v;
  }
  std::lock_guard<std::mutex> lock(g_overrideMutex);
  g_overrides = std::move(parsed);
  return true;
}

SocProfile EffectiveSoc(const SocProfile& soc) {
  SocProfile s = soc;
  Override("launch_us", &s.launchUs);
  Override("sync_us", &s.syncAllUs);
  Override("hbm_tbs", &s.hbmSustainedTBs);
  Override("hbm_peak_tbs", &s.hbmPeakTBs);
  Override("core_bytes_per_cycle", &s.coreDmaBytesPerCycle);
  Override("dma_issue_cycles", &s.dmaIssueCycles);
  Override("vec_issue_cycles", &s.vecIssueCycles);
  Override("clock_ghz", &s.clockGHz);
  double l2Mb = 0;
  if (Override("l2_mb", &l2Mb)) s.l2Bytes = static_cast<uint64_t>(l2Mb * 1024 * 1024);
  // A cap, not a replacement: a chip with fewer cores keeps its own count.
  double cores = 0;
  if (Override("aiv_cores", &cores)) s.aivCores = std::min(s.aivCores, static_cast<int>(cores));
  return s;
}

CoreTime ModelCore(const CoreCounters& c, const SocProfile& soc) {
  const double cyclesPerUs = soc.clockGHz * 1e3;
  const double dmaBytesPerUs = soc.coreDmaBytesPerCycle * cyclesPerUs;
  const double dmaIssueUs = soc.dmaIssueCycles / cyclesPerUs;
  CoreTime t;
  const double dmaInUs = static_cast<double>(c.gmToUbBytes) / dmaBytesPerUs + static_cast<double>(c.dmaIn) * dmaIssueUs;
  const double dmaOutUs = static_cast<double>(c.ubToGmBytes) / dmaBytesPerUs + static_cast<double>(c.dmaOut) * dmaIssueUs;
  // DCache line fills and write-backs use the core's GM port like the DMA copies do (the per-core
  // rate): fills on the read side, write-backs on the write side. They are not DMA instructions,
  // so they add no issue cost and stay out of T_fill.
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
  if (steady > 0) {
    // Every PipeBarrier<PIPE_ALL> (and the one inside each SyncAll) drains the pipes: the
    // double-buffer pipeline fills again after it. A drain with no DMA since the previous one
    // (a PipeBarrier<PIPE_ALL> right before a SyncAll) finds nothing in flight: not counted.
    t.refills = 1 + c.drains;
    t.coreUs = steady + static_cast<double>(t.refills) * t.fillUs;
  }
  return t;
}

double CoreBusyUs(const CoreCounters& counters, const SocProfile& soc) {
  const CoreTime t = ModelCore(counters, soc);
  return std::max({t.mte2Us, t.mte3Us, t.vecUs});
}

namespace {

// The inter-core wait time of one core (cost.h, T_sync,c).
double CoreSyncUs(const CoreCounters& c, double syncAllUs) {
  const uint64_t split = c.splitWaitOverlapUs.size();
  double us = static_cast<double>(c.syncAll + c.crossCoreWaits - split) * syncAllUs;
  for (double overlap : c.splitWaitOverlapUs) us += std::max(0.0, syncAllUs - overlap);
  return us;
}

}  // namespace

KernelTime ModelKernel(const std::vector<CoreCounters>& cores, const SocProfile& soc) {
  KernelTime k;
  k.launchUs = soc.launchUs;
  double sumCoreUs = 0;
  for (const CoreCounters& c : cores) {
    CoreTime t = ModelCore(c, soc);
    k.cores.push_back(t);
    k.bytesIn += c.gmToUbBytes + c.scalarGmBytesIn;
    k.bytesOut += c.ubToGmBytes + c.scalarGmBytesOut;
    k.scalarBytesIn += c.scalarGmBytesIn;
    k.scalarBytesOut += c.scalarGmBytesOut;
    k.l2HitBytes += c.l2HitBytes;
    k.ubPeakBytes = std::max(k.ubPeakBytes, c.ubPeakBytes);
    // Each inter-core wait costs one barrier latency, less what a split-phase wait's work hides.
    k.syncUs = std::max(k.syncUs, CoreSyncUs(c, soc.syncAllUs));
    sumCoreUs += t.coreUs;
    k.maxCoreUs = std::max(k.maxCoreUs, t.coreUs);
    if (t.coreUs > 0) ++k.busyCores;
  }
  const double hbmBytesPerUs = soc.hbmSustainedTBs * 1e6;
  k.hbmUs = static_cast<double>(k.bytesIn - k.l2HitBytes + k.bytesOut) / hbmBytesPerUs;
  k.meanCoreUs = cores.empty() ? 0 : sumCoreUs / static_cast<double>(cores.size());
  if (k.maxCoreUs > 0) {
    k.loadBalance = k.meanCoreUs / k.maxCoreUs;
    k.chipUtilization = sumCoreUs / (static_cast<double>(soc.aivCores) * k.maxCoreUs);
  }
  k.totalUs = k.launchUs + std::max(k.hbmUs, k.maxCoreUs) + k.syncUs;
  return k;
}

KernelTime ModelLaunch(const LaunchReport& report) {
  return ModelKernel(report.cores, EffectiveSoc(report.soc != nullptr ? *report.soc : CurrentSoc()));
}

double ModelCallUs(const std::vector<LaunchReport>& launches) {
  double us = 0;
  for (const LaunchReport& r : launches) us += ModelLaunch(r).totalUs;
  return us;
}

}  // namespace sim
