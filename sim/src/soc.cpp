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
// ddr_rate (bytes a cycle one core moves between GM and its buffers).
struct Chip {
  const char* socVersion;  // SoC_version, also the file's name
  const char* family;      // Short_SoC_version, lower-cased: the family's OpDef config name
  int vectorCores;         // vector_core_cnt, or ai_core_cnt where the AI cores are not split
  uint32_t ubBytes;        // ub_size
  int clockMHz;            // cube_freq
  uint64_t l2Bytes;        // l2_size
  double ddrRate;          // ddr_rate, bytes per cycle
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
};

// name, Short_SoC_version, default chip, HBM sustained/peak TB/s, DMA issue cycles, vector issue
// cycles, launch us, SyncAll us, event ids, DataCopyPad, bf16, hard SyncAll, Brcb, MulAddDst/FusedMulAdd.
const Family kFamilies[] = {
    {"ascend910b", "Ascend910B", "Ascend910B1", 1.5, 1.8, 20.0, 10.0, 5.0, 2.0, 8, true, true, true, true, true},
    {"ascend910_93", "Ascend910_93", "Ascend910_9391", 1.5, 1.8, 20.0, 10.0, 5.0, 2.0, 8, true, true, true, true, true},
    {"ascend910", "Ascend910", "Ascend910A", 1.0, 1.2, 20.0, 10.0, 5.0, 2.0, 4, false, false, false, false, false},
    {"ascend310p", "Ascend310P", "Ascend310P3", 0.17, 0.2048, 20.0, 10.0, 5.0, 2.0, 8, false, false, false, true, true},
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
  return SocProfile{name, f.name, f.shortSocVersion, chip.socVersion, chip.vectorCores, chip.ubBytes,
                    chip.clockMHz / 1000.0, f.hbmSustainedTBs, f.hbmPeakTBs, chip.ddrRate, f.dmaIssueCycles,
                    f.vecIssueCycles, f.launchUs, f.syncAllUs, f.eventIdsPerEvent, f.hasDataCopyPad, f.hasBf16,
                    f.hasHardSyncAll, f.hasBrcb, f.hasMulAdd, chip.l2Bytes};
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
