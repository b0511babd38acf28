// gert::ExtendedKernelContext (exe_graph/runtime/extended_kernel_context.h in CANN): what every
// host-function context knows of its node: input/output descriptions, attributes, type and name.
// Index conventions as in CANN: GetInputDesc(index) counts the inputs present in this call;
// Get{Optional,Required}InputDesc(ir_index) count the OpDef's inputs, absent ones included.
#pragma once
#include <cstddef>

#include "exe_graph/runtime/compute_node_info.h"
#include "exe_graph/runtime/kernel_context.h"
#include "exe_graph/runtime/runtime_attrs.h"
#include "graph/types.h"

namespace sim::host {
struct Node;
class Runner;
}

namespace gert {

class ExtendedKernelContext : protected KernelContext {
 public:
  ExtendedKernelContext(const ExtendedKernelContext&) = delete;
  ExtendedKernelContext& operator=(const ExtendedKernelContext&) = delete;

  const CompileTimeTensorDesc* GetInputDesc(const size_t index) const;
  const CompileTimeTensorDesc* GetOptionalInputDesc(const size_t ir_index) const;
  const CompileTimeTensorDesc* GetRequiredInputDesc(const size_t ir_index) const;
  const CompileTimeTensorDesc* GetOutputDesc(const size_t index) const;
  size_t GetComputeNodeInputNum() const;
  size_t GetComputeNodeOutputNum() const;
  const RuntimeAttrs* GetAttrs() const;
  const ge::char_t* GetNodeType() const;
  const ge::char_t* GetNodeName() const;

 protected:
  explicit ExtendedKernelContext(const sim::host::Node* node) : node_(node) {}
  const sim::host::Node* node_;
};

}  // namespace gert
