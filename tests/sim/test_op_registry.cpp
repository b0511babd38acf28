// The schema recorders: a REG_OP prototype and an OpDef written here are queried back field by
// field, their JSON parses to the same facts, and inconsistent definitions are reported.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "graph/operator_reg.h"
#include "normgrad_sim.h"
#include "register/op_def_registry.h"

namespace ge {
REG_OP(TestNormGrad)
    .INPUT(dy, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .INPUT(x, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .OPTIONAL_INPUT(gamma, TensorType({DT_FLOAT}))
    .DYNAMIC_INPUT(extras, TensorType(DT_INT64))
    .OUTPUT(dx, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
    .REQUIRED_ATTR(num_groups, Int)
    .ATTR(data_format, String, "NCHW")
    .ATTR(eps, Float, 0.5)
    .ATTR(dx_is_require, Bool, true)
    .ATTR(axes, ListInt, {-1, 2})
    .ATTR(output_mask, ListBool, {true, false, true})
    .OP_END_FACTORY_REG(TestNormGrad)

REG_OP(TestConflict).INPUT(a, TensorType({DT_FLOAT})).OP_END_FACTORY_REG(TestConflict)
}  // namespace ge

namespace {

ops::Shapes SameAsX(const ops::Shapes& inputs, const ops::Attrs& attrs) {
  if (inputs.size() < 2) throw std::invalid_argument("expected dy and x");
  if (std::get<int64_t>(attrs.at("num_groups")) <= 0) throw std::invalid_argument("num_groups must be > 0");
  return {inputs[1]};
}

int FakeTiling(void*) { return 0; }

}  // namespace

namespace ops {
class TestNormGradDef : public OpDef {
 public:
  explicit TestNormGradDef(const char* name) : OpDef(name) {
    this->Input("dy").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->Input("gamma").ParamType(OPTIONAL).DataType({ge::DT_FLOAT, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->Output("dx").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->Attr("num_groups").AttrType(REQUIRED).Int();
    this->Attr("eps").AttrType(OPTIONAL).Float(0.25f);
    this->Attr("mask").AttrType(OPTIONAL).ListBool({true, false});
    this->SetInferShape(SameAsX);
    this->AICore().SetTiling(FakeTiling);
    this->AICore().AddConfig("ascend910b");
    this->AICore().AddConfig("ascend910_93");
  }
};
OP_ADD(TestNormGradDef);

class TestBrokenDef : public OpDef {
 public:
  explicit TestBrokenDef(const char* name) : OpDef(name) {
    this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
    this->Output("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT});
    this->Attr("k").AttrType(OPTIONAL).Int();
  }
};
OP_ADD(TestBrokenDef);
}  // namespace ops

namespace {

TEST(OpRegistry, RegOpRecordsInputsOutputsAttrsInOrder) {
  const ge::OpSchema* s = ge::FindRegisteredOp("TestNormGrad");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->inputs.size(), 4u);
  EXPECT_EQ(s->inputs[0].name, "dy");
  EXPECT_EQ(s->inputs[0].kind, ge::ParamKind::kRequired);
  EXPECT_EQ(s->inputs[0].dtypes, (std::vector<ge::DataType>{ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16}));
  EXPECT_EQ(s->inputs[2].name, "gamma");
  EXPECT_EQ(s->inputs[2].kind, ge::ParamKind::kOptional);
  EXPECT_EQ(s->inputs[3].kind, ge::ParamKind::kDynamic);
  EXPECT_EQ(s->inputs[3].dtypes, std::vector<ge::DataType>{ge::DT_INT64});
  ASSERT_EQ(s->outputs.size(), 1u);
  EXPECT_EQ(s->outputs[0].name, "dx");
  ASSERT_EQ(s->attrs.size(), 6u);
  EXPECT_EQ(s->attrs[0].name, "num_groups");
  EXPECT_TRUE(s->attrs[0].required);
  EXPECT_EQ(s->attrs[0].type, "Int");
  EXPECT_EQ(s->attrs[1].defaultJson, "\"NCHW\"");
  EXPECT_EQ(s->attrs[2].defaultJson, "0.5");
  EXPECT_EQ(s->attrs[3].type, "Bool");
  EXPECT_EQ(s->attrs[3].defaultJson, "true");
  EXPECT_EQ(s->attrs[4].defaultJson, "[-1, 2]");
  EXPECT_EQ(s->attrs[5].type, "ListBool");
  EXPECT_EQ(s->attrs[5].defaultJson, "[true, false, true]");
}

TEST(OpRegistry, RegOpIdenticalRepeatIsOneEntryConflictIsReported) {
  // What REG_OP expands to, as when two files include the same prototype header.
  ge::OpSchemaBuilder("TestNormGrad")
      .Input("dy", ge::ParamKind::kRequired, ge::TensorType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16}))
      .Input("x", ge::ParamKind::kRequired, ge::TensorType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16}))
      .Input("gamma", ge::ParamKind::kOptional, ge::TensorType({ge::DT_FLOAT}))
      .Input("extras", ge::ParamKind::kDynamic, ge::TensorType(ge::DT_INT64))
      .Output("dx", ge::ParamKind::kRequired, ge::TensorType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16}))
      .RequiredAttr("num_groups", "Int")
      .Attr("data_format", "String", ge::attr::String("NCHW"))
      .Attr("eps", "Float", ge::attr::Float(0.5))
      .Attr("dx_is_require", "Bool", ge::attr::Bool(true))
      .Attr("axes", "ListInt", ge::attr::ListInt({-1, 2}))
      .Attr("output_mask", "ListBool", ge::attr::ListBool({true, false, true}))
      .End("TestNormGrad");
  ge::OpSchemaBuilder("TestConflict").Input("a", ge::ParamKind::kRequired, ge::TensorType({ge::DT_FLOAT16})).End("TestConflict");
  int count = 0;
  for (const ge::OpSchema& s : ge::RegisteredOps()) count += s.name == "TestNormGrad";
  EXPECT_EQ(count, 1);
  bool reported = false;
  for (const std::string& p : ge::RegisteredOpProblems()) {
    reported |= p == "REG_OP(TestConflict) is registered twice with different content";
  }
  EXPECT_TRUE(reported);
  EXPECT_EQ(ge::FindRegisteredOp("NoSuchOp"), nullptr);
}

