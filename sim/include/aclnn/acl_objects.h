// The simulator's definitions of the aclnn metadata objects that acl_meta.h keeps opaque.
// Only simulator glue (sim/src, op_host/op_api/aclnn_common.cpp) includes this; operator code
// reads tensors through normgrad::Describe and arrays through normgrad::IntArrayValues/BoolArrayValues.
#pragma once
#include <cstdint>
#include <vector>

#include "aclnn/acl_meta.h"

struct aclTensor {
  std::vector<int64_t> viewDims;
  std::vector<int64_t> strides;  // elements
  int64_t offset = 0;            // elements
  aclDataType dataType = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_ND;
  std::vector<int64_t> storageDims;
  void* data = nullptr;          // storage element 0
};

struct aclIntArray {
  std::vector<int64_t> values;
};

struct aclBoolArray {
  std::vector<bool> values;
};
