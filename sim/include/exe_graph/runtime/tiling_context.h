// gert::TilingContext (exe_graph/runtime/tiling_context.h in CANN): what a tiling function reads
// (input/output shapes and descriptions, attributes, the chip, its compile info) and what it
// writes (tiling key, block dim, tiling data, workspace sizes, schedule mode).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "exe_graph/runtime/extended_kernel_context.h"
#include "exe_graph/runtime/storage_shape.h"
#include "exe_graph/runtime/tiling_data.h"
#include "graph/ge_error_codes.h"
#include "platform/platform_infos_def.h"

namespace sim::host {
struct TilingOutputs;
}

namespace gert {

class TilingContext : public ExtendedKernelContext {
 public:
  const StorageShape* GetInputShape(const size_t index) const;
  const StorageShape* GetOptionalInputShape(const size_t ir_index) const;  // nullptr when absent
  const StorageShape* GetRequiredInputShape(const size_t ir_index) const;
  const StorageShape* GetOutputShape(const size_t index) const;

  const void* GetCompileInfo() const;
  template <typename T>
  const T* GetCompileInfo() const {
    return static_cast<const T*>(GetCompileInfo());
  }

  ge::graphStatus SetTilingKey(const uint64_t tiling_key);
  uint64_t GetTilingKey() const;
  ge::graphStatus SetBlockDim(const uint32_t block_dim);
  uint32_t GetBlockDim() const;
  ge::graphStatus SetScheduleMode(const uint32_t schedule_mode);
  uint32_t GetScheduleMode() const;
  // The tiling data as a T: sizes the data to sizeof(T); nullptr when T exceeds the capacity.
  template <typename T>
  auto GetTilingData() -> T* {
    TilingData* data = GetRawTilingData();
    if (data == nullptr || data->GetCapacity() < sizeof(T)) return nullptr;
    data->SetDataSize(sizeof(T));
    return static_cast<T*>(data->GetData());
  }
  TilingData* GetRawTilingData();
  size_t* GetWorkspaceSizes(const size_t workspace_count);
  size_t GetWorkspaceNum() const;
  fe::PlatFormInfos* GetPlatformInfo() const;

 private:
  friend class sim::host::Runner;
  TilingContext(const sim::host::Node* node, sim::host::TilingOutputs* out) : ExtendedKernelContext(node), out_(out) {}
  sim::host::TilingOutputs* out_;
};

}  // namespace gert
