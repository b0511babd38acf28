// gert::InferDataTypeContext (exe_graph/runtime/infer_datatype_context.h in CANN): the input data
// types an InferDataType function reads and the output data types it sets.
#pragma once
#include <cstddef>

#include "exe_graph/runtime/extended_kernel_context.h"
#include "graph/ge_error_codes.h"
#include "graph/types.h"

namespace gert {

class InferDataTypeContext : public ExtendedKernelContext {
 public:
  ge::DataType GetInputDataType(const size_t index) const;
  ge::DataType GetOptionalInputDataType(const size_t ir_index) const;  // DT_UNDEFINED when absent
  ge::DataType GetRequiredInputDataType(const size_t ir_index) const;
  ge::DataType GetOutputDataType(const size_t index) const;
  ge::graphStatus SetOutputDataType(const size_t index, const ge::DataType datatype);

 private:
  friend class sim::host::Runner;
  InferDataTypeContext(const sim::host::Node* node, ge::DataType* outputs, size_t output_num)
      : ExtendedKernelContext(node), outputs_(outputs), output_num_(output_num) {}
  ge::DataType* outputs_;
  size_t output_num_;
};

}  // namespace gert
