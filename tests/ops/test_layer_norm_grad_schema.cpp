// LayerNormGradV3: the graph prototype, the OpDef and aclnnLayerNormBackward agree on names, order
// and dtypes; shape inference accepts what the kernel serves and rejects the rest.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "ascendc/soc.h"
#include "layer_norm_grad_proto.h"
#include "register/op_def_registry.h"
#include "schema_test_util.h"

namespace {

constexpr const char* kOp = "LayerNormGradV3";
const std::vector<std::string> kInputs = {"dy", "x", "rstd", "mean", "gamma"};
const std::vector<std::string> kOutputs = {"pd_x", "pd_gamma", "pd_beta"};

using schema_test::AclOf;
using schema_test::ZeroTensor;

// The graph op's inputs map onto aclnn's (gradOut, input, mean, rstd, weight): note rstd before mean.
aclnnStatus CallWorkspaceSize(aclDataType data, aclDataType stats, aclDataType param) {
  ZeroTensor dy({2, 3, 4}, data), x({2, 3, 4}, data), dx({2, 3, 4}, data);
  ZeroTensor mean({2, 3, 1}, stats), rstd({2, 3, 1}, stats), gamma({4}, param), dg({4}, param), db({4}, param);
  int64_t norm[1] = {4};
  bool mask[3] = {true, true, true};
  aclIntArray* normArr = aclCreateIntArray(norm, 1);
  aclBoolArray* maskArr = aclCreateBoolArray(mask, 3);
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  aclnnStatus st = aclnnLayerNormBackwardGetWorkspaceSize(dy.tensor, x.tensor, normArr, mean.tensor, rstd.tensor,
                                                          gamma.tensor, nullptr, maskArr, dx.tensor, dg.tensor,
                                                          db.tensor, &ws, &exec);
  if (st == ACL_SUCCESS) aclnnLayerNormBackward(nullptr, ws, exec, nullptr);
  aclDestroyIntArray(normArr);
  aclDestroyBoolArray(maskArr);
  return st;
}

class LayerNormGradSchema : public testing::Test {
 protected:
  static void SetUpTestSuite() { aclInit(nullptr); }
};

TEST_F(LayerNormGradSchema, PrototypeAndOpDefNameTheSameParamsInOrder) {
  const ge::OpSchema* proto = ge::FindRegisteredOp(kOp);
  const sim::host::OpDefInfo* def = sim::host::FindOpDef(kOp);
  ASSERT_NE(proto, nullptr);
  ASSERT_NE(def, nullptr);
  ASSERT_NO_FATAL_FAILURE(schema_test::ExpectParamNames(*proto, *def, kInputs, kOutputs));
  ASSERT_EQ(proto->attrs.size(), 1u);
  ASSERT_EQ(def->attrs.size(), 1u);
  EXPECT_EQ(proto->attrs[0].name, "output_mask");
  EXPECT_EQ(def->attrs[0].name, "output_mask");
  EXPECT_EQ(proto->attrs[0].type, "ListBool");
  EXPECT_EQ(def->attrs[0].type, "ListBool");
  EXPECT_EQ(proto->attrs[0].defaultJson, def->attrs[0].defaultJson);
  EXPECT_TRUE(sim::host::OpDefProblems(*def).empty());
  EXPECT_EQ(def->socs, (std::vector<std::string>{"ascend910b", "ascend910_93", "ascend910", "ascend310p", "ascend950"}));
}

// The training and inference series have no bfloat16 (docs/layer_norm_grad.md: FLOAT and FLOAT16
// there, as the page says for both): the OpDef combinations without BF16 run there, the others are
// rejected by aclnn.
TEST_F(LayerNormGradSchema, TrainingAndInferenceSeriesRunFloatAndHalfCombinationsAndRejectBf16) {
  const sim::host::OpDefInfo* def = sim::host::FindOpDef(kOp);
  ASSERT_NE(def, nullptr);
  const std::string before = sim::CurrentSoc().name;
  for (const char* soc : {"ascend910", "ascend310p", "Ascend310P1"}) {
    SCOPED_TRACE(soc);
    ASSERT_TRUE(sim::SetCurrentSoc(soc));
    size_t runs = 0, rejected = 0;
    for (size_t k = 0; k < def->inputs[0].dtypes.size(); ++k) {
      const bool bf16 = def->inputs[0].dtypes[k] == ge::DT_BF16 || def->inputs[3].dtypes[k] == ge::DT_BF16 ||
                        def->inputs[4].dtypes[k] == ge::DT_BF16;
      aclnnStatus st = CallWorkspaceSize(AclOf(def->inputs[0].dtypes[k]), AclOf(def->inputs[3].dtypes[k]),
                                         AclOf(def->inputs[4].dtypes[k]));
      EXPECT_EQ(st, bf16 ? 161002 : ACL_SUCCESS) << "combination " << k;
      (bf16 ? rejected : runs) += 1;
    }
    EXPECT_EQ(runs, 5u);  // fp32; fp16 with fp32 or fp16 stats and fp32 or fp16 gamma
    EXPECT_EQ(rejected, 4u);
  }
  sim::SetCurrentSoc(before);
}

TEST_F(LayerNormGradSchema, EveryOpDefCombinationIsInThePrototypeAndAcceptedByAclnn) {
  const ge::OpSchema* proto = ge::FindRegisteredOp(kOp);
  const sim::host::OpDefInfo* def = sim::host::FindOpDef(kOp);
  ASSERT_NE(proto, nullptr);
  ASSERT_NE(def, nullptr);
  const size_t combos = def->inputs[0].dtypes.size();
  for (size_t k = 0; k < combos; ++k) {
    for (size_t i = 0; i < def->inputs.size(); ++i) {
      const auto& allowed = proto->inputs[i].dtypes;
      EXPECT_NE(std::find(allowed.begin(), allowed.end(), def->inputs[i].dtypes[k]), allowed.end());
    }
    EXPECT_EQ(def->inputs[2].dtypes[k], def->inputs[3].dtypes[k]);   // rstd = mean
    EXPECT_EQ(def->outputs[0].dtypes[k], def->inputs[0].dtypes[k]);  // pd_x = dy
    EXPECT_EQ(def->outputs[1].dtypes[k], def->inputs[4].dtypes[k]);  // pd_gamma = gamma
    EXPECT_EQ(def->outputs[2].dtypes[k], def->inputs[4].dtypes[k]);
    EXPECT_EQ(CallWorkspaceSize(AclOf(def->inputs[0].dtypes[k]), AclOf(def->inputs[3].dtypes[k]),
                                AclOf(def->inputs[4].dtypes[k])),
              ACL_SUCCESS)
        << "combination " << k;
  }
}

TEST_F(LayerNormGradSchema, CombinationsOutsideTheOpDefAreRejectedByAclnn) {
  EXPECT_EQ(CallWorkspaceSize(ACL_INT32, ACL_FLOAT, ACL_FLOAT), 161002);
  EXPECT_EQ(CallWorkspaceSize(ACL_FLOAT, ACL_FLOAT16, ACL_FLOAT), 161002);  // stats narrower than dy
  EXPECT_EQ(CallWorkspaceSize(ACL_FLOAT, ACL_FLOAT, ACL_BF16), 161002);     // gamma neither dy's nor fp32
}

TEST_F(LayerNormGradSchema, InferShape) {
  schema_test::Shapes out;
  std::string error;
  const std::vector<int64_t> dy = {2, 3, 4, 5}, stat = {2, 3, 1, 1}, gamma = {4, 5};
  ASSERT_TRUE(schema_test::InferShape(kOp, {dy, dy, stat, stat, gamma}, {}, &out, &error)) << error;
  EXPECT_EQ(out, (schema_test::Shapes{dy, gamma, gamma}));
  EXPECT_FALSE(schema_test::InferShape(kOp, {dy, dy, stat, stat, {5, 4}}, {}, &out, &error));
  EXPECT_NE(error.find("trailing dims"), std::string::npos) << error;
  EXPECT_FALSE(schema_test::InferShape(kOp, {dy, dy, {2, 4}, stat, gamma}, {}, &out, &error));
  EXPECT_NE(error.find("rstd has shape [2, 4]"), std::string::npos) << error;
  EXPECT_FALSE(schema_test::InferShape(kOp, {dy, {2, 3, 4}, stat, stat, gamma}, {}, &out, &error));
  EXPECT_NE(error.find("x has shape"), std::string::npos) << error;
}

}  // namespace
