// opdev/common_types.h (CANN nnopbase), the part level-2 code uses: op::Shape, op::DataType,
// op::Format and the methods of aclTensor, aclBoolArray and aclIntArray.
//
// The simulator's handles are checked addresses, not objects (simhost/acl_handles.h): these classes
// have no data members, and each method looks its handle up in the handle table, so a handle that is
// not live makes the method throw (a 561000 status at the C boundary), never read freed memory.
// Methods return by value where CANN returns a reference (source-compatible for level-2 code).
#pragma once
#include <cstdint>
#include <vector>

#include "aclnn/acl_meta.h"
#include "exe_graph/runtime/shape.h"
#include "graph/types.h"

namespace op {
using Shape = gert::Shape;
using DataType = ge::DataType;
using Format = ge::Format;
using Strides = std::vector<int64_t>;
}  // namespace op

struct aclTensor {
  aclTensor() = delete;  // only handles exist (aclCreateTensor, an executor's tensors)
  op::Shape GetViewShape() const;
  op::Strides GetViewStrides() const;
  int64_t GetViewOffset() const;
  op::DataType GetDataType() const;
  op::Format GetViewFormat() const;
  void* GetStorageAddr() const;  // storage element 0 (nullptr for an executor's own tensor)
  int64_t Numel() const;         // product of the view shape (1 for a 0-d tensor)
  int64_t Size() const { return Numel(); }
  bool IsEmpty() const { return Numel() == 0; }
};

struct aclBoolArray {
  aclBoolArray() = delete;
  uint64_t Size() const;
  bool operator[](uint64_t i) const;  // throws for i >= Size()
};

struct aclIntArray {
  aclIntArray() = delete;
  uint64_t Size() const;
  int64_t operator[](uint64_t i) const;  // throws for i >= Size()
};
