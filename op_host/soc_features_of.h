// Fills the SocFeatures from CANN's platform API in one place, so the simulator (whose
// PlatformAscendC answers from its SoC profile) and the device agree.
#pragma once
#include "soc_features.h"
#include "tiling/platform/platform_ascendc.h"

namespace normgrad {

inline SocFeatures SocFeaturesOf(fe::PlatFormInfos* platformInfo) {
  platform_ascendc::PlatformAscendC platform(platformInfo);
  const bool training = platform.GetSocVersion() == platform_ascendc::SocVersion::ASCEND910;
  // A2/A3 split each AI core into one cube and two vector cores; the training series' AI cores
  // each carry their own vector unit.
  uint64_t ub = 0;
  platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
  SocFeatures f = MakeSocFeatures(training ? platform.GetCoreNum() : platform.GetCoreNumAiv(),
                                  static_cast<uint32_t>(ub), training);
  // Ascend 950 (arch 3510) reports 248 KiB, the UB below the devkit's TMP_UB_OFFSET: nothing of it
  // is the toolchain's (docs/soc-profiles.md, "Ascend 950").
  if (platform.GetSocVersion() == platform_ascendc::SocVersion::ASCEND950) f.ubReservedBytes = 0;
  f.sysWorkspaceBytes = platform.GetLibApiWorkSpaceSize();
  return f;
}

}  // namespace normgrad
