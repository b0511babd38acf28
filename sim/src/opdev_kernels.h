// The kernels the simulator's AI-core launcher (ADD_TO_LAUNCHER_LIST_AICORE) runs, by operator type:
// on a device CANN finds them in the operator package by the same type.
#pragma once
#include <string>

#include "aclnn_common.h"

namespace normgrad_sim {

struct AiCoreKernel {
  const char* name;         // the kernel's entry (op_kernel/*.cpp), as sim::Launch and front end B name it
  normgrad::KernelThunk thunk;  // the entry called with the inputs, then the outputs, in OpDef order
};
// nullptr when no kernel of that operator type exists.
const AiCoreKernel* FindAiCoreKernel(const std::string& opType);

}  // namespace normgrad_sim
