// Operator definition of GroupNormGrad (the graph op of op_graph/group_norm_grad_proto.h and the
// kernel op_kernel/group_norm_grad.cpp): five inputs (gamma optional: absent means ones) and three
// outputs sharing one dtype in ND format, the attributes, the host functions, and the SoCs the
// kernel serves: A2/A3, Ascend 950PR/950DT, and the Atlas training series in block-copy mode without bf16
// (aclnnGroupNormBackward rejects bf16 there with 161002 naming the SoC).
#include "group_norm_grad_host.h"
#include "served_socs.h"
#include "register/op_def_registry.h"

namespace ops {

class GroupNormGrad : public OpDef {
 public:
  explicit GroupNormGrad(const char* name) : OpDef(name) {
    const std::vector<ge::DataType> types = {ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16};
    const std::vector<ge::Format> formats = {ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND};
    for (const char* in : {"dy", "mean", "rstd", "x"}) {
      this->Input(in).ParamType(REQUIRED).DataType(types).Format(formats);
    }
    this->Input("gamma").ParamType(OPTIONAL).DataType(types).Format(formats);
    for (const char* out : {"dx", "dgamma", "dbeta"}) {
      this->Output(out).ParamType(REQUIRED).DataType(types).Format(formats);
    }
    this->Attr("num_groups").AttrType(REQUIRED).Int();
    this->Attr("data_format").AttrType(OPTIONAL).String("NCHW");
    this->Attr("dx_is_require").AttrType(OPTIONAL).Bool(true);
    this->Attr("dgamma_is_require").AttrType(OPTIONAL).Bool(true);
    this->Attr("dbeta_is_require").AttrType(OPTIONAL).Bool(true);
    this->SetInferShape(ge::InferShapeGroupNormGrad).SetInferDataType(ge::InferDataTypeGroupNormGrad);
    this->AICore().SetTiling(optiling::TilingGroupNormGrad);
    // served_socs.h; on ascend950 the A2 kernel runs on the 950's membase-on-regbase API.
    for (const char* soc : kGroupNormGradSocs) this->AICore().AddConfig(soc);
  }
};

OP_ADD(GroupNormGrad);

}  // namespace ops
