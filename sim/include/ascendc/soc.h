// SoC profiles: the per-chip facts the simulator enforces and the cost model uses.
// A profile is one chip of CANN's platform configuration (its SoC_version, "Ascend910B3"), or a
// family ("ascend910b", the name an OpDef's AddConfig and the users pass), which models the
// family's default chip. Every constant has its source in ../docs/soc-profiles.md.
#pragma once
#include <cstdint>
#include <string>

namespace sim {

struct SocProfile {
  const char* name;          // the name users pass: a family ("ascend910b") or a chip ("Ascend910B3")
  const char* family;        // the family's OpDef config name: "ascend910b", "ascend910_93", "ascend910", "ascend310p", "ascend950"
  const char* shortSocVersion;  // CANN's Short_SoC_version of the family: "Ascend910B", "Ascend910_93", ...
  const char* socVersion;    // CANN's SoC_version of the chip modeled (a family: its default chip)
  int aivCores;              // vector cores a launch may use
  uint32_t ubBytes;          // Unified Buffer per vector core
  double clockGHz;           // core clock
  double hbmSustainedTBs;    // modeled sustained HBM bandwidth (TB/s)
  double hbmPeakTBs;         // roofline peak (TB/s)
  double coreDmaBytesPerCycle;  // one core's DMA cap
  double dmaIssueCycles;     // fixed cost per DataCopy instruction
  double vecIssueCycles;     // fixed cost per vector instruction
  double launchUs;           // device-side launch overhead
  double syncAllUs;          // one all-core barrier
  int eventIdsPerEvent;      // SetFlag/WaitFlag ids 0..n-1
  bool hasDataCopyPad;       // Atlas training (1001) and inference (2002) have no DataCopyPad
  bool hasBf16;              // bfloat16 storage/casts exist (A2/A3 only)
  bool hasHardSyncAll;       // hardware SyncAll (A2/A3)
  bool hasBrcb;              // Brcb instruction (A2/A3)
  bool hasMulAdd;            // MulAddDst and FusedMulAdd (A2/A3)
  bool countFormCounterMode; // count-form vector APIs run in counter mode (all but the training series)
  bool rejectsZeroMask;      // a normal-mode level-0 call whose mask selects no lane fails (training, 310P)
  uint64_t l2Bytes;          // the chip's shared L2 cache (the re-read model, ascendc/l2cache.h)
};

// Looks a profile up by name (exact, case-sensitive: CANN's "Ascend910B" is a training-series chip,
// "ascend910b" the Atlas A2 family); returns nullptr for an unknown name.
const SocProfile* FindSoc(const std::string& name);
// The profile kernels launched from this thread run on: the thread's own (SetThreadSoc) if it has
// one, else the process-wide one (default ascend910b, overridable with the NORMGRAD_SOC
// environment variable or SetCurrentSoc).
const SocProfile& CurrentSoc();
// Sets the process-wide profile. Returns false (and changes nothing) for an unknown name.
bool SetCurrentSoc(const std::string& name);
// Sets the calling thread's own profile ("" clears it: the thread follows the process-wide one).
// Returns false (and changes nothing) for an unknown name.
bool SetThreadSoc(const std::string& name);
// All profiles, for `normgrad info`: one per family first, then one per chip.
const SocProfile* AllSocs(int* count);

}  // namespace sim
