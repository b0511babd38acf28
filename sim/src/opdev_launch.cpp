// The simulator's AI-core launcher (ADD_TO_LAUNCHER_LIST_AICORE, opdev/make_op_executor.h): tiles
// the launch with the operator type's registered tiling function (inputs and outputs in OpDef order,
// OP_ATTR's values named by the OpDef's attributes), then queues the kernel on the executor with
// the tensors' device images.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "aclnn_common.h"
#include "opdev/make_op_executor.h"
#include "opdev_kernels.h"
#include "simhost/op_records.h"

namespace {

// The device image of one launch tensor (nullptr: an absent optional input, skipped) and its
// description for the tiling.
normgrad::DevPtr LaunchImage(aclOpExecutor* e, const aclTensor* t, bool output, sim::host::TensorArg* arg) {
  if (t == nullptr) {
    *arg = sim::host::AbsentTensor();
    return normgrad::DevPtr{};
  }
  normgrad::TensorDesc d;
  normgrad::DevPtr p;
  if (const aclOpExecutor::OwnTensor* own = e->FindOwn(t)) {
    d = own->desc;
    p = own->ptr;
    if (!output) e->MarkRead(p);
  } else {
    if (normgrad::Describe(e->api.c_str(), e->ArgumentName(t), t, &d) != ACL_SUCCESS) {
      throw std::invalid_argument("a launch was given a tensor that is not live");
    }
    p = output ? e->ContiguousOutput(d) : e->ContiguousInput(d);
  }
  *arg = normgrad::TensorArgOf(d.shape, d.dtype);
  return p;
}

}  // namespace

namespace normgrad_sim {

aclnnStatus AddAiCoreLaunch(const char* opType, aclOpExecutor* executor, const OpInputs& inputs,
                            const OpOutputs& outputs, OpAttrs attrs) {
  const char* api = executor->api.c_str();
  const sim::host::OpDefInfo* def = sim::host::FindOpDef(opType);
  const AiCoreKernel* kernel = FindAiCoreKernel(opType);
  if (def == nullptr || kernel == nullptr) {
    return normgrad::Error(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, api, "no operator %s is registered", opType);
  }
  if (attrs.values.size() > def->attrs.size()) {
    return normgrad::Error(ACLNN_ERR_INNER, api, "%s takes %zu attributes, the launch gave %zu", opType,
                           def->attrs.size(), attrs.values.size());
  }
  std::vector<normgrad::DevPtr> args;
  std::vector<sim::host::TensorArg> ins(inputs.tensors.size()), outs(outputs.tensors.size());
  for (size_t i = 0; i < ins.size(); ++i) args.push_back(LaunchImage(executor, inputs.tensors[i], false, &ins[i]));
  for (size_t i = 0; i < outs.size(); ++i) args.push_back(LaunchImage(executor, outputs.tensors[i], true, &outs[i]));
  sim::host::NamedAttrs named;
  // Moved, never copied: libstdc++ 12 visits a half-copied AttrValue (a variant it deems never
  // valueless) when the copy's allocation throws.
  for (size_t i = 0; i < attrs.values.size(); ++i) named.emplace(def->attrs[i].name, std::move(attrs.values[i]));
  sim::host::TilingResult plan;
  const std::string why = normgrad::RegisteredTiling(opType, ins, outs, named, &plan);
  if (!why.empty()) {
    return normgrad::Error(ACLNN_ERR_PARAM_INVALID, api, "no tiling for %s on %s: %s", opType,
                           normgrad::CurrentCallSoc().name, why.c_str());
  }
  executor->AddKernel(kernel->name, plan.blockDim, plan.tilingData.data(), plan.tilingData.size(), args,
                      plan.workspaces.empty() ? 0 : plan.workspaces[0], kernel->thunk);
  return ACLNN_SUCCESS;
}

}  // namespace normgrad_sim
