// Contexts are made by the runtime; host code only receives them.
// expect-error: private|protected|deleted|no matching function
#include "exe_graph/runtime/tiling_context.h"

void Make() { gert::TilingContext context(nullptr, nullptr); }
