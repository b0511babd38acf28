// The simulator self-check passes on every SoC profile (each with the APIs it has: DataCopyPad
// and hard SyncAll on A2/A3, aligned DataCopy and the soft SyncAll on Atlas training), and the
// C API reports SoCs and the run log of that launch.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "ascendc/soc.h"
#include "normgrad_sim.h"

namespace {

class SelfCheckOnSoc : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override { previous_ = normgradSimGetSoc(); }
  void TearDown() override { normgradSimSetSoc(previous_.c_str()); }
  std::string previous_;
};

TEST_P(SelfCheckOnSoc, Passes) {
  ASSERT_EQ(normgradSimSetSoc(GetParam()), 0);
  char msg[512];
  int status = normgradSimSelfCheck(msg, sizeof(msg));
  EXPECT_EQ(status, 0) << msg;
  EXPECT_NE(std::string(msg).find(std::string("self-check passed on ") + GetParam()), std::string::npos) << msg;
  // The run log now holds the self-check launch, on this SoC, with its modeled time.
  std::string run = normgradSimLastRunJson();
  EXPECT_NE(run.find("\"kernel\": \"normgrad_self_check\""), std::string::npos) << run;
  EXPECT_NE(run.find(std::string("\"soc\": \"") + GetParam() + "\""), std::string::npos);
  EXPECT_NE(run.find("\"ok\": true"), std::string::npos);
  EXPECT_NE(run.find("\"blockDim\": 4"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(AllSocs, SelfCheckOnSoc,
                         ::testing::Values("ascend910b", "ascend910_93", "ascend910", "ascend310p", "ascend950"));

TEST(SimCApi, SocSelection) {
  std::string previous = normgradSimGetSoc();
  EXPECT_EQ(normgradSimSetSoc("ascend910"), 0);
  EXPECT_STREQ(normgradSimGetSoc(), "ascend910");
  EXPECT_EQ(normgradSimSetSoc("no_such_soc"), 1);
  EXPECT_STREQ(normgradSimGetSoc(), "ascend910");  // unchanged
  EXPECT_EQ(normgradSimSetSoc(nullptr), 1);
  EXPECT_EQ(normgradSimSetSoc(previous.c_str()), 0);
}

TEST(SimCApi, SocsJsonListsEveryProfileWithItsFields) {
  std::string json = normgradSimSocsJson();
  int count = 0;
  const sim::SocProfile* socs = sim::AllSocs(&count);
  for (int i = 0; i < count; ++i) {
    EXPECT_NE(json.find(std::string("{\"name\": \"") + socs[i].name + "\", \"aivCores\": " +
                        std::to_string(socs[i].aivCores)),
              std::string::npos)
        << json;
  }
  for (const char* field : {"ubBytes", "clockGHz", "hbmSustainedTBs", "hbmPeakTBs", "coreDmaBytesPerCycle",
                            "dmaIssueCycles", "vecIssueCycles", "launchUs", "syncAllUs", "eventIdsPerEvent",
                            "hasDataCopyPad", "hasBf16", "hasHardSyncAll", "hasBrcb", "hasMulAdd",
                            "countFormCounterMode", "rejectsZeroMask"}) {
    EXPECT_NE(json.find(std::string("\"") + field + "\": "), std::string::npos) << field;
  }
  EXPECT_NE(json.find("\"clockGHz\": 1.85"), std::string::npos);
}

TEST(SimCApi, SelfCheckTruncatesTheMessageToTheBuffer) {
  char msg[8];
  std::memset(msg, 'x', sizeof(msg));
  normgradSimSelfCheck(msg, sizeof(msg));
  EXPECT_EQ(msg[7], '\0');
  EXPECT_EQ(std::string(msg).size(), 7u);
  EXPECT_EQ(normgradSimSelfCheck(nullptr, 0), 0);
}

}  // namespace
