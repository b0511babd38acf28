// What every tiling function writes besides its tiling struct: the block dim, the tiling key (one
// kernel per operator type, so 0) and one workspace: the runtime's system part plus the kernel's own.
#pragma once
#include <cstddef>
#include <cstdint>

#include "exe_graph/runtime/tiling_context.h"
#include "graph/ge_error_codes.h"
#include "host_failure.h"

namespace normgrad {

inline ge::graphStatus SetLaunch(gert::TilingContext* context, const char* opType, uint32_t blockDim,
                                 uint64_t sysWorkspaceBytes, uint64_t kernelWorkspaceBytes) {
  context->SetBlockDim(blockDim);
  context->SetTilingKey(0);
  size_t* workspaces = context->GetWorkspaceSizes(1);
  if (workspaces == nullptr) return HostFailure(opType, "no workspace size slot");
  workspaces[0] = static_cast<size_t>(sysWorkspaceBytes + kernelWorkspaceBytes);
  return ge::GRAPH_SUCCESS;
}

}  // namespace normgrad
