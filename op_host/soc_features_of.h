// Fills the SocFeatures from CANN's platform API in one place, so the simulator (whose
// PlatformAscendC answers from its SoC profile) and the device agree.
#pragma once
#include "soc_features.h"
#include "tiling/platform/platform_ascendc.h"

namespace normgrad {

inline SocFeatures SocFeaturesOf(fe::PlatFormInfos* platformInfo) {
  platform_ascendc::PlatformAscendC platform(platformInfo);
  const platform_ascendc::SocVersion version = platform.GetSocVersion();
  // The training series (dav-c100) and the inference series (dav-m200) lack A2's features; their
  // kernels are AI-core kernels. A2/A3 split each AI core into one cube and two vector cores; the
  // training and inference series' AI cores each carry their own vector unit. The inference
  // series' separate vector cores (GetCoreNumVector) are not used: docs/layer_norm_grad.md.
  const bool blockCopyArch =
      version == platform_ascendc::SocVersion::ASCEND910 || version == platform_ascendc::SocVersion::ASCEND310P;
  uint64_t ub = 0;
  platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
  SocFeatures f = MakeSocFeatures(blockCopyArch ? platform.GetCoreNum() : platform.GetCoreNumAiv(),
                                  static_cast<uint32_t>(ub), blockCopyArch);
  // Ascend 950 (arch 3510) reports 248 KiB, the UB below the devkit's TMP_UB_OFFSET: nothing of it
  // is the toolchain's (docs/soc-profiles.md, "Ascend 950").
  if (version == platform_ascendc::SocVersion::ASCEND950) f.ubReservedBytes = 0;
  f.sysWorkspaceBytes = platform.GetLibApiWorkSpaceSize();
  return f;
}

}  // namespace normgrad
