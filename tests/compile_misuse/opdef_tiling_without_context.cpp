// AICore().SetTiling takes a UINT32 (*)(gert::TilingContext*): a no-op entry would launch the
// kernel with garbage tiling on hardware, so CANN does not accept one and neither do we.
// expect-error: invalid conversion|no matching function|cannot convert
#include "register/op_def_registry.h"

void NoTiling() {}

namespace ops {
class NoTilingOp : public OpDef {
 public:
  explicit NoTilingOp(const char* name) : OpDef(name) { this->AICore().SetTiling(NoTiling); }
};
OP_ADD(NoTilingOp);
}  // namespace ops
