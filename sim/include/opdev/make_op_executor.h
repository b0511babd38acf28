// opdev/make_op_executor.h (CANN nnopbase), the part level-2 and level-0 code uses: CREATE_EXECUTOR
// and ADD_TO_LAUNCHER_LIST_AICORE. The launch is tiled here, in the workspace-size phase, by the
// operator type's registered tiling function (as CANN's launcher does) and queued on the executor;
// the kernel runs in the execute phase.
#pragma once
#include "opdev/op_arg_def.h"
#include "opdev/op_executor.h"
#include "opdev/platform.h"

namespace normgrad_sim {
// ACLNN_SUCCESS, or the status with the message recorded: 161002 when no tiling exists for the
// launch (the tiling function's reason), 561003 when the simulator has no kernel for opType.
aclnnStatus AddAiCoreLaunch(const char* opType, aclOpExecutor* executor, const OpInputs& inputs,
                            const OpOutputs& outputs, OpAttrs attrs = OpAttrs{});
}  // namespace normgrad_sim

#define CREATE_EXECUTOR() UniqueExecutor(__func__)
#define ADD_TO_LAUNCHER_LIST_AICORE(KERNEL_NAME, ...) \
  ::normgrad_sim::AddAiCoreLaunch(#KERNEL_NAME, executor, __VA_ARGS__)
