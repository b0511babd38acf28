// Operator definition of GroupNormGrad for the CANN build (ascendc-api.md §9): five inputs and three
// outputs sharing one dtype in ND format, the seed-001 attributes, shape inference, tiling, and the
// SoCs the kernel serves: A2/A3, and the Atlas training series in block-copy mode (no bf16 there:
// aclnnGroupNormBackward rejects it with 161002 naming the SoC).
#include "register/op_def_registry.h"

namespace ops {

Shapes GroupNormGradInferShape(const Shapes& inputs, const Attrs& attrs);

namespace {
// Tiling is registered as present; the host computes it in GroupNormGradTilingFor.
void GroupNormGradTilingEntry() {}
}  // namespace

class GroupNormGrad : public OpDef {
 public:
  explicit GroupNormGrad(const char* name) : OpDef(name) {
    const std::vector<ge::DataType> types = {ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16};
    const std::vector<ge::Format> formats = {ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND};
    for (const char* in : {"dy", "mean", "rstd", "x", "gamma"}) {
      this->Input(in).ParamType(REQUIRED).DataType(types).Format(formats);
    }
    for (const char* out : {"dx", "dgamma", "dbeta"}) {
      this->Output(out).ParamType(REQUIRED).DataType(types).Format(formats);
    }
    this->Attr("num_groups").AttrType(REQUIRED).Int();
    this->Attr("data_format").AttrType(OPTIONAL).String("NCHW");
    this->Attr("dx_is_require").AttrType(OPTIONAL).Bool(true);
    this->Attr("dgamma_is_require").AttrType(OPTIONAL).Bool(true);
    this->Attr("dbeta_is_require").AttrType(OPTIONAL).Bool(true);
    this->SetInferShape(GroupNormGradInferShape);
    this->AICore().SetTiling(GroupNormGradTilingEntry);
    this->AICore().AddConfig("ascend910b");
    this->AICore().AddConfig("ascend910_93");
    this->AICore().AddConfig("ascend910");
  }
};

OP_ADD(GroupNormGrad);

}  // namespace ops
