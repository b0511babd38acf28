// GroupNormGrad: the graph prototype, the OpDef and aclnnGroupNormBackward agree on names, order
// and dtypes; shape inference accepts what the kernel serves and rejects the rest.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "ascendc/soc.h"
#include "group_norm_grad_proto.h"
#include "register/op_def_registry.h"
#include "schema_test_util.h"

namespace {

constexpr const char* kOp = "GroupNormGrad";
const std::vector<std::string> kInputs = {"dy", "mean", "rstd", "x", "gamma"};
const std::vector<std::string> kOutputs = {"dx", "dgamma", "dbeta"};
// (name, type, default as JSON) from the graph op's specification (docs/group_norm_grad.md).
const std::vector<std::vector<std::string>> kAttrs = {{"num_groups", "Int", ""},
                                                      {"data_format", "String", "\"NCHW\""},
                                                      {"dx_is_require", "Bool", "true"},
                                                      {"dgamma_is_require", "Bool", "true"},
                                                      {"dbeta_is_require", "Bool", "true"}};

using schema_test::AclOf;
using schema_test::ZeroTensor;

// The graph op's (dy, mean, rstd, x, gamma) map onto aclnn's (gradOut, input, mean, rstd, gamma)
// and its *_is_require attributes onto outputMask.
aclnnStatus CallWorkspaceSize(aclDataType dyType, aclDataType statType, aclDataType gammaType) {
  ZeroTensor dy({2, 4, 3}, dyType), x({2, 4, 3}, dyType), dx({2, 4, 3}, dyType);
  ZeroTensor mean({2, 2}, statType), rstd({2, 2}, statType), gamma({4}, gammaType), dg({4}, gammaType),
      db({4}, gammaType);
  bool mask[3] = {true, true, true};
  aclBoolArray* maskArr = aclCreateBoolArray(mask, 3);
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  aclnnStatus st = aclnnGroupNormBackwardGetWorkspaceSize(dy.tensor, x.tensor, mean.tensor, rstd.tensor, gamma.tensor,
                                                          2, 4, 3, 2, maskArr, dx.tensor, dg.tensor, db.tensor, &ws,
                                                          &exec);
  void* wsAddr = nullptr;
  if (st == ACL_SUCCESS && ws > 0) aclrtMalloc(&wsAddr, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  if (st == ACL_SUCCESS) st = aclnnGroupNormBackward(wsAddr, ws, exec, nullptr);
  if (wsAddr != nullptr) aclrtFree(wsAddr);
  aclDestroyBoolArray(maskArr);
  return st;
}

class GroupNormGradSchema : public testing::Test {
 protected:
  static void SetUpTestSuite() { aclInit(nullptr); }
};

TEST_F(GroupNormGradSchema, PrototypeAndOpDefNameTheSameParamsAndAttrsInOrder) {
  const ge::OpSchema* proto = ge::FindRegisteredOp(kOp);
  const sim::host::OpDefInfo* def = sim::host::FindOpDef(kOp);
  ASSERT_NE(proto, nullptr);
  ASSERT_NE(def, nullptr);
  ASSERT_NO_FATAL_FAILURE(schema_test::ExpectParamNames(*proto, *def, kInputs, kOutputs));
  ASSERT_EQ(proto->attrs.size(), kAttrs.size());
  ASSERT_EQ(def->attrs.size(), kAttrs.size());
  for (size_t i = 0; i < kAttrs.size(); ++i) {
    EXPECT_EQ(proto->attrs[i].name, kAttrs[i][0]);
    EXPECT_EQ(def->attrs[i].name, kAttrs[i][0]);
    EXPECT_EQ(proto->attrs[i].type, kAttrs[i][1]);
    EXPECT_EQ(def->attrs[i].type, kAttrs[i][1]);
    EXPECT_EQ(proto->attrs[i].defaultJson, kAttrs[i][2]);
    EXPECT_EQ(def->attrs[i].defaultJson, kAttrs[i][2]);
  }
  EXPECT_TRUE(proto->attrs[0].required);
  EXPECT_TRUE(sim::host::OpDefProblems(*def).empty());
  ASSERT_NO_FATAL_FAILURE(schema_test::ExpectHostFunctions(kOp));
  EXPECT_EQ(def->socs, (std::vector<std::string>{"ascend910b", "ascend910_93", "ascend910", "ascend950"}));
}

// The training series has no bfloat16: the OpDef's FLOAT and FLOAT16 combinations run there, BF16
// is rejected by aclnn (docs/group_norm_grad.md: FLOAT16 and FLOAT there).
TEST_F(GroupNormGradSchema, TrainingSeriesRunsFloatAndHalfAndRejectsBf16) {
  const std::string before = sim::CurrentSoc().name;
  ASSERT_TRUE(sim::SetCurrentSoc("ascend910"));
  EXPECT_EQ(CallWorkspaceSize(ACL_FLOAT, ACL_FLOAT, ACL_FLOAT), ACL_SUCCESS);
  EXPECT_EQ(CallWorkspaceSize(ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16), ACL_SUCCESS);
  EXPECT_EQ(CallWorkspaceSize(ACL_BF16, ACL_BF16, ACL_BF16), 161002);
  sim::SetCurrentSoc(before);
}

TEST_F(GroupNormGradSchema, EveryOpDefCombinationIsInThePrototypeAndRunsThroughAclnn) {
  const ge::OpSchema* proto = ge::FindRegisteredOp(kOp);
  const sim::host::OpDefInfo* def = sim::host::FindOpDef(kOp);
  ASSERT_NE(proto, nullptr);
  ASSERT_NE(def, nullptr);
  const size_t combos = def->inputs[0].dtypes.size();
  EXPECT_EQ(combos, 3u);
  for (size_t k = 0; k < combos; ++k) {
    for (size_t i = 0; i < def->inputs.size(); ++i) {
      const auto& allowed = proto->inputs[i].dtypes;
      EXPECT_NE(std::find(allowed.begin(), allowed.end(), def->inputs[i].dtypes[k]), allowed.end());
      EXPECT_EQ(def->inputs[i].dtypes[k], def->inputs[0].dtypes[k]);  // one dtype for everything
    }
    for (size_t o = 0; o < def->outputs.size(); ++o) EXPECT_EQ(def->outputs[o].dtypes[k], def->inputs[0].dtypes[k]);
    aclDataType t = AclOf(def->inputs[0].dtypes[k]);
    EXPECT_EQ(CallWorkspaceSize(t, t, t), ACL_SUCCESS) << "combination " << k;
  }
}

TEST_F(GroupNormGradSchema, CombinationsOutsideTheOpDefAreRejectedByAclnn) {
  EXPECT_EQ(CallWorkspaceSize(ACL_INT32, ACL_INT32, ACL_INT32), 161002);
  EXPECT_EQ(CallWorkspaceSize(ACL_FLOAT16, ACL_FLOAT, ACL_FLOAT16), 161002);  // stats must match dy
  EXPECT_EQ(CallWorkspaceSize(ACL_FLOAT, ACL_FLOAT, ACL_BF16), 161002);      // gamma must match dy
}

TEST_F(GroupNormGradSchema, InferShape) {
  schema_test::Shapes out;
  std::string error;
  const std::vector<int64_t> dy = {2, 8, 5, 5}, stat = {2, 4}, gamma = {8};
  sim::host::NamedAttrs attrs = {{"num_groups", int64_t{4}}};
  ASSERT_TRUE(schema_test::InferShape(kOp, {dy, stat, stat, dy, gamma}, attrs, &out, &error)) << error;
  EXPECT_EQ(out, (schema_test::Shapes{dy, gamma, gamma}));
  EXPECT_FALSE(schema_test::InferShape(kOp, {dy, stat, stat, {2, 8, 25}, gamma}, attrs, &out, &error));
  EXPECT_NE(error.find("x has shape [2, 8, 25], expected dy's [2, 8, 5, 5]"), std::string::npos) << error;
  EXPECT_FALSE(schema_test::InferShape(kOp, {dy, {2, 3}, stat, dy, gamma}, attrs, &out, &error));
  EXPECT_NE(error.find("mean has shape [2, 3], expected N * num_groups = 8"), std::string::npos) << error;
  EXPECT_FALSE(schema_test::InferShape(kOp, {dy, stat, stat, dy, {7}}, attrs, &out, &error));
  EXPECT_NE(error.find("gamma has shape [7], expected [C] = [8]"), std::string::npos) << error;
  EXPECT_FALSE(schema_test::InferShape(kOp, {dy, stat, stat, dy, gamma}, {{"num_groups", int64_t{3}}}, &out, &error));
  EXPECT_NE(error.find("num_groups is 3"), std::string::npos) << error;
  EXPECT_FALSE(schema_test::InferShape(kOp, {{8}, stat, stat, {8}, gamma}, attrs, &out, &error));
  EXPECT_NE(error.find("expected 2 to 8 dims"), std::string::npos) << error;
}

}  // namespace
