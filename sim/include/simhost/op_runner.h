// Runs an operator's registered host functions as CANN's runtime does: builds the node of one call
// (OpDef inputs in order, absent optional inputs, attributes by name with the OpDef's defaults),
// wraps it in the gert context and calls InferShape, InferDataType or TilingParse + Tiling.
// Simulator-only; the aclnn layer tiles every launch through Tiling().
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ascendc/soc.h"
#include "graph/types.h"
#include "simhost/op_def_info.h"

namespace sim::host {

struct TensorArg {
  std::vector<int64_t> shape;
  ge::DataType dtype = ge::DT_UNDEFINED;
  bool present = true;
};
inline TensorArg AbsentTensor() {
  TensorArg t;
  t.present = false;
  return t;
}
using NamedAttrs = std::map<std::string, AttrValue>;

struct TilingResult {
  uint64_t tilingKey = 0;
  uint32_t blockDim = 0;
  uint32_t scheduleMode = 0;
  std::vector<uint8_t> tilingData;  // GetDataSize() bytes
  std::vector<size_t> workspaces;   // as set through GetWorkspaceSizes
};

class Runner {
 public:
  // Each returns false with *error set when the call does not fit the OpDef (unknown type, wrong
  // input count, a required input absent, an unknown or mistyped attribute), no function is
  // registered, or the function returns a failure status.
  static bool Tiling(const std::string& opType, const std::vector<TensorArg>& inputs,
                     const std::vector<TensorArg>& outputs, const NamedAttrs& attrs, const SocProfile& soc,
                     TilingResult* result, std::string* error);
  static bool InferShape(const std::string& opType, const std::vector<TensorArg>& inputs, const NamedAttrs& attrs,
                         std::vector<std::vector<int64_t>>* outputShapes, std::string* error);
  static bool InferDataType(const std::string& opType, const std::vector<TensorArg>& inputs,
                            const NamedAttrs& attrs, std::vector<ge::DataType>* outputTypes, std::string* error);
};

}  // namespace sim::host
