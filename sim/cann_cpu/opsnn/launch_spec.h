// DIR/opsnn.txt: one launch of an ops-nn kernel, described by what its host tiling needs (the operator's
// inputs, outputs and attributes, the platform) rather than by a finished tiling: the runner runs ops-nn's
// own tiling to get the tiling key, block dim, workspace and tiling bytes.
//
//   op <OpType>                         as ops-nn's IMPL_OP_OPTILING names it (GroupNormGrad)
//   kernel <entry>                      the extern "C" kernel entry (group_norm_grad)
//   l2bytes <n>                         the chip's L2 size (the cost report's re-read model)
//   platform <aiv cores> <UB bytes> <lib API workspace bytes> <NpuArch>
//   input <dtype> <d0>x<d1>x...         each input in the OpDef's order; its bytes in DIR/region<i>.bin
//   output <dtype> <d0>x<d1>x...        each output, after the inputs; written to DIR/region<i>.bin
//   attr int <v> | attr bool <0|1> | attr float <v> | attr str <s> | attr listbool <0|1>,<0|1>,...
//                                       the OpDef's attributes in order
//
// The runner writes DIR/result.txt ("ok" or "error <why>") and, after the tiling ran, DIR/tiling.txt
// (tiling_key, block_dim, workspace bytes, tiling bytes; one "name value" a line).
#pragma once
#include <fstream>
#include <sstream>
#include <string>

#include "tiling_request.h"

namespace normgrad::opsnn {

struct LaunchSpec {
  std::string kernel;
  TilingRequest request;
  uint64_t l2Bytes = 0;  // the chip's L2, for the cost report's re-read model (front end A's figure)
};

inline bool ParseDims(const std::string& text, std::vector<int64_t>* dims) {
  std::istringstream in(text);
  std::string d;
  while (std::getline(in, d, 'x')) {
    if (d.empty() || d.find_first_not_of("0123456789") != std::string::npos) return false;
    dims->push_back(std::stoll(d));
  }
  return !dims->empty();
}

// Reads DIR/opsnn.txt; false with *error naming the line that does not parse.
inline bool ReadLaunchSpec(const std::string& dir, LaunchSpec* spec, std::string* error) {
  std::ifstream in(dir + "/opsnn.txt");
  if (!in) {
    *error = "cannot read " + dir + "/opsnn.txt";
    return false;
  }
  TilingRequest& r = spec->request;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string key, a, b;
    ls >> key;
    bool ok = true;
    if (key == "op") {
      ok = static_cast<bool>(ls >> r.opType);
    } else if (key == "kernel") {
      ok = static_cast<bool>(ls >> spec->kernel);
    } else if (key == "l2bytes") {
      ok = static_cast<bool>(ls >> spec->l2Bytes);
    } else if (key == "platform") {
      ok = static_cast<bool>(ls >> r.platform.aivCores >> r.platform.ubBytes >> r.platform.libApiWorkspaceBytes >>
                             r.platform.npuArch);
    } else if (key == "input" || key == "output") {
      TensorSpec t;
      ok = static_cast<bool>(ls >> t.dtype >> a) && ParseDims(a, &t.shape);
      (key == "input" ? r.inputs : r.outputs).push_back(t);
    } else if (key == "attr") {
      AttrSpec attr;
      ok = static_cast<bool>(ls >> a >> b);
      if (ok && a == "int") {
        attr.kind = AttrSpec::Kind::kInt;
        attr.i = std::stoll(b);
      } else if (ok && a == "bool") {
        attr.kind = AttrSpec::Kind::kBool;
        attr.b = b == "1";
      } else if (ok && a == "float") {
        attr.kind = AttrSpec::Kind::kFloat;
        attr.f = std::stof(b);
      } else if (ok && a == "listbool") {
        attr.kind = AttrSpec::Kind::kListBool;
        std::istringstream items(b);
        std::string item;
        while (std::getline(items, item, ',')) attr.bools.push_back(item == "1" ? 1 : 0);
      } else if (ok && a == "str") {
        attr.kind = AttrSpec::Kind::kString;
        attr.s = b;
      } else {
        ok = false;
      }
      r.attrs.push_back(attr);
    } else if (!key.empty()) {
      ok = false;
    }
    if (!ok) {
      *error = "bad line in opsnn.txt: '" + line + "'";
      return false;
    }
  }
  if (r.opType.empty() || spec->kernel.empty() || r.platform.aivCores == 0) {
    *error = "opsnn.txt names no op, no kernel or no platform";
    return false;
  }
  return true;
}

}  // namespace normgrad::opsnn
