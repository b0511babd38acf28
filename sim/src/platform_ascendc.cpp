// platform_ascendc::PlatformAscendC answered from the simulator's SoC profile.
#include "tiling/platform/platform_ascendc.h"

#include <cstring>

#include "ascendc/cost.h"
#include "ascendc/soc.h"

namespace platform_ascendc {

namespace {

// The cores a launch may use: the profile's, or fewer under the what-if `aiv_cores` (ascendc/cost.h).
int VectorCores(const sim::SocProfile* soc) { return sim::EffectiveSoc(*soc).aivCores; }

}  // namespace

// A2/A3 split each AI core into one cube and two vector cores; the profile counts vector cores
// (vector_core_cnt of the platform file; cube_core_cnt = ai_core_cnt is half of it). The training
// series has AI cores only, each with its own vector unit (ai_core_cnt).
uint32_t PlatformAscendC::GetCoreNum(void) const { return static_cast<uint32_t>(VectorCores(platformInfo_->soc_)); }
uint32_t PlatformAscendC::GetCoreNumAiv(void) const { return static_cast<uint32_t>(VectorCores(platformInfo_->soc_)); }
uint32_t PlatformAscendC::GetCoreNumAic(void) const {
  const int aiv = VectorCores(platformInfo_->soc_);
  return static_cast<uint32_t>(platformInfo_->soc_->hasHardSyncAll ? (aiv + 1) / 2 : aiv);
}

// The system workspace the Ascend C runtime reserves ahead of the user's: the simulator's kernels
// use no library API that needs it and GetUserWorkspace returns the pointer given, as in CANN's
// CPU-debug mode, so it is 0 here. On hardware CANN answers 16 MiB for A2/A3.
uint32_t PlatformAscendC::GetLibApiWorkSpaceSize(void) const { return 0; }

void PlatformAscendC::GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const {
  size = memType == CoreMemType::UB ? platformInfo_->soc_->ubBytes : 0;
}

// As CANN maps the platform file's Short_SoC_version (asc-devkit
// impl/utils/tiling/platform/platform_ascendc.cpp, convertMap): every chip of a family reports the
// family's version, and the A3 chips (Ascend910_93) report ASCEND910B.
SocVersion PlatformAscendC::GetSocVersion(void) const {
  static const struct {
    const char* shortSocVersion;
    SocVersion version;
  } kVersions[] = {
      {"Ascend910", SocVersion::ASCEND910},
      {"Ascend910B", SocVersion::ASCEND910B},
      {"Ascend910_93", SocVersion::ASCEND910B},
      {"Ascend310P", SocVersion::ASCEND310P},
      {"Ascend950", SocVersion::ASCEND950},
  };
  for (const auto& v : kVersions) {
    if (std::strcmp(v.shortSocVersion, platformInfo_->soc_->shortSocVersion) == 0) return v.version;
  }
  return SocVersion::RESERVED_VERSION;
}

}  // namespace platform_ascendc
