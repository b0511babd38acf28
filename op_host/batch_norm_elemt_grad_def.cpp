// Operator definition of BatchNormElemtGrad (the graph op of op_graph/batch_norm_elemt_grad_proto.h
// and the kernel op_kernel/batch_norm_elemt_grad.cpp): the dtype combinations one launch serves,
// weight optional (absent means ones), the host functions, and the SoCs: Atlas A2 and A3, Ascend 950 (the
// kernel needs DataCopyPad, which the training series lacks).
#include "batch_norm_elemt_grad_host.h"
#include "served_socs.h"
#include "register/op_def_registry.h"

namespace ops {

class BatchNormElemtGrad : public OpDef {
 public:
  explicit BatchNormElemtGrad(const char* name) : OpDef(name) {
    // Combinations (grad_output/save_input/grad_input, per-channel inputs) x counter: (fp16, fp16),
    // (bf16, bf16), (fp32, fp32) and (fp16, fp32) — fp32 statistics with fp16 activations — each
    // with an int32 or a float counter. The kernel reads every input in its own type, so these
    // are the combinations torch produces, not a limit of the kernel.
    std::vector<ge::DataType> big;
    std::vector<ge::DataType> stat;
    std::vector<ge::DataType> count;
    const ge::DataType pairs[][2] = {{ge::DT_FLOAT16, ge::DT_FLOAT16},
                                     {ge::DT_BF16, ge::DT_BF16},
                                     {ge::DT_FLOAT, ge::DT_FLOAT},
                                     {ge::DT_FLOAT16, ge::DT_FLOAT}};
    for (ge::DataType counterType : {ge::DT_INT32, ge::DT_FLOAT}) {
      for (const auto& p : pairs) {
        big.push_back(p[0]);
        stat.push_back(p[1]);
        count.push_back(counterType);
      }
    }
    const std::vector<ge::Format> nd(big.size(), ge::FORMAT_ND);
    Input("grad_output").ParamType(REQUIRED).DataType(big).Format(nd).AutoContiguous();
    Input("save_input").ParamType(REQUIRED).DataType(big).Format(nd).AutoContiguous();
    Input("mean").ParamType(REQUIRED).DataType(stat).Format(nd).AutoContiguous();
    Input("invstd").ParamType(REQUIRED).DataType(stat).Format(nd).AutoContiguous();
    Input("weight").ParamType(OPTIONAL).DataType(stat).Format(nd).AutoContiguous();
    Input("sum_dy").ParamType(REQUIRED).DataType(stat).Format(nd).AutoContiguous();
    Input("sum_dy_xmu").ParamType(REQUIRED).DataType(stat).Format(nd).AutoContiguous();
    Input("counter").ParamType(REQUIRED).DataType(count).Format(nd).AutoContiguous();
    Output("grad_input").ParamType(REQUIRED).DataType(big).Format(nd);
    SetInferShape(ge::InferShapeBatchNormElemtGrad).SetInferDataType(ge::InferDataTypeBatchNormElemtGrad);
    AICore().SetTiling(optiling::TilingBatchNormElemtGrad);
    for (const char* soc : kBatchNormElemtGradSocs) AICore().AddConfig(soc);  // served_socs.h
  }
};

OP_ADD(BatchNormElemtGrad);

}  // namespace ops
