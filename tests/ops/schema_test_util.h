// Shared pieces of the operators' schema-agreement tests: the ge -> acl dtype map, a zero-filled
// device tensor, and the check that a graph prototype and its OpDef name the same params in order.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "graph/operator_reg.h"
#include "host_failure.h"
#include "register/op_def_registry.h"
#include "simhost/op_records.h"
#include "simhost/op_runner.h"

namespace schema_test {

inline aclDataType AclOf(ge::DataType d) {
  return d == ge::DT_FLOAT16 ? ACL_FLOAT16 : (d == ge::DT_BF16 ? ACL_BF16 : ACL_FLOAT);
}

// A contiguous device tensor of zeros (4 bytes per element covers every dtype used), destroyed
// with its memory.
struct ZeroTensor {
  ZeroTensor(std::vector<int64_t> shape, aclDataType dtype) {
    int64_t numel = 1;
    for (int64_t d : shape) numel *= d;
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
    size_t bytes = std::max<int64_t>(numel, 1) * 4;
    aclrtMalloc(&data, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemset(data, bytes, 0, bytes);
    tensor = aclCreateTensor(shape.data(), shape.size(), dtype, strides.data(), 0, ACL_FORMAT_ND, shape.data(),
                             shape.size(), data);
  }
  ~ZeroTensor() {
    aclDestroyTensor(tensor);
    aclrtFree(data);
  }
  ZeroTensor(const ZeroTensor&) = delete;
  ZeroTensor& operator=(const ZeroTensor&) = delete;
  void* data = nullptr;
  aclTensor* tensor = nullptr;
};

// The prototype and the OpDef list exactly these inputs and outputs, in this order.
// Call as ASSERT_NO_FATAL_FAILURE(ExpectParamNames(...)).
inline void ExpectParamNames(const ge::OpSchema& proto, const sim::host::OpDefInfo& def,
                             const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
  ASSERT_EQ(proto.inputs.size(), inputs.size());
  ASSERT_EQ(def.inputs.size(), inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(proto.inputs[i].name, inputs[i]);
    EXPECT_EQ(def.inputs[i].name, inputs[i]);
  }
  ASSERT_EQ(proto.outputs.size(), outputs.size());
  ASSERT_EQ(def.outputs.size(), outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    EXPECT_EQ(proto.outputs[i].name, outputs[i]);
    EXPECT_EQ(def.outputs[i].name, outputs[i]);
  }
}

using Shapes = std::vector<std::vector<int64_t>>;

// Runs op's registered InferShape through its gert context on these input shapes (every input
// present, float32). On failure *error holds the function's recorded reason.
inline bool InferShape(const std::string& op, const Shapes& inputs, const sim::host::NamedAttrs& attrs, Shapes* out,
                       std::string* error) {
  std::vector<sim::host::TensorArg> args;
  for (const std::vector<int64_t>& s : inputs) args.push_back({s, ge::DT_FLOAT, true});
  normgrad::ClearHostFailure();
  if (sim::host::Runner::InferShape(op, args, attrs, out, error)) return true;
  if (!normgrad::LastHostFailure().empty()) *error = normgrad::LastHostFailure();
  return false;
}

// The host functions registered for op: InferShape, InferDataType and Tiling all present.
inline void ExpectHostFunctions(const std::string& op) {
  const sim::host::OpImplFuncs* impl = sim::host::FindOpImpl(op);
  ASSERT_NE(impl, nullptr) << op;
  EXPECT_NE(impl->inferShape, nullptr) << op;
  EXPECT_NE(impl->inferDataType, nullptr) << op;
  EXPECT_NE(impl->tiling, nullptr) << op;
}

}  // namespace schema_test
