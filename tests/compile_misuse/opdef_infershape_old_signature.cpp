// SetInferShape takes a UINT32 (*)(gert::InferShapeContext*); a function over shape vectors is not one.
// expect-error: invalid conversion|no matching function|cannot convert
#include <cstdint>
#include <vector>

#include "register/op_def_registry.h"

using Shapes = std::vector<std::vector<int64_t>>;
Shapes InferOld(const Shapes& inputs) { return inputs; }

namespace ops {
class OldInfer : public OpDef {
 public:
  explicit OldInfer(const char* name) : OpDef(name) { this->SetInferShape(InferOld); }
};
OP_ADD(OldInfer);
}  // namespace ops
