// platform_ascendc::PlatformAscendC answered from the simulator's SoC profile.
#include "tiling/platform/platform_ascendc.h"

#include <string>

#include "ascendc/soc.h"

namespace platform_ascendc {

// A2/A3 split each AI core into one cube and two vector cores; the profile counts vector cores.
// The training series has AI cores only, each with its own vector unit.
uint32_t PlatformAscendC::GetCoreNum(void) const { return static_cast<uint32_t>(platformInfo_->soc_->aivCores); }
uint32_t PlatformAscendC::GetCoreNumAiv(void) const { return static_cast<uint32_t>(platformInfo_->soc_->aivCores); }
uint32_t PlatformAscendC::GetCoreNumAic(void) const {
  const sim::SocProfile* soc = platformInfo_->soc_;
  return static_cast<uint32_t>(soc->hasHardSyncAll ? soc->aivCores / 2 : soc->aivCores);
}

// The system workspace the Ascend C runtime reserves ahead of the user's: the simulator's kernels
// use no library API that needs it and GetUserWorkspace returns the pointer given, as in CANN's
// CPU-debug mode, so it is 0 here. On hardware CANN answers 16 MiB for A2/A3.
uint32_t PlatformAscendC::GetLibApiWorkSpaceSize(void) const { return 0; }

void PlatformAscendC::GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const {
  size = memType == CoreMemType::UB ? platformInfo_->soc_->ubBytes : 0;
}

SocVersion PlatformAscendC::GetSocVersion(void) const {
  return std::string(platformInfo_->soc_->name) == "ascend910" ? SocVersion::ASCEND910 : SocVersion::ASCEND910B;
}

}  // namespace platform_ascendc
