// opdev/platform.h (CANN nnopbase), the part level-2 code uses: the SoC the call runs on, from the
// simulator's current SoC profile (normgradSimSetSoc; its family).
#pragma once
#include <string>

namespace op {

enum class SocVersion {
  ASCEND910 = 0,
  ASCEND910B,
  ASCEND910_93,
  ASCEND910_95,
  ASCEND950 = ASCEND910_95,
  ASCEND910E,
  ASCEND310,
  ASCEND310P,
  ASCEND310B,
  ASCEND310C,
  ASCEND610LITE,
  KIRINX90,
  KIRIN9030,
  RESERVED_VERSION = 99999
};

class PlatformInfo {
 public:
  SocVersion GetSocVersion() const;
  // The chip: the profile's name, a family ("ascend910b") or a chip ("Ascend910B3").
  const std::string& GetSocLongVersion() const;
};

const PlatformInfo& GetCurrentPlatformInfo();

}  // namespace op
