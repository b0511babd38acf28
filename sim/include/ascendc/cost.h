// The cost model: turns per-core work counters into modeled device time for a SoC profile,
// exactly performance-model.md §5.1 with the §5.2 constants (SocProfile in sim/src/soc.cpp, and
// the cycles per repeat of each vector op class below).
//
// Per core c (f = clock, BW_core = coreDmaBytesPerCycle * f):
//   T_MTE2 = (gmToUbBytes + scalarGmBytesIn)  / BW_core + dmaIn  * dmaIssueCycles / f
//   T_MTE3 = (ubToGmBytes + scalarGmBytesOut) / BW_core + dmaOut * dmaIssueCycles / f
//   (scalarGmBytesIn/Out: the DCache's 64-byte line fills of scalar GM reads and write-backs of
//   dirty lines, ascendc/dcache.h; they share the core's GM port with the DMA copies)
//   T_VEC  = (sum_class vecRepeats[class] * cpr(class) + ceil(ubToUbBytes / 256) * cpr(elementwise)
//             + vecInstr * vecIssueCycles) / f
//   T_fill = one average MTE2 instruction + one average MTE3 instruction (pipeline prologue and
//            epilogue of double buffering; DMA copies only; 0 for a direction with no instruction)
//   T_core = max(T_MTE2, T_MTE3, T_VEC) + T_fill          (cores with no counted work: 0)
// Per launch:
//   bytesIn  = sum_c gmToUbBytes + scalarGmBytesIn;  bytesOut = sum_c ubToGmBytes + scalarGmBytesOut
//   T_HBM    = (bytesIn + bytesOut) / hbmSustained
//   T_kernel = launchUs + max(T_HBM, max_c T_core) + max_c syncAll * syncAllUs
//   loadBalance     = mean over the blockDim launched cores of T_core / max_c T_core (idle launched
//                     cores count as 0: launching a core that gets no work is imbalance)
//   chipUtilization = sum_c T_core / (soc.aivCores * max_c T_core) (also charges cores not launched)
// Not modeled: DCache miss latency, scalar UB accesses, L2 hits, bank conflicts, DMA alignment
// penalties.
// Example (ascend910b, f = 1.85 GHz, 32 B/cycle): one core reading 59.2 KB in 1 DataCopy ->
// T_MTE2 = 59200 / (32 * 1850) us + 20 / 1850 us = 1.0 + 0.0108 us.
#pragma once
#include <cstdint>
#include <vector>

#include "ascendc/core.h"
#include "ascendc/launch.h"
#include "ascendc/soc.h"

namespace sim {

// Cycles per 256-byte repeat (performance-model.md §5.2): elementwise 1 [A4]; reductions 3
// (documented 2-5x an Add [A12]); Exp/Ln/Div/Sqrt 3 (ESTIMATE 2-4, not documented); Cast 1
// (ESTIMATE, priced like an elementwise op).
double CyclesPerRepeat(OpClass cls);

struct CoreTime {
  double mte2Us = 0;
  double mte3Us = 0;
  double vecUs = 0;
  double fillUs = 0;
  double coreUs = 0;  // max(mte2, mte3, vec) + fill
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
  double loadBalance = 1;      // 1 when no core did work
  double chipUtilization = 0;  // 0 when no core did work
  int busyCores = 0;           // cores with nonzero T_core
  std::vector<CoreTime> cores;
};

CoreTime ModelCore(const CoreCounters& counters, const SocProfile& soc);
// cores.size() is the launch's blockDim.
KernelTime ModelKernel(const std::vector<CoreCounters>& cores, const SocProfile& soc);
// Uses report.soc (CurrentSoc() if it is null).
KernelTime ModelLaunch(const LaunchReport& report);
// A whole operator call: its launches run back to back, so the times add up.
double ModelCallUs(const std::vector<LaunchReport>& launches);

}  // namespace sim
