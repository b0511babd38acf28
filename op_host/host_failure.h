// Why a host function (a tiling or shape-inference function) rejects a call. CANN's host functions
// report only a status, so the reason is recorded here: printed to stderr in the CANN build, and
// kept per thread for the simulator's aclnn layer, which puts it in its error message.
#pragma once
#include <string>

#include "graph/ge_error_codes.h"

namespace normgrad {

// Records "<opType>: <why>" as this thread's last host failure and returns ge::GRAPH_FAILED.
ge::graphStatus HostFailure(const char* opType, const std::string& why);
// This thread's last recorded reason; "" after ClearHostFailure or when none was recorded.
const std::string& LastHostFailure();
void ClearHostFailure();

}  // namespace normgrad
