// Operator definition of LayerNormGradV3 (the graph op of op_graph/layer_norm_grad_proto.h and the
// kernel op_kernel/layer_norm_grad_v3.cpp): the dtype combinations one launch serves, gamma
// optional (absent means ones), the host functions, and the SoCs: Atlas A2 and A3, Ascend 950, the Atlas
// training series (ascend910) and the Atlas inference series (ascend310p, dav-m200): on those two
// FLOAT and FLOAT16 only, block-copy mode, an AI-core kernel; aclnn rejects BF16 there.
#include "layer_norm_grad_host.h"
#include "served_socs.h"
#include "register/op_def_registry.h"

namespace ops {

class LayerNormGradV3 : public OpDef {
 public:
  explicit LayerNormGradV3(const char* name) : OpDef(name) {
    // Combination k: (dy = x = pd_x, rstd = mean, gamma = pd_gamma = pd_beta). Statistics at least
    // as wide as dy; gamma in dy's dtype or fp32; dgamma/dbeta come out in gamma's dtype directly.
    const std::vector<ge::DataType> data = {ge::DT_FLOAT,   ge::DT_FLOAT16, ge::DT_FLOAT16, ge::DT_FLOAT16,
                                            ge::DT_FLOAT16, ge::DT_BF16,    ge::DT_BF16,    ge::DT_BF16,
                                            ge::DT_BF16};
    const std::vector<ge::DataType> stats = {ge::DT_FLOAT, ge::DT_FLOAT,   ge::DT_FLOAT, ge::DT_FLOAT16,
                                             ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_FLOAT, ge::DT_BF16,
                                             ge::DT_BF16};
    const std::vector<ge::DataType> param = {ge::DT_FLOAT, ge::DT_FLOAT,   ge::DT_FLOAT16, ge::DT_FLOAT16,
                                             ge::DT_FLOAT, ge::DT_FLOAT,   ge::DT_BF16,    ge::DT_BF16,
                                             ge::DT_FLOAT};
    const std::vector<ge::Format> nd(data.size(), ge::FORMAT_ND);
    Input("dy").ParamType(REQUIRED).DataType(data).Format(nd);
    Input("x").ParamType(REQUIRED).DataType(data).Format(nd);
    Input("rstd").ParamType(REQUIRED).DataType(stats).Format(nd);
    Input("mean").ParamType(REQUIRED).DataType(stats).Format(nd);
    Input("gamma").ParamType(OPTIONAL).DataType(param).Format(nd);
    Output("pd_x").ParamType(REQUIRED).DataType(data).Format(nd);
    Output("pd_gamma").ParamType(REQUIRED).DataType(param).Format(nd);
    Output("pd_beta").ParamType(REQUIRED).DataType(param).Format(nd);
    Attr("output_mask").AttrType(OPTIONAL).ListBool({true, true, true});
    SetInferShape(ge::InferShapeLayerNormGradV3).SetInferDataType(ge::InferDataTypeLayerNormGradV3);
    AICore().SetTiling(optiling::TilingLayerNormGradV3);
    // served_socs.h; on ascend950 the A2 kernel runs on the 950's membase-on-regbase API.
    for (const char* soc : kLayerNormGradV3Socs) AICore().AddConfig(soc);
  }
};

OP_ADD(LayerNormGradV3);

}  // namespace ops
