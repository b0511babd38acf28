// The SoC profiles (ascendc/soc.h): families and chips, what PlatformAscendC reports for them, and
// the what-if core cap.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>
#include <string>

#include "ascendc/cost.h"
#include "ascendc/soc.h"
#include "runtime_test_util.h"
#include "tiling/platform/platform_ascendc.h"

namespace {

using platform_ascendc::PlatformAscendC;
using platform_ascendc::SocVersion;

std::vector<const sim::SocProfile*> Profiles() {
  int count = 0;
  const sim::SocProfile* all = sim::AllSocs(&count);
  std::vector<const sim::SocProfile*> out;
  for (int i = 0; i < count; ++i) out.push_back(&all[i]);
  return out;
}

bool IsFamily(const sim::SocProfile& p) { return std::strcmp(p.name, p.family) == 0; }

// Every figure a profile's behaviour depends on (all but the names).
void ExpectSameFigures(const sim::SocProfile& a, const sim::SocProfile& b) {
  SCOPED_TRACE(std::string(a.name) + " vs " + b.name);
  EXPECT_STREQ(a.family, b.family);
  EXPECT_STREQ(a.shortSocVersion, b.shortSocVersion);
  EXPECT_STREQ(a.socVersion, b.socVersion);
  EXPECT_EQ(a.aivCores, b.aivCores);
  EXPECT_EQ(a.ubBytes, b.ubBytes);
  EXPECT_EQ(a.clockGHz, b.clockGHz);
  EXPECT_EQ(a.hbmSustainedTBs, b.hbmSustainedTBs);
  EXPECT_EQ(a.hbmPeakTBs, b.hbmPeakTBs);
  EXPECT_EQ(a.coreDmaBytesPerCycle, b.coreDmaBytesPerCycle);
  EXPECT_EQ(a.dmaIssueCycles, b.dmaIssueCycles);
  EXPECT_EQ(a.vecIssueCycles, b.vecIssueCycles);
  EXPECT_EQ(a.launchUs, b.launchUs);
  EXPECT_EQ(a.syncAllUs, b.syncAllUs);
  EXPECT_EQ(a.eventIdsPerEvent, b.eventIdsPerEvent);
  EXPECT_EQ(a.hasDataCopyPad, b.hasDataCopyPad);
  EXPECT_EQ(a.hasBf16, b.hasBf16);
  EXPECT_EQ(a.hasHardSyncAll, b.hasHardSyncAll);
  EXPECT_EQ(a.hasBrcb, b.hasBrcb);
  EXPECT_EQ(a.hasMulAdd, b.hasMulAdd);
  EXPECT_EQ(a.countFormCounterMode, b.countFormCounterMode);
  EXPECT_EQ(a.rejectsZeroMask, b.rejectsZeroMask);
  EXPECT_EQ(a.l2Bytes, b.l2Bytes);
}

TEST(SocProfiles, EachFamilyIsItsDefaultChipUnderTheFamilyName) {
  int families = 0;
  for (const sim::SocProfile* p : Profiles()) {
    if (!IsFamily(*p)) continue;
    ++families;
    const sim::SocProfile* chip = sim::FindSoc(p->socVersion);
    ASSERT_NE(chip, nullptr) << p->name << " defaults to " << p->socVersion << ", which is no profile";
    ExpectSameFigures(*p, *chip);
  }
  EXPECT_EQ(families, 5);
  // The chips whose figures the families had before there were chips (the bench CSVs are theirs).
  EXPECT_STREQ(sim::FindSoc("ascend910b")->socVersion, "Ascend910B1");
  EXPECT_STREQ(sim::FindSoc("ascend910_93")->socVersion, "Ascend910_9391");
  EXPECT_STREQ(sim::FindSoc("ascend910")->socVersion, "Ascend910A");
  EXPECT_STREQ(sim::FindSoc("ascend310p")->socVersion, "Ascend310P3");
  EXPECT_STREQ(sim::FindSoc("ascend950")->socVersion, "Ascend950PR_9599");  // 72 cores, the first the pages name
}

TEST(SocProfiles, EveryChipBelongsToAFamilyAndSharesItsArchitecture) {
  std::set<std::string> names;
  for (const sim::SocProfile* p : Profiles()) {
    EXPECT_TRUE(names.insert(p->name).second) << p->name << " is listed twice";
    const sim::SocProfile* family = sim::FindSoc(p->family);
    ASSERT_NE(family, nullptr) << p->name;
    ASSERT_TRUE(IsFamily(*family));
    if (IsFamily(*p)) continue;
    SCOPED_TRACE(p->name);
    EXPECT_STREQ(p->name, p->socVersion);  // a chip is named by its SoC_version
    EXPECT_STREQ(p->shortSocVersion, family->shortSocVersion);
    EXPECT_EQ(p->hasDataCopyPad, family->hasDataCopyPad);
    EXPECT_EQ(p->hasBf16, family->hasBf16);
    EXPECT_EQ(p->hasHardSyncAll, family->hasHardSyncAll);
    EXPECT_EQ(p->eventIdsPerEvent, family->eventIdsPerEvent);
    EXPECT_EQ(p->ubBytes, family->ubBytes);  // UB is an architecture fact: the same on every chip
  }
}

// A few rows checked against the platform files by value (docs/soc-profiles.md lists them all).
TEST(SocProfiles, ChipsCarryTheirPlatformFileFigures) {
  const sim::SocProfile* b3 = sim::FindSoc("Ascend910B3");
  ASSERT_NE(b3, nullptr);
  EXPECT_EQ(b3->aivCores, 40);
  EXPECT_EQ(b3->clockGHz, 1.8);
  EXPECT_EQ(b3->l2Bytes, 201326592u);
  const sim::SocProfile* b4 = sim::FindSoc("Ascend910B4");
  ASSERT_NE(b4, nullptr);
  EXPECT_EQ(b4->aivCores, 40);
  EXPECT_EQ(b4->clockGHz, 1.5);
  EXPECT_EQ(b4->l2Bytes, 100663296u);  // 96 MiB
  const sim::SocProfile* proB = sim::FindSoc("Ascend910ProB");
  ASSERT_NE(proB, nullptr);
  EXPECT_EQ(proB->aivCores, 30);
  EXPECT_EQ(proB->clockGHz, 1.15);
  EXPECT_FALSE(proB->hasDataCopyPad);
  // Ascend310P3.ini: ai_core_cnt=8 (the cores an AI-core kernel gets), cube_freq=1060, ub_size=262144,
  // l2_size=16777216, [AICoreMemoryRates] ddr_rate=17; Ascend310P1.ini: ai_core_cnt=10.
  const sim::SocProfile* p3 = sim::FindSoc("Ascend310P3");
  ASSERT_NE(p3, nullptr);
  EXPECT_EQ(p3->aivCores, 8);
  EXPECT_EQ(p3->clockGHz, 1.06);
  EXPECT_EQ(p3->ubBytes, 262144u);
  EXPECT_EQ(p3->l2Bytes, 16777216u);
  EXPECT_EQ(p3->coreDmaBytesPerCycle, 17.0);
  EXPECT_EQ(p3->eventIdsPerEvent, 8);  // QUE_MAX_EVENT on arch 2002
  EXPECT_FALSE(p3->hasDataCopyPad || p3->hasBf16 || p3->hasHardSyncAll);
  ASSERT_NE(sim::FindSoc("Ascend310P1"), nullptr);
  EXPECT_EQ(sim::FindSoc("Ascend310P1")->aivCores, 10);
  // Ascend 950: the vector cores' sections of the file ([VectorCoreSpec], [VectorCoreMemoryRates]).
  const sim::SocProfile* pr = sim::FindSoc("Ascend950PR_9599");
  ASSERT_NE(pr, nullptr);
  EXPECT_EQ(pr->aivCores, 72);
  EXPECT_EQ(pr->ubBytes, 253952u);  // 248 KiB
  EXPECT_EQ(pr->clockGHz, 1.8);
  EXPECT_EQ(pr->coreDmaBytesPerCycle, 16);  // vector ddr_rate, half the AI core's 31
  EXPECT_EQ(pr->l2Bytes, 134217728u);
  EXPECT_EQ(pr->hbmPeakTBs, 1.6);  // press figure, ESTIMATE
  const sim::SocProfile* dt = sim::FindSoc("Ascend950DT_9581");
  ASSERT_NE(dt, nullptr);
  EXPECT_EQ(dt->aivCores, 64);
  EXPECT_EQ(dt->clockGHz, 1.65);
  EXPECT_EQ(dt->coreDmaBytesPerCycle, 40);
  EXPECT_EQ(dt->hbmPeakTBs, 4.0);  // press figure, ESTIMATE: a 950DT chip's own, not the family's
  EXPECT_LT(dt->hbmSustainedTBs, dt->hbmPeakTBs);
}

// CANN's "Ascend910B" (Ascend910B.ini) is a training-series chip; "ascend910b" is the A2 family.
TEST(SocProfiles, NamesAreCaseSensitiveBecauseCannsAre) {
  ASSERT_NE(sim::FindSoc("Ascend910B"), nullptr);
  EXPECT_STREQ(sim::FindSoc("Ascend910B")->family, "ascend910");
  EXPECT_STREQ(sim::FindSoc("ascend910b")->family, "ascend910b");
  EXPECT_EQ(sim::FindSoc("ASCEND910B1"), nullptr);
  EXPECT_EQ(sim::FindSoc("ascend910b1"), nullptr);
}

TEST(SocProfiles, PlatformReportsTheFamilysSocVersionForEveryChip) {
  std::map<std::string, SocVersion> want = {{"ascend910b", SocVersion::ASCEND910B},
                                            {"ascend910_93", SocVersion::ASCEND910B},  // as CANN maps it
                                            {"ascend910", SocVersion::ASCEND910},
                                            {"ascend310p", SocVersion::ASCEND310P},
                                            {"ascend950", SocVersion::ASCEND950}};
  for (const sim::SocProfile* p : Profiles()) {
    fe::PlatFormInfos info(p);
    PlatformAscendC platform(&info);
    ASSERT_EQ(want.count(p->family), 1u) << p->family;
    EXPECT_EQ(platform.GetSocVersion(), want[p->family]) << p->name;
    EXPECT_EQ(platform.GetCoreNumAiv(), static_cast<uint32_t>(p->aivCores)) << p->name;
    // ai_core_cnt of the platform file: half the vector cores where they are split from the cube
    // (on the training and inference series CANN answers ai_core_cnt to both calls).
    EXPECT_EQ(platform.GetCoreNumAic(), static_cast<uint32_t>(p->hasHardSyncAll ? p->aivCores / 2 : p->aivCores));
    uint64_t ub = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    EXPECT_EQ(ub, p->ubBytes);
  }
}

class CoreCap : public ::testing::Test {
 protected:
  void TearDown() override {
    std::string error;
    sim::SetCostOverrides("", &error);
  }
};

TEST_F(CoreCap, CapsWhatTheTilingSeesAndWhatALaunchMayUse) {
  std::string error;
  ASSERT_TRUE(sim::SetCostOverrides("aiv_cores=7", &error)) << error;
  fe::PlatFormInfos info(sim::FindSoc("ascend910b"));
  EXPECT_EQ(PlatformAscendC(&info).GetCoreNumAiv(), 7u);
  EXPECT_EQ(sim::EffectiveSoc(*sim::FindSoc("Ascend910B3")).aivCores, 7);
  EXPECT_TRUE(rt_test::RunOn("ascend910b", 7, [] {}).ok);
  sim::LaunchReport eight = rt_test::RunOn("ascend910b", 8, [] {});
  EXPECT_FALSE(eight.ok);
  EXPECT_NE(eight.error.find("outside [1, 7]"), std::string::npos) << eight.error;
  // A cap, not a replacement: a chip with fewer cores keeps its own.
  ASSERT_TRUE(sim::SetCostOverrides("aiv_cores=100", &error)) << error;
  EXPECT_EQ(sim::EffectiveSoc(*sim::FindSoc("ascend910")).aivCores, 32);
  ASSERT_TRUE(sim::SetCostOverrides("", &error));
  EXPECT_EQ(PlatformAscendC(&info).GetCoreNumAiv(), 48u);
}

TEST_F(CoreCap, RejectsAnythingButAWholePositiveCount) {
  std::string error;
  for (const char* bad : {"aiv_cores=0", "aiv_cores=2.5", "aiv_cores=-1", "aiv_cores=1e9"}) {
    EXPECT_FALSE(sim::SetCostOverrides(bad, &error)) << bad;
    EXPECT_NE(error.find("aiv_cores"), std::string::npos) << error;
  }
  EXPECT_EQ(sim::EffectiveSoc(*sim::FindSoc("ascend910b")).aivCores, 48);
}

}  // namespace
