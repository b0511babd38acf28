// What the ops-nn runner asks of an ops-nn operator's own host tiling and what it gets back, in plain C++
// types: the runner's main (compiled with CANN's kernel flags) and the tiling side (compiled with CANN's host
// headers, host_tiling.cpp) share nothing else.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace normgrad::opsnn {

struct TensorSpec {
  std::string dtype;            // float32 | float16 | bfloat16
  std::vector<int64_t> shape;
};

struct AttrSpec {
  enum class Kind { kInt, kBool, kFloat, kString, kListBool } kind = Kind::kInt;
  int64_t i = 0;
  bool b = false;
  float f = 0.0f;
  std::string s;
  std::vector<uint8_t> bools;   // kListBool
};

// The platform the tiling asks about (platform_ascendc::PlatformAscendC): the SoC profile's values.
struct PlatformSpec {
  uint32_t aivCores = 0;
  uint64_t ubBytes = 0;
  uint32_t libApiWorkspaceBytes = 0;
  uint32_t npuArch = 0;         // NpuArch (runtime platform/soc_spec.h), 2201 for Atlas A2/A3
};

struct TilingRequest {
  std::string opType;           // as registered with IMPL_OP_OPTILING (GroupNormGrad)
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::vector<AttrSpec> attrs;  // in the OpDef's order
  PlatformSpec platform;
};

struct TilingResult {
  uint64_t tilingKey = 0;
  uint32_t blockDim = 0;
  uint32_t scheduleMode = 0;
  std::vector<uint64_t> workspaceBytes;
  std::vector<uint8_t> tilingData;
};

// Runs the operator's TilingParse (compile info from the platform) and Tiling, as CANN's runtime does before
// a launch. False with *error when the operator is not registered or either function fails.
bool RunTiling(const TilingRequest& request, TilingResult* result, std::string* error);

}  // namespace normgrad::opsnn
