// An aclnn executor runs once, as in CANN: running it again (or running a pointer that never was
// an executor, or an executor of another API) is an error status with a message, not a crash.
// Also: a thread's own SoC (normgradSimSetThreadSoc) wins over the process-wide one and leaves
// other threads alone.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "ascendc/soc.h"
#include "normgrad_sim.h"
#include "group_norm_call.h"

namespace {

using schema_test::GroupNormCall;

class AclnnExecutorOnce : public testing::Test {
 protected:
  static void SetUpTestSuite() { aclInit(nullptr); }
};

TEST_F(AclnnExecutorOnce, SecondRunOfAnExecutorIsAnErrorNotACrash) {
  GroupNormCall call;
  aclOpExecutor* exec = call.Prepare();
  ASSERT_NE(exec, nullptr);
  ASSERT_EQ(aclnnGroupNormBackward(call.ws, call.wsBytes, exec, nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclnnGroupNormBackward(call.ws, call.wsBytes, exec, nullptr), 161002);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("an executor runs once"), std::string::npos)
      << aclGetRecentErrMsg();
}

// Found by the fuzzer: a run refused for its workspace frees the executor, so a retry with the
// right workspace read freed memory. The retry is now an error; GetWorkspaceSize makes a new one.
TEST_F(AclnnExecutorOnce, ARetryAfterAWorkspaceRefusalIsAnErrorNotAUseAfterFree) {
  GroupNormCall call;
  aclOpExecutor* exec = call.Prepare();
  ASSERT_GT(call.wsBytes, 0u);
  EXPECT_EQ(aclnnGroupNormBackward(call.ws, call.wsBytes - 1, exec, nullptr), 161002);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("but GetWorkspaceSize asked for"), std::string::npos);
  EXPECT_EQ(aclnnGroupNormBackward(call.ws, call.wsBytes, exec, nullptr), 161002);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("not a live executor"), std::string::npos);
  aclOpExecutor* fresh = call.Prepare();
  EXPECT_EQ(aclnnGroupNormBackward(call.ws, call.wsBytes, fresh, nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
}

TEST_F(AclnnExecutorOnce, APointerThatIsNoExecutorIsRefused) {
  int notAnExecutor = 0;
  EXPECT_EQ(aclnnGroupNormBackward(nullptr, 0, reinterpret_cast<aclOpExecutor*>(&notAnExecutor), nullptr), 161002);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("not a live executor"), std::string::npos);
}

TEST_F(AclnnExecutorOnce, AnExecutorOfAnotherApiIsRefusedAndStaysRunnable) {
  GroupNormCall call;
  aclOpExecutor* exec = call.Prepare();
  EXPECT_EQ(aclnnLayerNormBackward(call.ws, call.wsBytes, exec, nullptr), 161002);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("made by aclnnGroupNormBackwardGetWorkspaceSize"),
            std::string::npos)
      << aclGetRecentErrMsg();
  EXPECT_EQ(aclnnGroupNormBackward(call.ws, call.wsBytes, exec, nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
}

TEST_F(AclnnExecutorOnce, ThreadSocWinsOverTheProcessSocOnThatThreadOnly) {
  const std::string process = sim::CurrentSoc().name;
  std::string seen;
  std::thread other([&] {
    ASSERT_EQ(normgradSimSetThreadSoc("ascend910"), 0);
    seen = sim::CurrentSoc().name;
    EXPECT_EQ(normgradSimSetThreadSoc("ascend999"), 1);  // unknown: refused, choice unchanged
    EXPECT_STREQ(sim::CurrentSoc().name, "ascend910");
    ASSERT_EQ(normgradSimSetThreadSoc(nullptr), 0);
    EXPECT_EQ(std::string(sim::CurrentSoc().name), process);
  });
  other.join();
  EXPECT_EQ(seen, "ascend910");
  EXPECT_EQ(std::string(sim::CurrentSoc().name), process);  // this thread never saw ascend910
}

}  // namespace
