// gert::InferShapeContext (exe_graph/runtime/infer_shape_context.h in CANN): the input shapes an
// InferShape function reads and the output shapes it writes.
#pragma once
#include <cstddef>

#include "exe_graph/runtime/extended_kernel_context.h"
#include "exe_graph/runtime/shape.h"

namespace gert {

class InferShapeContext : public ExtendedKernelContext {
 public:
  const Shape* GetInputShape(const size_t index) const;
  const Shape* GetOptionalInputShape(const size_t ir_index) const;  // nullptr when absent
  const Shape* GetRequiredInputShape(const size_t ir_index) const;
  Shape* GetOutputShape(const size_t index);

 private:
  friend class sim::host::Runner;
  InferShapeContext(const sim::host::Node* node, Shape* outputs, size_t output_num)
      : ExtendedKernelContext(node), outputs_(outputs), output_num_(output_num) {}
  Shape* outputs_;
  size_t output_num_;
};

}  // namespace gert
