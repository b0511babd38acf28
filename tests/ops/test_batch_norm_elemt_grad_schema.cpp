// BatchNormElemtGrad: the graph prototype, the OpDef and aclnnBatchNormElemtBackward agree
// on names, order and dtypes; shape inference accepts what the kernel serves and rejects the rest.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "batch_norm_elemt_grad_proto.h"
#include "register/op_def_registry.h"
#include "schema_test_util.h"

namespace {

constexpr const char* kOp = "BatchNormElemtGrad";
// Graph input -> the aclnn argument that carries it, in the kernel's argument order.
const std::vector<std::pair<std::string, std::string>> kInputToAclnn = {
    {"grad_output", "gradOut"}, {"save_input", "input"}, {"mean", "mean"},           {"invstd", "invstd"},
    {"weight", "weight"},       {"sum_dy", "sumDy"},     {"sum_dy_xmu", "sumDyXmu"}, {"counter", "counter"}};

using schema_test::AclOf;
using schema_test::ZeroTensor;

aclnnStatus CallWorkspaceSize(aclDataType big, aclDataType stat) {
  ZeroTensor dy({2, 3, 4}, big), x({2, 3, 4}, big), dx({2, 3, 4}, big), counter({1}, ACL_INT32);
  ZeroTensor mean({3}, stat), invstd({3}, stat), weight({3}, stat), sumDy({3}, stat), sumDyXmu({3}, stat);
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  aclnnStatus st = aclnnBatchNormElemtBackwardGetWorkspaceSize(dy.tensor, x.tensor, mean.tensor, invstd.tensor,
                                                               weight.tensor, sumDy.tensor, sumDyXmu.tensor,
                                                               counter.tensor, dx.tensor, &ws, &exec);
  if (st == ACL_SUCCESS) aclnnBatchNormElemtBackward(nullptr, ws, exec, nullptr);
  return st;
}

class BatchNormElemtGradSchema : public testing::Test {
 protected:
  static void SetUpTestSuite() { aclInit(nullptr); }
};

TEST_F(BatchNormElemtGradSchema, PrototypeAndOpDefNameTheSameParamsInOrder) {
  const ge::OpSchema* proto = ge::FindRegisteredOp(kOp);
  const sim::host::OpDefInfo* def = sim::host::FindOpDef(kOp);
  ASSERT_NE(proto, nullptr);
  ASSERT_NE(def, nullptr);
  std::vector<std::string> inputs;
  for (const auto& names : kInputToAclnn) inputs.push_back(names.first);
  ASSERT_NO_FATAL_FAILURE(schema_test::ExpectParamNames(*proto, *def, inputs, {"grad_input"}));
  for (const auto& in : def->inputs) {
    EXPECT_EQ(in.paramType, in.name == "weight" ? ops::OPTIONAL : ops::REQUIRED) << in.name;
  }
  EXPECT_TRUE(proto->attrs.empty());
  EXPECT_TRUE(def->attrs.empty());
  EXPECT_TRUE(sim::host::OpDefProblems(*def).empty());
  ASSERT_NO_FATAL_FAILURE(schema_test::ExpectHostFunctions(kOp));
  EXPECT_EQ(def->socs, (std::vector<std::string>{"ascend910b", "ascend910_93", "ascend950"}));
}

TEST_F(BatchNormElemtGradSchema, EveryOpDefCombinationIsInThePrototypeAndAcceptedByAclnn) {
  const ge::OpSchema* proto = ge::FindRegisteredOp(kOp);
  const sim::host::OpDefInfo* def = sim::host::FindOpDef(kOp);
  ASSERT_NE(proto, nullptr);
  ASSERT_NE(def, nullptr);
  const size_t combos = def->inputs[0].dtypes.size();
  ASSERT_EQ(combos, 8u);  // 4 (activation, statistic) pairs x an int32 or float counter
  for (size_t k = 0; k < combos; ++k) {
    for (size_t i = 0; i < def->inputs.size(); ++i) {
      const auto& allowed = proto->inputs[i].dtypes;
      EXPECT_NE(std::find(allowed.begin(), allowed.end(), def->inputs[i].dtypes[k]), allowed.end())
          << def->inputs[i].name << " combination " << k;
    }
    const aclDataType big = AclOf(def->inputs[0].dtypes[k]);
    const aclDataType stat = AclOf(def->inputs[2].dtypes[k]);
    EXPECT_EQ(def->outputs[0].dtypes[k], def->inputs[0].dtypes[k]);
    EXPECT_EQ(CallWorkspaceSize(big, stat), ACL_SUCCESS) << "combination " << k;
  }
}

TEST_F(BatchNormElemtGradSchema, DtypesOutsideThePrototypeAreRejectedByAclnn) {
  const ge::OpSchema* proto = ge::FindRegisteredOp(kOp);
  ASSERT_NE(proto, nullptr);
  const auto& allowed = proto->inputs[0].dtypes;
  EXPECT_EQ(std::find(allowed.begin(), allowed.end(), ge::DT_INT32), allowed.end());
  EXPECT_EQ(CallWorkspaceSize(ACL_INT32, ACL_FLOAT), 161002);
  EXPECT_EQ(CallWorkspaceSize(ACL_FLOAT, ACL_INT32), 161002);
}

TEST_F(BatchNormElemtGradSchema, InferShapeGivesGradOutputShape) {
  schema_test::Shapes out;
  std::string error;
  const std::vector<int64_t> dy = {4, 3, 5, 5}, c = {3};
  const std::vector<int64_t> ranks = {2};
  ASSERT_TRUE(schema_test::InferShape(kOp, {dy, dy, c, c, c, c, c, ranks}, {}, &out, &error)) << error;
  EXPECT_EQ(out, (schema_test::Shapes{dy}));
  ASSERT_TRUE(schema_test::InferShape(kOp, {dy, dy, dy, dy, dy, dy, dy, ranks}, {}, &out, &error)) << error;
  EXPECT_EQ(out, (schema_test::Shapes{dy}));  // pre-broadcast statistics
  EXPECT_FALSE(schema_test::InferShape(kOp, {dy, dy, {4}, c, c, c, c, ranks}, {}, &out, &error));
  EXPECT_NE(error.find("mean has shape [4]"), std::string::npos) << error;
  EXPECT_FALSE(schema_test::InferShape(kOp, {dy, {4, 3, 5}, c, c, c, c, c, ranks}, {}, &out, &error));
  EXPECT_NE(error.find("save_input"), std::string::npos) << error;
  EXPECT_FALSE(schema_test::InferShape(kOp, {dy, dy, c, c, c, c, c, {2, 1}}, {}, &out, &error));
  EXPECT_NE(error.find("counter has shape [2, 1]"), std::string::npos) << error;
  EXPECT_FALSE(schema_test::InferShape(kOp, {{7}, {7}, c, c, c, c, c, ranks}, {}, &out, &error));
  EXPECT_NE(error.find("2 to 8 dimensions"), std::string::npos) << error;
}

}  // namespace
