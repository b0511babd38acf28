// An InferShape function takes an InferShapeContext, not a TilingContext.
// expect-error: invalid conversion|no matching function|cannot convert
#include "register/op_impl_registry.h"

ge::graphStatus WrongContext(gert::TilingContext*) { return ge::GRAPH_SUCCESS; }

IMPL_OP_INFERSHAPE(WrongContextOp).InferShape(WrongContext);
