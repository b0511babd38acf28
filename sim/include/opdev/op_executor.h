// opdev/op_executor.h (CANN nnopbase), the part level-2 code uses: the executor's AllocTensor and
// GetWorkspaceSize (members of the simulator's aclOpExecutor, op_host/op_api/aclnn_common.h),
// UniqueExecutor (CREATE_EXECUTOR) and CommonOpExecutorRun, the execute phase.
#pragma once
#include <cstdint>
#include <memory>

#include "aclnn_common.h"
#include "opdev/common_types.h"
#include "opdev/op_errno.h"

// Owns a new executor until ReleaseTo hands it to the caller; a failed GetWorkspaceSize returns
// without ReleaseTo and the executor is deleted here. The executor is made for the API that
// L2_DFX_PHASE_1 named on this thread.
class UniqueExecutor {
 public:
  explicit UniqueExecutor(const char* funcName);
  aclOpExecutor* get() const { return executor_.get(); }
  aclOpExecutor* operator->() { return executor_.get(); }
  void ReleaseTo(aclOpExecutor** executor) {
    if (executor != nullptr) *executor = executor_.release();
  }
  UniqueExecutor(const UniqueExecutor&) = delete;
  UniqueExecutor& operator=(const UniqueExecutor&) = delete;

 private:
  std::unique_ptr<aclOpExecutor> executor_;
};

// The execute phase of the API that L2_DFX_PHASE_2 named on this thread (normgrad::RunExecutor).
aclnnStatus CommonOpExecutorRun(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                aclrtStream stream);
