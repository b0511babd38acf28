// The simulator's record of an OpDef (OP_ADD): inputs, outputs, attributes with their default
// values and the SoCs (its host functions are in the registry, FindOpImpl). Not a CANN header:
// host code includes register/op_def_registry.h; the simulator and tests read these records
// through simhost/op_records.h.
#pragma once
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "graph/types.h"

namespace sim::host {

using AttrValue = std::variant<int64_t, float, bool, std::string, std::vector<int64_t>, std::vector<float>,
                               std::vector<bool>>;

struct ParamDefInfo {
  std::string name;
  int paramType = 2;                 // ops::Option: 1 OPTIONAL, 2 REQUIRED, 3 DYNAMIC
  std::vector<ge::DataType> dtypes;  // positional combinations across all params
  std::vector<ge::Format> formats;
};

struct AttrDefInfo {
  std::string name;
  int attrType = 1;         // ops::Option: 1 OPTIONAL, 2 REQUIRED
  std::string type;         // "Int", "Float", "Bool", "String", "ListInt", "ListFloat", "ListBool"
  bool hasDefault = false;
  AttrValue defaultValue;   // meaningful when hasDefault
  std::string defaultJson;  // "" when no default
};

struct OpDefInfo {
  std::string name;
  std::vector<ParamDefInfo> inputs;
  std::vector<ParamDefInfo> outputs;
  std::vector<AttrDefInfo> attrs;
  std::vector<std::string> socs;  // AICore().AddConfig order
};

}  // namespace sim::host
