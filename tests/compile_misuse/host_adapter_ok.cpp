// The positive control: a host adapter written as CANN expects compiles against the simulator.
#include "exe_graph/runtime/tiling_context.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace {
struct Plan {
  uint32_t cores;
  int64_t elems;
};

ge::graphStatus InferSame(gert::InferShapeContext* context) {
  *context->GetOutputShape(0) = *context->GetRequiredInputShape(0);
  return ge::GRAPH_SUCCESS;
}

ge::graphStatus PlanTiling(gert::TilingContext* context) {
  Plan* plan = context->GetTilingData<Plan>();
  platform_ascendc::PlatformAscendC platform(context->GetPlatformInfo());
  plan->cores = platform.GetCoreNumAiv();
  plan->elems = context->GetRequiredInputShape(0)->GetStorageShape().GetShapeSize();
  const int64_t* k = context->GetAttrs()->GetInt(0);
  context->SetBlockDim(plan->cores);
  context->GetWorkspaceSizes(1)[0] = k == nullptr ? 0 : static_cast<size_t>(*k);
  return ge::GRAPH_SUCCESS;
}
}  // namespace

namespace ops {
class MisuseControl : public OpDef {
 public:
  explicit MisuseControl(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Attr("k").AttrType(OPTIONAL).Int(0);
    this->SetInferShape(InferSame);
    this->AICore().SetTiling(PlanTiling).AddConfig("ascend910b");
  }
};
OP_ADD(MisuseControl);
}  // namespace ops
