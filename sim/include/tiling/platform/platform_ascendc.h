// platform_ascendc::PlatformAscendC (tiling/platform/platform_ascendc.h in CANN): the chip facts a
// tiling function plans with — core counts, per-core memory sizes, the SoC version and the system
// workspace the Ascend C runtime reserves. Here answered from the simulator's SoC profile.
#pragma once
#include <cstdint>

#include "platform/platform_infos_def.h"

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };

// Same enumerators, in the same order (so the same values), as CANN's.
enum class SocVersion {
  ASCEND910 = 0,  // Atlas training series
  ASCEND910B,     // Atlas A2, and A3 (ascend910_93) as far as tiling is concerned
  ASCEND310P,
  ASCEND310B,
  ASCEND950,
  ASCEND910_55,
  ASCEND910_95 = ASCEND950,
  AS31XM1,
  ASCEND031,
  ASCEND035,
  ASCEND310,
  ASCEND610,
  ASCEND610Lite,
  ASCEND910_93,
  RESERVED_VERSION = 99999
};

class PlatformAscendC {
 public:
  PlatformAscendC() = delete;
  ~PlatformAscendC() = default;
  explicit PlatformAscendC(fe::PlatFormInfos* platformInfo) : platformInfo_(platformInfo) {}
  uint32_t GetCoreNum(void) const;      // vector cores on A2/A3 (split AIC/AIV), AI cores on the training series
  uint32_t GetCoreNumAic(void) const;
  uint32_t GetCoreNumAiv(void) const;
  uint32_t GetLibApiWorkSpaceSize(void) const;
  void GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const;
  SocVersion GetSocVersion(void) const;

 private:
  fe::PlatFormInfos* platformInfo_;
};

}  // namespace platform_ascendc
