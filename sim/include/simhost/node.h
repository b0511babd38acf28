// What the simulator's gert contexts point at: one call's node (its OpDef inputs, outputs and
// attribute values) and the outputs of a tiling function. Built by sim::host::Runner.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "exe_graph/runtime/compute_node_info.h"
#include "exe_graph/runtime/runtime_attrs.h"
#include "exe_graph/runtime/storage_shape.h"
#include "exe_graph/runtime/tiling_data.h"
#include "platform/platform_infos_def.h"
#include "simhost/op_def_info.h"

namespace sim::host {

struct NodeTensor {
  bool present = false;
  gert::StorageShape shape;
  gert::CompileTimeTensorDesc desc;
};

struct Node {
  std::string type;
  std::string name;
  std::vector<NodeTensor> inputs;   // OpDef (IR) order; absent optional inputs have present = false
  std::vector<size_t> presentInputs;  // IR index of each present input, in order
  std::vector<NodeTensor> outputs;
  gert::RuntimeAttrs attrs;
};

struct TilingOutputs {
  uint64_t tilingKey = 0;
  uint32_t blockDim = 0;
  uint32_t scheduleMode = 0;
  gert::TilingData data;
  std::vector<size_t> workspaces;
  const void* compileInfo = nullptr;
  fe::PlatFormInfos* platform = nullptr;
};

// Fills gert::RuntimeAttrs and gert::ContinuousVector, whose storage is private to them.
class AttrStore {
 public:
  static void Append(gert::RuntimeAttrs* attrs, const AttrValue& value);
};

}  // namespace sim::host
