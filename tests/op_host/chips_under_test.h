// The chips the tiling invariants are checked on: one SocFeatures per distinct chip the simulator's
// profiles describe (docs/soc-profiles.md: Atlas A2/A3 at 48 and 40 vector cores, the training
// series at 32 and 30; a chip added there is covered here at once), each read the way the tiling
// adapters read it (SocFeaturesOf, through PlatformAscendC), plus every architecture at 1 and 7
// cores, the remainders no real count produces.
#pragma once
#include <sstream>
#include <string>
#include <vector>

#include "ascendc/soc.h"
#include "platform/platform_infos_def.h"
#include "soc_features_of.h"

namespace normgrad_test {

struct ChipUnderTest {
  std::string label;  // "Ascend910B3 (ascend910b, 40 cores)", "ascend910 capped at 7 core(s)"
  normgrad::SocFeatures soc;
  bool capped = false;  // a core count no chip has (1 or 7)
  bool familyDefault = false;  // the first chip of its architecture: a family's default chip
};

inline bool SameFeatures(const normgrad::SocFeatures& a, const normgrad::SocFeatures& b) {
  return a.vectorCores == b.vectorCores && a.ubBytes == b.ubBytes && a.blockCopyArch == b.blockCopyArch &&
         a.hasDataCopyPad == b.hasDataCopyPad && a.hasHardSyncAll == b.hasHardSyncAll && a.hasBrcb == b.hasBrcb &&
         a.hasBf16 == b.hasBf16 && a.sysWorkspaceBytes == b.sysWorkspaceBytes;
}

inline std::vector<ChipUnderTest> ChipsOfEveryCoreCount() {
  std::vector<ChipUnderTest> chips;
  auto add = [&chips](const std::string& label, const normgrad::SocFeatures& soc, bool capped, bool familyDefault) {
    for (const ChipUnderTest& c : chips) {
      if (SameFeatures(c.soc, soc)) return;  // A3's 48 cores plan as A2's: tested once
    }
    chips.push_back({label, soc, capped, familyDefault});
  };
  int count = 0;
  const sim::SocProfile* profiles = sim::AllSocs(&count);
  for (int i = 0; i < count; ++i) {
    fe::PlatFormInfos info(&profiles[i]);
    const normgrad::SocFeatures soc = normgrad::SocFeaturesOf(&info);
    std::ostringstream label;
    label << profiles[i].name << " (" << profiles[i].family << ", " << soc.vectorCores << " cores)";
    const bool familyDefault = std::string(profiles[i].name) == profiles[i].family;
    add(label.str(), soc, false, familyDefault);
    for (uint32_t odd : {1u, 7u}) {
      normgrad::SocFeatures fewer = soc;
      fewer.vectorCores = odd;
      add(std::string(profiles[i].family) + " capped at " + std::to_string(odd) + " core(s)", fewer, true, false);
    }
  }
  return chips;
}

}  // namespace normgrad_test
