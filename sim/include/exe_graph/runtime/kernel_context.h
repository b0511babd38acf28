// gert::KernelContext (exe_graph/runtime/kernel_context.h in CANN): the base of every runtime
// context. Only its name is used here (the TilingParse overload taking a KernelFunc).
#pragma once

namespace gert {

class KernelContext {
 protected:
  KernelContext() = default;
};

}  // namespace gert
