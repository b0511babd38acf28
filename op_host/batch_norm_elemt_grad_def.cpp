// OpDef registration of SyncBatchNormBackwardElemt (ascendc-api.md §9): the dtype combinations the
// kernel serves as one launch, and the SoCs it runs on (Atlas A2 and A3; it needs DataCopyPad).
#include "register/op_def_registry.h"

namespace ops {

Shapes SyncBatchNormBackwardElemtInferShape(const Shapes& inputs, const Attrs& attrs);

class SyncBatchNormBackwardElemt : public OpDef {
 public:
  explicit SyncBatchNormBackwardElemt(const char* name) : OpDef(name) {
    // Combinations (grad_output/save_input/grad_input, per-channel inputs): (fp16, fp16),
    // (bf16, bf16), (fp32, fp32) and (fp16, fp32): fp32 statistics with fp16 activations.
    const std::vector<ge::DataType> big = {ge::DT_FLOAT16, ge::DT_BF16, ge::DT_FLOAT, ge::DT_FLOAT16};
    const std::vector<ge::DataType> stat = {ge::DT_FLOAT16, ge::DT_BF16, ge::DT_FLOAT, ge::DT_FLOAT};
    const std::vector<ge::Format> nd(big.size(), ge::FORMAT_ND);
    Input("grad_output").ParamType(REQUIRED).DataType(big).Format(nd).AutoContiguous();
    Input("save_input").ParamType(REQUIRED).DataType(big).Format(nd).AutoContiguous();
    for (const char* name : {"mean", "invstd", "weight", "mean_dy", "mean_dy_xmu"}) {
      Input(name).ParamType(REQUIRED).DataType(stat).Format(nd).AutoContiguous();
    }
    Output("grad_input").ParamType(REQUIRED).DataType(big).Format(nd);
    SetInferShape(SyncBatchNormBackwardElemtInferShape);
    AICore().SetTiling(nullptr);
    AICore().AddConfig("ascend910b");
    AICore().AddConfig("ascend910_93");
  }
};

OP_ADD(SyncBatchNormBackwardElemt);

}  // namespace ops
