// The SoC profile tables: CANN's chips and the families they belong to. Every constant, its value
// and its source (a platform file, a public document, or ESTIMATE with the public range) is in
// docs/soc-profiles.md.
#include "ascendc/soc.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace sim {
namespace {

// The chips, as CANN's platform configuration describes them: the runtime repository's
// src/platform/platform_config/cann/<SoC_version>.ini, the file PlatformAscendC reads on a device
// (docs/soc-profiles.md). Keys read: [version] SoC_version and Short_SoC_version (the family);
// [SoCInfo] vector_core_cnt on chips that split each AI core into a cube and two vector cores
// (core_type_list=CubeCore,VectorCore), else ai_core_cnt (the training series: vector_core_cnt=0,
// every AI core has its own vector unit), and l2_size; [AICoreSpec] cube_freq (the AI core clock in
// MHz: the files give no separate vector clock for these chips) and ub_size; [AICoreMemoryRates]
// ddr_rate (bytes a cycle one core moves between GM and its buffers). The 950 rows read the vector
// cores' sections instead (see there).
struct Chip {
  const char* socVersion;  // SoC_version, also the file's name
  const char* family;      // Short_SoC_version, lower-cased: the family's OpDef config name
  int vectorCores;         // vector_core_cnt, or ai_core_cnt where the AI cores are not split
  uint32_t ubBytes;        // ub_size
  int clockMHz;            // cube_freq
  uint64_t l2Bytes;        // l2_size
  double ddrRate;          // ddr_rate, bytes per cycle
  // HBM bandwidth where a family's chips differ (Ascend 950PR against 950DT; ESTIMATE, press
  // figures, docs/soc-profiles.md); 0: the family's.
  double hbmSustainedTBs = 0, hbmPeakTBs = 0;
};

const Chip kChips[] = {
    // Atlas A2 training/inference series (Short_SoC_version=Ascend910B, dav-c220).
    {"Ascend910B1", "ascend910b", 48, 196608, 1850, 201326592, 32},    // Ascend910B1.ini
    {"Ascend910B2", "ascend910b", 48, 196608, 1800, 201326592, 32},    // Ascend910B2.ini
    {"Ascend910B2C", "ascend910b", 48, 196608, 1800, 201326592, 32},   // Ascend910B2C.ini
    {"Ascend910B3", "ascend910b", 40, 196608, 1800, 201326592, 32},    // Ascend910B3.ini
    {"Ascend910B4", "ascend910b", 40, 196608, 1500, 100663296, 32},    // Ascend910B4.ini
    {"Ascend910B4-1", "ascend910b", 40, 196608, 1500, 176160768, 32},  // Ascend910B4-1.ini
    // Atlas A3 series (Short_SoC_version=Ascend910_93, dav-c220; the figures of one die).
    {"Ascend910_9362", "ascend910_93", 40, 196608, 1500, 176160768, 32},  // Ascend910_9362.ini
    {"Ascend910_9363", "ascend910_93", 40, 196608, 1500, 176160768, 32},  // Ascend910_9363.ini
    {"Ascend910_9372", "ascend910_93", 40, 196608, 1800, 201326592, 32},  // Ascend910_9372.ini
    {"Ascend910_9381", "ascend910_93", 48, 196608, 1800, 201326592, 32},  // Ascend910_9381.ini
    {"Ascend910_9382", "ascend910_93", 48, 196608, 1800, 201326592, 32},  // Ascend910_9382.ini
    {"Ascend910_9391", "ascend910_93", 48, 196608, 1850, 201326592, 32},  // Ascend910_9391.ini
    {"Ascend910_9392", "ascend910_93", 48, 196608, 1850, 201326592, 32},  // Ascend910_9392.ini
    // Atlas training series (Short_SoC_version=Ascend910, arch 1001; ai_core_cnt, no vector_core_cnt).
    // "Ascend910B" is CANN's name of a training-series chip, not of the A2 family "ascend910b".
    {"Ascend910A", "ascend910", 32, 262144, 1000, 33554432, 32},         // Ascend910A.ini
    {"Ascend910B", "ascend910", 30, 262144, 900, 33554432, 32},          // Ascend910B.ini
    {"Ascend910ProA", "ascend910", 32, 262144, 1100, 33554432, 32},      // Ascend910ProA.ini
    {"Ascend910ProB", "ascend910", 30, 262144, 1150, 33554432, 32},      // Ascend910ProB.ini
    {"Ascend910PremiumA", "ascend910", 32, 262144, 1220, 33554432, 32},  // Ascend910PremiumA.ini
    // Atlas inference series (Short_SoC_version=Ascend310P, dav-m200; core_type_list=AICore,VectorCore):
    // ai_core_cnt, the cores of an AI-core kernel, with the AI core's cube_freq and ddr_rate. The
    // separate vector cores (vector_core_cnt, [VectorCoreSpec] vec_freq=1000, [VectorCoreMemoryRates]
    // ddr_rate=9) serve only KERNEL_TYPE_MIX_VECTOR_CORE launches, which normgrad does not make.
    {"Ascend310P1", "ascend310p", 10, 262144, 1060, 16777216, 17},  // Ascend310P1.ini
    {"Ascend310P3", "ascend310p", 8, 262144, 1060, 16777216, 17},   // Ascend310P3.ini
    {"Ascend310P5", "ascend310p", 8, 262144, 800, 16777216, 17},    // Ascend310P5.ini
    {"Ascend310P7", "ascend310p", 8, 262144, 550, 16777216, 17},    // Ascend310P7.ini
    // Ascend 950PR/950DT (Short_SoC_version=Ascend950, NpuArch=3510), the runtime repository's
    // src/platform/platform_config/cann-dev/. Each AI core is one cube and two vector cores
    // (core_type_list=CubeCore,VectorCore); the kernels run on the vector cores, so the clock, UB and
    // rate are the [VectorCoreSpec] vec_freq and ub_size and [VectorCoreMemoryRates] ddr_rate (half
    // the [AICoreMemoryRates] one). ub_size 253952 (248 KiB) is what remains of the 256 KiB UB: the
    // devkit's TOTAL_UB_SIZE = TMP_UB_OFFSET = 248 KiB on 3510. HBM: 950PR chips the family's
    // (1.6 TB/s peak), 950DT chips about 4 TB/s: press figures, ESTIMATE.
    {"Ascend950DT_950x", "ascend950", 16, 253952, 1650, 33554432, 10, 3.33, 4.0},  // Ascend950DT_950x.ini
    {"Ascend950DT_950y", "ascend950", 16, 253952, 1650, 33554432, 7, 3.33, 4.0},  // Ascend950DT_950y.ini
    {"Ascend950DT_9571", "ascend950", 56, 253952, 1650, 134217728, 40, 3.33, 4.0},  // Ascend950DT_9571.ini
    {"Ascend950DT_9572", "ascend950", 56, 253952, 1650, 134217728, 40, 3.33, 4.0},  // Ascend950DT_9572.ini
    {"Ascend950DT_9573", "ascend950", 56, 253952, 1650, 117440512, 35, 3.33, 4.0},  // Ascend950DT_9573.ini
    {"Ascend950DT_9574", "ascend950", 56, 253952, 1650, 117440512, 35, 3.33, 4.0},  // Ascend950DT_9574.ini
    {"Ascend950DT_9575", "ascend950", 56, 253952, 1650, 134217728, 31, 3.33, 4.0},  // Ascend950DT_9575.ini
    {"Ascend950DT_9576", "ascend950", 56, 253952, 1650, 134217728, 31, 3.33, 4.0},  // Ascend950DT_9576.ini
    {"Ascend950DT_9577", "ascend950", 56, 253952, 1650, 117440512, 27, 3.33, 4.0},  // Ascend950DT_9577.ini
    {"Ascend950DT_9578", "ascend950", 56, 253952, 1650, 117440512, 27, 3.33, 4.0},  // Ascend950DT_9578.ini
    {"Ascend950DT_9581", "ascend950", 64, 253952, 1650, 134217728, 40, 3.33, 4.0},  // Ascend950DT_9581.ini
    {"Ascend950DT_9581x", "ascend950", 64, 253952, 1650, 134217728, 40, 3.33, 4.0},  // Ascend950DT_9581x.ini
    {"Ascend950DT_9582", "ascend950", 64, 253952, 1650, 134217728, 40, 3.33, 4.0},  // Ascend950DT_9582.ini
    {"Ascend950DT_9582x", "ascend950", 64, 253952, 1650, 134217728, 40, 3.33, 4.0},  // Ascend950DT_9582x.ini
    {"Ascend950DT_9583", "ascend950", 64, 253952, 1650, 117440512, 35, 3.33, 4.0},  // Ascend950DT_9583.ini
    {"Ascend950DT_9584", "ascend950", 64, 253952, 1650, 117440512, 35, 3.33, 4.0},  // Ascend950DT_9584.ini
    {"Ascend950DT_9585", "ascend950", 64, 253952, 1650, 134217728, 31, 3.33, 4.0},  // Ascend950DT_9585.ini
    {"Ascend950DT_9586", "ascend950", 64, 253952, 1650, 134217728, 31, 3.33, 4.0},  // Ascend950DT_9586.ini
    {"Ascend950DT_9587", "ascend950", 64, 253952, 1650, 117440512, 27, 3.33, 4.0},  // Ascend950DT_9587.ini
    {"Ascend950DT_9588", "ascend950", 64, 253952, 1650, 117440512, 27, 3.33, 4.0},  // Ascend950DT_9588.ini
    {"Ascend950DT_9591", "ascend950", 72, 253952, 1800, 134217728, 40, 3.33, 4.0},  // Ascend950DT_9591.ini
    {"Ascend950DT_9592", "ascend950", 72, 253952, 1800, 134217728, 40, 3.33, 4.0},  // Ascend950DT_9592.ini
    {"Ascend950DT_9595", "ascend950", 72, 253952, 1800, 134217728, 31, 3.33, 4.0},  // Ascend950DT_9595.ini
    {"Ascend950DT_9596", "ascend950", 72, 253952, 1800, 134217728, 31, 3.33, 4.0},  // Ascend950DT_9596.ini
    {"Ascend950DT_95A1", "ascend950", 72, 253952, 1800, 134217728, 40, 3.33, 4.0},  // Ascend950DT_95A1.ini
    {"Ascend950DT_95A2", "ascend950", 72, 253952, 1800, 134217728, 40, 3.33, 4.0},  // Ascend950DT_95A2.ini
    {"Ascend950PR_950z", "ascend950", 8, 253952, 1650, 16777216, 2},  // Ascend950PR_950z.ini
    {"Ascend950PR_9579", "ascend950", 56, 253952, 1650, 134217728, 16},  // Ascend950PR_9579.ini
    {"Ascend950PR_957b", "ascend950", 56, 253952, 1650, 117440512, 14},  // Ascend950PR_957b.ini
    {"Ascend950PR_957bx", "ascend950", 56, 253952, 1650, 117440512, 14},  // Ascend950PR_957bx.ini
    {"Ascend950PR_957c", "ascend950", 56, 253952, 1650, 117440512, 14},  // Ascend950PR_957c.ini
    {"Ascend950PR_957d", "ascend950", 56, 253952, 1650, 100663296, 12},  // Ascend950PR_957d.ini
    {"Ascend950PR_9589", "ascend950", 64, 253952, 1650, 134217728, 16},  // Ascend950PR_9589.ini
    {"Ascend950PR_958b", "ascend950", 64, 253952, 1650, 117440512, 14},  // Ascend950PR_958b.ini
    {"Ascend950PR_9599", "ascend950", 72, 253952, 1800, 134217728, 16},  // Ascend950PR_9599.ini
};

// What a family shares and the platform files do not give: the default chip (the one whose figures
// the family's name stands for), the architecture's features (docs/hardware-rules.md), the HBM
// bandwidths and the fixed costs of the cost model (sources and ESTIMATEs in docs/soc-profiles.md).
struct Family {
  const char* name;             // the OpDef config name
  const char* shortSocVersion;  // CANN's Short_SoC_version
  const char* defaultChip;
  double hbmSustainedTBs, hbmPeakTBs;
  double dmaIssueCycles, vecIssueCycles, launchUs, syncAllUs;
  int eventIdsPerEvent;
  bool hasDataCopyPad, hasBf16, hasHardSyncAll, hasBrcb, hasMulAdd;
  bool countFormCounterMode, rejectsZeroMask;
};

// name, Short_SoC_version, default chip, HBM sustained/peak TB/s, DMA issue cycles, vector issue
// cycles, launch us, SyncAll us, event ids, DataCopyPad, bf16, hard SyncAll, Brcb, MulAddDst/FusedMulAdd,
// count forms in counter mode, zero-lane mask rejected.
const Family kFamilies[] = {
    {"ascend910b", "Ascend910B", "Ascend910B1", 1.5, 1.8, 20.0, 10.0, 5.0, 2.0, 8, true, true, true, true, true, true,
     false},
    {"ascend910_93", "Ascend910_93", "Ascend910_9391", 1.5, 1.8, 20.0, 10.0, 5.0, 2.0, 8, true, true, true, true, true,
     true, false},
    {"ascend910", "Ascend910", "Ascend910A", 1.0, 1.2, 20.0, 10.0, 5.0, 2.0, 4, false, false, false, false, false, false,
     true},
    {"ascend310p", "Ascend310P", "Ascend310P3", 0.17, 0.2048, 20.0, 10.0, 5.0, 2.0, 8, false, false, false, true, true,
     true, true},
    {"ascend950", "Ascend950", "Ascend950PR_9599", 1.33, 1.6, 20.0, 10.0, 5.0, 2.0, 8, true, true, true, true, true, true,
     false},
};

const Family& FamilyOf(const Chip& chip) {
  for (const Family& f : kFamilies) {
    if (std::strcmp(f.name, chip.family) == 0) return f;
  }
  std::fprintf(stderr, "normgrad sim: chip %s names no family\n", chip.socVersion);  // a table error
  std::abort();
}

const Chip& ChipNamed(const char* socVersion) {
  for (const Chip& c : kChips) {
    if (std::strcmp(c.socVersion, socVersion) == 0) return c;
  }
  std::fprintf(stderr, "normgrad sim: no chip %s\n", socVersion);  // a table error
  std::abort();
}

SocProfile Compose(const char* name, const Chip& chip) {
  const Family& f = FamilyOf(chip);
  const bool ownHbm = chip.hbmPeakTBs > 0;
  return SocProfile{name, f.name, f.shortSocVersion, chip.socVersion, chip.vectorCores, chip.ubBytes,
                    chip.clockMHz / 1000.0, ownHbm ? chip.hbmSustainedTBs : f.hbmSustainedTBs,
                    ownHbm ? chip.hbmPeakTBs : f.hbmPeakTBs, chip.ddrRate, f.dmaIssueCycles,
                    f.vecIssueCycles, f.launchUs, f.syncAllUs, f.eventIdsPerEvent, f.hasDataCopyPad, f.hasBf16,
                    f.hasHardSyncAll, f.hasBrcb, f.hasMulAdd, f.countFormCounterMode, f.rejectsZeroMask,
                    chip.l2Bytes};
}

// Every profile: one per family (its default chip under the family's name), then one per chip.
// Built once; the profiles never move (launch reports keep pointers to them).
const std::vector<SocProfile>& Profiles() {
  static const std::vector<SocProfile> profiles = [] {
    std::vector<SocProfile> all;
    for (const Family& f : kFamilies) all.push_back(Compose(f.name, ChipNamed(f.defaultChip)));
    for (const Chip& c : kChips) all.push_back(Compose(c.socVersion, c));
    return all;
  }();
  return profiles;
}

const SocProfile* InitialSoc() {
  const char* env = std::getenv("NORMGRAD_SOC");
  if (env != nullptr) {
    if (const SocProfile* p = FindSoc(env)) return p;
  }
  return &Profiles()[0];
}

std::mutex g_socMutex;
const SocProfile* g_current = nullptr;
// A thread's own choice (SetThreadSoc), which wins over the process-wide one: two threads may run
// operators on different SoCs at once.
thread_local const SocProfile* t_current = nullptr;

}  // namespace

const SocProfile* FindSoc(const std::string& name) {
  for (const SocProfile& p : Profiles()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

const SocProfile& CurrentSoc() {
  if (t_current != nullptr) return *t_current;
  std::lock_guard<std::mutex> lock(g_socMutex);
  if (g_current == nullptr) g_current = InitialSoc();
  return *g_current;
}

bool SetCurrentSoc(const std::string& name) {
  const SocProfile* p = FindSoc(name);
  if (p == nullptr) return false;
  std::lock_guard<std::mutex> lock(g_socMutex);
  g_current = p;
  return true;
}

bool SetThreadSoc(const std::string& name) {
  if (name.empty()) {
    t_current = nullptr;
    return true;
  }
  const SocProfile* p = FindSoc(name);
  if (p == nullptr) return false;
  t_current = p;
  return true;
}

const SocProfile* AllSocs(int* count) {
  *count = static_cast<int>(Profiles().size());
  return Profiles().data();
}

}  // namespace sim
