// The schema recorders: a REG_OP prototype and an OpDef written here are queried back field by
// field, their JSON parses to the same facts, and inconsistent definitions are reported.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "graph/operator_reg.h"
#include "normgrad_sim.h"
#include "register/op_def_registry.h"
#include "register/op_impl_registry.h"
#include "simhost/op_records.h"
#include "simhost/op_runner.h"
#include "tiling/platform/platform_ascendc.h"

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

// Output 0 takes gamma's shape when given, else dy's; num_groups must be > 0.
ge::graphStatus SameAsGammaOrDy(gert::InferShapeContext* context) {
  const int64_t* groups = context->GetAttrs()->GetInt(0);
  if (groups == nullptr || *groups <= 0) return ge::GRAPH_FAILED;
  const gert::Shape* gamma = context->GetOptionalInputShape(1);
  *context->GetOutputShape(0) = gamma != nullptr ? *gamma : *context->GetRequiredInputShape(0);
  return ge::GRAPH_SUCCESS;
}

ge::graphStatus DyType(gert::InferDataTypeContext* context) {
  return context->SetOutputDataType(0, context->GetRequiredInputDataType(0));
}

struct TestTilingData {
  int64_t elems;
  int64_t groups;
  float eps;
  uint32_t cores;
  uint32_t hasGamma;
  uint32_t mask0;
  uint32_t mask1;
  uint64_t ub;
};

// Reads what a real tiling function reads and writes what it writes.
ge::graphStatus TestTiling(gert::TilingContext* context) {
  TestTilingData* t = context->GetTilingData<TestTilingData>();
  if (t == nullptr) return ge::GRAPH_FAILED;
  platform_ascendc::PlatformAscendC platform(context->GetPlatformInfo());
  t->elems = context->GetRequiredInputShape(0)->GetOriginShape().GetShapeSize();
  t->groups = *context->GetAttrs()->GetInt(0);
  t->eps = *context->GetAttrs()->GetFloat(1);
  const gert::ContinuousVector* mask = context->GetAttrs()->GetAttrPointer<gert::ContinuousVector>(2);
  t->mask0 = static_cast<const bool*>(mask->GetData())[0];
  t->mask1 = static_cast<const bool*>(mask->GetData())[1];
  t->cores = platform.GetCoreNumAiv();
  platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, t->ub);
  t->hasGamma = context->GetOptionalInputDesc(1) != nullptr;
  context->SetBlockDim(t->cores / 2);
  context->SetTilingKey(7);
  context->GetWorkspaceSizes(1)[0] = 4096;
  return t->groups > 0 ? ge::GRAPH_SUCCESS : ge::GRAPH_FAILED;
}

ge::graphStatus ImplOnlyTiling(gert::TilingContext* context) {
  context->SetBlockDim(3);
  return ge::GRAPH_SUCCESS;
}

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
    this->SetInferShape(SameAsGammaOrDy).SetInferDataType(DyType);
    this->AICore().SetTiling(TestTiling);
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

// An OpDef without functions: its tiling comes from IMPL_OP_OPTILING, as ops-nn registers it.
class TestImplOnly : public OpDef {
 public:
  explicit TestImplOnly(const char* name) : OpDef(name) {
    this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Output("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->AICore().AddConfig("ascend910b");
  }
};
OP_ADD(TestImplOnly);
}  // namespace ops

IMPL_OP_OPTILING(TestImplOnly).Tiling(ImplOnlyTiling);

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
  const sim::host::OpDefInfo* d = sim::host::FindOpDef("TestNormGradDef");
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
  ASSERT_NE(sim::host::FindOpImpl("TestNormGradDef"), nullptr);
  EXPECT_EQ(sim::host::FindOpImpl("TestNormGradDef")->inferShape, &SameAsGammaOrDy);
  EXPECT_EQ(sim::host::FindOpImpl("TestNormGradDef")->tiling, &TestTiling);
  EXPECT_EQ(d->socs, (std::vector<std::string>{"ascend910b", "ascend910_93"}));
  EXPECT_TRUE(sim::host::OpDefProblems(*d).empty());
}

TEST(OpRegistry, OpDefProblemsNameTheInconsistency) {
  const sim::host::OpDefInfo* d = sim::host::FindOpDef("TestBrokenDef");
  ASSERT_NE(d, nullptr);
  std::vector<std::string> p = sim::host::OpDefProblems(*d);
  std::vector<std::string> want = {
      "TestBrokenDef: input a lists 1 formats for 2 data types",
      "TestBrokenDef: output b lists 1 data types, but a lists 2",
      "TestBrokenDef: output b lists 0 formats for 1 data types",
      "TestBrokenDef: optional attr k has no default",
      "TestBrokenDef: no AICore().AddConfig(<soc>)",
  };
  EXPECT_EQ(p, want);
}

