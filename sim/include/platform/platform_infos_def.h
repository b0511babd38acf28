// fe::PlatFormInfos (platform/platform_infos_def.h in CANN): the chip a host function plans for,
// read through platform_ascendc::PlatformAscendC. Opaque here; the simulator's holds its SoC profile.
#pragma once

namespace sim {
struct SocProfile;
}
namespace platform_ascendc {
class PlatformAscendC;
}

namespace fe {

class PlatFormInfos {
 public:
  explicit PlatFormInfos(const sim::SocProfile* soc) : soc_(soc) {}

 private:
  friend class platform_ascendc::PlatformAscendC;
  const sim::SocProfile* soc_;
};

}  // namespace fe
