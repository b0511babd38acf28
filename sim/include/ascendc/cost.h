// The cost model: turns per-core work counters into modeled device time for a SoC profile.
// Every constant, its value per SoC and its public source (or ESTIMATE with the public range) is
// in the constants table of docs/sim.md; `normgrad bench --what-if` replaces any of them.
//
// Per core c (f = clock, BW_core = coreDmaBytesPerCycle * f):
//   T_MTE2 = (gmToUbBytes + scalarGmBytesIn)  / BW_core + dmaIn  * dmaIssueCycles / f
//   T_MTE3 = (ubToGmBytes + scalarGmBytesOut) / BW_core + dmaOut * dmaIssueCycles / f
//   (scalarGmBytesIn/Out: the DCache's 64-byte line fills of scalar GM reads and write-backs of
//   dirty lines, ascendc/dcache.h; they share the core's GM port with the DMA copies; L2 hits
//   also take the port at BW_core)
//   T_VEC  = (sum_class vecRepeats[class] * cpr(class) + ceil(ubToUbBytes / 256) * cpr(elementwise)
//             + vecInstr * vecIssueCycles) / f
//   T_fill = one average MTE2 instruction + one average MTE3 instruction (pipeline prologue and
//            epilogue of double buffering; DMA copies only; 0 for a direction with no instruction)
//   refills = 1 + drains: a PipeBarrier<PIPE_ALL> drains every pipe, and so does the one inside
//            each SyncAll, so the double-buffer pipeline fills again after each; a drain with no
//            DMA issued since the previous drain (back-to-back barriers) is not counted again, nor
//            one no DMA follows (the kernel's end: TPipe::Destroy's barrier, DropTrailingDrain)
//   T_core = max(T_MTE2, T_MTE3, T_VEC) + refills * T_fill     (cores with no counted work: 0)
// Per launch:
//   bytesIn  = sum_c gmToUbBytes + scalarGmBytesIn;  bytesOut = sum_c ubToGmBytes + scalarGmBytesOut
//   l2HitBytes = sum_c l2HitBytes (re-reads the L2 serves, ascendc/l2cache.h)
//   T_HBM    = (bytesIn - l2HitBytes + bytesOut) / hbmSustained
//   T_sync,c = (syncAll + other inter-core waits) * syncAllUs
//              + sum over CrossCoreWaitFlag waits w of max(0, syncAllUs - W_w)
//            W_w = the core's busy time (max of its pipes) between the matching CrossCoreSetFlag
//            and the wait: a split-phase barrier's latency runs while the core works, so only the
//            part no work covers is charged (0 work: the whole latency, as a SyncAll)
//   T_kernel = launchUs + max(T_HBM, max_c T_core) + max_c T_sync,c
//   loadBalance     = mean over the blockDim launched cores of T_core / max_c T_core (idle launched
//                     cores count as 0: launching a core that gets no work is imbalance)
//   chipUtilization = sum_c T_core / (soc.aivCores * max_c T_core) (also charges cores not launched)
// Not modeled: DCache miss latency, scalar UB accesses, L2 hits on other cores' bytes, L2
// bandwidth, bank conflicts, DMA alignment penalties.
// Example (ascend910b, f = 1.85 GHz, 32 B/cycle): one core reading 59.2 KB in 1 DataCopy ->
// T_MTE2 = 59200 / (32 * 1850) us + 20 / 1850 us = 1.0 + 0.0108 us.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ascendc/core.h"
#include "ascendc/launch.h"
#include "ascendc/soc.h"

namespace sim {

// Cycles per 256-byte repeat: elementwise 1; reductions 3 (documented 2-5x an Add); Exp/Ln/Div/
// Sqrt 3 (ESTIMATE 2-4); Cast 1 (ESTIMATE, priced like an elementwise op). Sources: docs/sim.md.
double CyclesPerRepeat(OpClass cls);

// What-if constants: "key=value,key=value" replaces those constants in every SoC profile for the
// cost model, for the L2 model of later launches and in normgradSimSocsJson, until the next call
// ("" restores the profiles). Keys: launch_us, sync_us, hbm_tbs (sustained), hbm_peak_tbs,
// core_bytes_per_cycle, dma_issue_cycles, vec_issue_cycles, clock_ghz, l2_mb, cpr_elementwise,
// cpr_reduce, cpr_transcendental, cpr_cast; and aiv_cores, a cap on the vector cores (1 or more):
// tilings plan for (PlatformAscendC) and launches may use at most that many, which runs a kernel on
// core counts no chip has (the odd counts the tests use for remainders). Returns false (changing
// nothing) with *error naming the bad key or value.
bool SetCostOverrides(const std::string& spec, std::string* error);
// The profile with the current what-if constants applied.
SocProfile EffectiveSoc(const SocProfile& soc);

struct CoreTime {
  double mte2Us = 0;
  double mte3Us = 0;
  double vecUs = 0;
  double fillUs = 0;  // one pipeline fill
  uint64_t refills = 0;  // fills charged: 1 + drains (when the core did work)
  double coreUs = 0;  // max(mte2, mte3, vec) + refills * fill
};

struct KernelTime {
  double totalUs = 0;     // launchUs + max(hbmUs, maxCoreUs) + syncUs
  double launchUs = 0;
  double hbmUs = 0;
  double maxCoreUs = 0;
  double meanCoreUs = 0;  // over the blockDim launched cores
  double syncUs = 0;
  uint64_t bytesIn = 0;   // GM -> core, all cores: DMA payload + DCache line fills
  uint64_t bytesOut = 0;  // core -> GM, all cores: DMA payload + DCache write-backs
  uint64_t scalarBytesIn = 0;   // the DCache part of bytesIn (scalar GM reads)
  uint64_t scalarBytesOut = 0;  // the DCache part of bytesOut (scalar GM writes)
  uint64_t l2HitBytes = 0;      // the part of bytesIn the L2 served (not charged at HBM)
  uint64_t ubPeakBytes = 0;     // the largest per-core UB peak (TPipe pool high-water mark)
  double loadBalance = 1;      // 1 when no core did work
  double chipUtilization = 0;  // 0 when no core did work
  int busyCores = 0;           // cores with nonzero T_core
  std::vector<CoreTime> cores;
};

CoreTime ModelCore(const CoreCounters& counters, const SocProfile& soc);
// max(T_MTE2, T_MTE3, T_VEC) of the counters so far, no refills: the core's busy time, whose
// growth between a CrossCoreSetFlag and its wait is the work that hides the barrier latency.
double CoreBusyUs(const CoreCounters& counters, const SocProfile& soc);
// cores.size() is the launch's blockDim.
KernelTime ModelKernel(const std::vector<CoreCounters>& cores, const SocProfile& soc);
// Uses EffectiveSoc(report.soc) (CurrentSoc() if it is null).
KernelTime ModelLaunch(const LaunchReport& report);
// A whole operator call: its launches run back to back, so the times add up.
double ModelCallUs(const std::vector<LaunchReport>& launches);

}  // namespace sim