TEST(OpRegistry, GraphOpsJsonCarriesTheSchema) {
  std::string json = normgradGraphOpsJson();
  EXPECT_NE(json.find("{\"name\": \"TestNormGrad\", \"inputs\": [{\"name\": \"dy\", \"kind\": \"required\", "
                      "\"dtypes\": [\"DT_FLOAT\", \"DT_FLOAT16\", \"DT_BF16\"]}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"name\": \"num_groups\", \"type\": \"Int\", \"required\": true, \"default\": null}"),
            std::string::npos);
  EXPECT_NE(json.find("{\"name\": \"data_format\", \"type\": \"String\", \"required\": false, \"default\": \"NCHW\"}"),
            std::string::npos);
}

TEST(OpRegistry, OpDefRecordsParamsAttrsAndConfigs) {
  const ops::OpDefInfo* d = ops::FindOpDef("TestNormGradDef");
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->inputs.size(), 2u);
  EXPECT_EQ(d->inputs[1].name, "gamma");
  EXPECT_EQ(d->inputs[1].paramType, ops::OPTIONAL);
  EXPECT_EQ(d->inputs[0].dtypes, (std::vector<ge::DataType>{ge::DT_FLOAT, ge::DT_FLOAT16}));
  EXPECT_EQ(d->outputs[0].formats, (std::vector<ge::Format>{ge::FORMAT_ND, ge::FORMAT_ND}));
  ASSERT_EQ(d->attrs.size(), 3u);
  EXPECT_EQ(d->attrs[0].attrType, ops::REQUIRED);
  EXPECT_EQ(d->attrs[0].type, "Int");
  EXPECT_FALSE(d->attrs[0].hasDefault);
  EXPECT_EQ(d->attrs[1].defaultJson, "0.25");
  EXPECT_EQ(d->attrs[2].defaultJson, "[true, false]");
  EXPECT_TRUE(d->hasInferShape);
  EXPECT_TRUE(d->hasTiling);
  EXPECT_EQ(d->socs, (std::vector<std::string>{"ascend910b", "ascend910_93"}));
  EXPECT_TRUE(ops::OpDefProblems(*d).empty());
}

TEST(OpRegistry, OpDefProblemsNameTheInconsistency) {
  const ops::OpDefInfo* d = ops::FindOpDef("TestBrokenDef");
  ASSERT_NE(d, nullptr);
  std::vector<std::string> p = ops::OpDefProblems(*d);
  std::vector<std::string> want = {
      "TestBrokenDef: input a lists 1 formats for 2 data types",
      "TestBrokenDef: output b lists 1 data types, but a lists 2",
      "TestBrokenDef: output b lists 0 formats for 1 data types",
      "TestBrokenDef: optional attr k has no default",
      "TestBrokenDef: no AICore().AddConfig(<soc>)",
  };
  EXPECT_EQ(p, want);
}

TEST(OpRegistry, InferShapeRunsTheRegisteredFunction) {
  ops::Shapes out;
  std::string error;
  ops::Attrs attrs = {{"num_groups", int64_t{4}}};
  ASSERT_TRUE(ops::InferShape("TestNormGradDef", {{2, 8}, {2, 8, 3}}, attrs, &out, &error)) << error;
  EXPECT_EQ(out, (ops::Shapes{{2, 8, 3}}));
  attrs["num_groups"] = int64_t{0};
  EXPECT_FALSE(ops::InferShape("TestNormGradDef", {{2, 8}, {2, 8, 3}}, attrs, &out, &error));
  EXPECT_EQ(error, "TestNormGradDef InferShape: num_groups must be > 0");
  EXPECT_FALSE(ops::InferShape("Unknown", {}, {}, &out, &error));
  ops::RegisterInferShape("ByName", SameAsX);
  EXPECT_TRUE(ops::InferShape("ByName", {{1}, {5}}, {{"num_groups", int64_t{1}}}, &out, &error)) << error;
  EXPECT_EQ(out, (ops::Shapes{{5}}));
}

TEST(OpRegistry, OpDefsJsonCarriesTheDefinition) {
  std::string json = normgradOpDefsJson();
  EXPECT_NE(json.find("{\"name\": \"TestNormGradDef\", \"inputs\": [{\"name\": \"dy\", \"paramType\": \"required\", "
                      "\"dtypes\": [\"DT_FLOAT\", \"DT_FLOAT16\"], \"formats\": [\"FORMAT_ND\", \"FORMAT_ND\"]}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"hasInferShape\": true, \"hasTiling\": true, \"socs\": [\"ascend910b\", \"ascend910_93\"], "
                      "\"problems\": []"),
            std::string::npos);
}

}  // namespace
