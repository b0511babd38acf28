// gert::TilingParseContext (exe_graph/runtime/tiling_parse_context.h in CANN): what a TilingParse
// function fills once per operator and chip: the compile info its tiling function reads back.
#pragma once
#include "exe_graph/runtime/kernel_context.h"
#include "graph/types.h"
#include "platform/platform_infos_def.h"

namespace sim::host {
class Runner;
}

namespace gert {

class TilingParseContext : protected KernelContext {
 public:
  const ge::char_t* GetCompiledJson() const { return "{}"; }
  template <typename T>
  auto GetCompiledInfo() -> T* {
    return static_cast<T*>(compile_info_);
  }
  fe::PlatFormInfos* GetPlatformInfo() const { return platform_; }

 private:
  friend class sim::host::Runner;
  TilingParseContext(void* compile_info, fe::PlatFormInfos* platform)
      : compile_info_(compile_info), platform_(platform) {}
  void* compile_info_;
  fe::PlatFormInfos* platform_;
};

}  // namespace gert