TEST(OpRegistry, InferShapeRunsTheRegisteredFunctionThroughTheContext) {
  using sim::host::TensorArg;
  std::vector<std::vector<int64_t>> out;
  std::string error;
  sim::host::NamedAttrs attrs = {{"num_groups", int64_t{4}}};
  const TensorArg dy{{2, 8, 3}, ge::DT_FLOAT16};
  ASSERT_TRUE(sim::host::Runner::InferShape("TestNormGradDef", {dy, sim::host::AbsentTensor()}, attrs, &out, &error))
      << error;
  EXPECT_EQ(out, (std::vector<std::vector<int64_t>>{{2, 8, 3}}));
  ASSERT_TRUE(sim::host::Runner::InferShape("TestNormGradDef", {dy, TensorArg{{8}, ge::DT_FLOAT}}, attrs, &out, &error));
  EXPECT_EQ(out, (std::vector<std::vector<int64_t>>{{8}}));
  std::vector<ge::DataType> types;
  ASSERT_TRUE(sim::host::Runner::InferDataType("TestNormGradDef", {dy, sim::host::AbsentTensor()}, attrs, &types,
                                               &error));
  EXPECT_EQ(types, (std::vector<ge::DataType>{ge::DT_FLOAT16}));
  attrs["num_groups"] = int64_t{0};
  EXPECT_FALSE(sim::host::Runner::InferShape("TestNormGradDef", {dy, sim::host::AbsentTensor()}, attrs, &out, &error));
  EXPECT_EQ(error, "TestNormGradDef: the registered InferShape function returned a failure status");
  EXPECT_FALSE(sim::host::Runner::InferShape("Unknown", {}, {}, &out, &error));
  EXPECT_EQ(error, "no OpDef is registered for Unknown");
}

TEST(OpRegistry, CallsThatDoNotFitTheOpDefAreRejectedBeforeAnyFunctionRuns) {
  using sim::host::TensorArg;
  std::vector<std::vector<int64_t>> out;
  std::string error;
  const TensorArg dy{{4}, ge::DT_FLOAT};
  EXPECT_FALSE(sim::host::Runner::InferShape("TestNormGradDef", {dy}, {{"num_groups", int64_t{1}}}, &out, &error));
  EXPECT_EQ(error, "TestNormGradDef: 1 inputs given, the OpDef has 2");
  EXPECT_FALSE(sim::host::Runner::InferShape("TestNormGradDef", {sim::host::AbsentTensor(), dy},
                                             {{"num_groups", int64_t{1}}}, &out, &error));
  EXPECT_EQ(error, "TestNormGradDef: required input dy is absent");
  EXPECT_FALSE(sim::host::Runner::InferShape("TestNormGradDef", {dy, dy}, {}, &out, &error));
  EXPECT_EQ(error, "TestNormGradDef: attribute num_groups (Int) is required");
  EXPECT_FALSE(sim::host::Runner::InferShape("TestNormGradDef", {dy, dy}, {{"num_groups", 1.0f}}, &out, &error));
  EXPECT_EQ(error, "TestNormGradDef: attribute num_groups is Int, given Float");
  EXPECT_FALSE(sim::host::Runner::InferShape("TestNormGradDef", {dy, dy}, {{"groups", int64_t{1}}}, &out, &error));
  EXPECT_EQ(error, "TestNormGradDef has no attribute groups");
}

TEST(OpRegistry, TilingSeesShapesAttrsDefaultsAndThePlatformAndItsOutputsComeBack) {
  using sim::host::TensorArg;
  const sim::SocProfile* soc = sim::FindSoc("ascend910b");
  ASSERT_NE(soc, nullptr);
  sim::host::TilingResult r;
  std::string error;
  const TensorArg dy{{2, 8, 3}, ge::DT_FLOAT};
  ASSERT_TRUE(sim::host::Runner::Tiling("TestNormGradDef", {dy, sim::host::AbsentTensor()}, {dy},
                                        {{"num_groups", int64_t{4}}}, *soc, &r, &error))
      << error;
  ASSERT_EQ(r.tilingData.size(), sizeof(TestTilingData));
  TestTilingData t;
  std::memcpy(&t, r.tilingData.data(), sizeof(t));
  EXPECT_EQ(t.elems, 48);
  EXPECT_EQ(t.groups, 4);
  EXPECT_EQ(t.eps, 0.25f);  // the OpDef's default
  EXPECT_EQ(t.mask0, 1u);
  EXPECT_EQ(t.mask1, 0u);
  EXPECT_EQ(t.cores, static_cast<uint32_t>(soc->aivCores));
  EXPECT_EQ(t.ub, soc->ubBytes);
  EXPECT_EQ(t.hasGamma, 0u);
  EXPECT_EQ(r.blockDim, static_cast<uint32_t>(soc->aivCores / 2));
  EXPECT_EQ(r.tilingKey, 7u);
  EXPECT_EQ(r.workspaces, (std::vector<size_t>{4096}));
  EXPECT_FALSE(sim::host::Runner::Tiling("TestNormGradDef", {dy, dy}, {dy}, {{"num_groups", int64_t{0}}}, *soc, &r,
                                         &error));
  EXPECT_EQ(error, "TestNormGradDef: the registered Tiling function returned a failure status");
  ASSERT_TRUE(sim::host::Runner::Tiling("TestImplOnly", {dy}, {dy}, {}, *soc, &r, &error)) << error;
  EXPECT_EQ(r.blockDim, 3u);
  EXPECT_TRUE(r.tilingData.empty());
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
