// The chip facts every tiling function reads, taken from CANN's platform API in one place, so the
// simulator (whose PlatformAscendC answers from its SoC profile) and the device agree.
#pragma once
#include <cstdint>

#include "tiling/platform/platform_ascendc.h"

namespace normgrad {

struct SocFeatures {
  uint32_t vectorCores = 0;        // cores a vector kernel may use
  uint32_t ubBytes = 0;            // Unified Buffer per core
  bool trainingSeries = false;     // Atlas training (arch 1001): no DataCopyPad, bf16, Brcb or hard SyncAll
  uint64_t sysWorkspaceBytes = 0;  // reserved by the runtime ahead of the kernel's own workspace
};

inline SocFeatures SocFeaturesOf(fe::PlatFormInfos* platformInfo) {
  platform_ascendc::PlatformAscendC platform(platformInfo);
  SocFeatures f;
  f.trainingSeries = platform.GetSocVersion() == platform_ascendc::SocVersion::ASCEND910;
  // A2/A3 split each AI core into one cube and two vector cores; the training series' AI cores
  // each carry their own vector unit.
  f.vectorCores = f.trainingSeries ? platform.GetCoreNum() : platform.GetCoreNumAiv();
  uint64_t ub = 0;
  platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
  f.ubBytes = static_cast<uint32_t>(ub);
  f.sysWorkspaceBytes = platform.GetLibApiWorkSpaceSize();
  return f;
}

}  // namespace normgrad
