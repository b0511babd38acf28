// gert::StorageShape (exe_graph/runtime/storage_shape.h in CANN): the origin (logical) shape and
// the storage shape of a tensor; equal for the ND tensors normgrad's operators take.
#pragma once
#include "exe_graph/runtime/shape.h"

namespace gert {

class StorageShape {
 public:
  StorageShape() = default;
  StorageShape(const std::initializer_list<int64_t>& origin_shape, const std::initializer_list<int64_t>& storage_shape)
      : origin_shape_(origin_shape), storage_shape_(storage_shape) {}
  const Shape& GetOriginShape() const { return origin_shape_; }
  const Shape& GetShape() const { return storage_shape_; }
  const Shape& GetStorageShape() const { return storage_shape_; }
  Shape& MutableShape() { return storage_shape_; }
  Shape& MutableOriginShape() { return origin_shape_; }
  Shape& MutableStorageShape() { return storage_shape_; }
  bool operator==(const StorageShape& other) const {
    return origin_shape_ == other.origin_shape_ && storage_shape_ == other.storage_shape_;
  }
  bool operator!=(const StorageShape& other) const { return !(*this == other); }

 private:
  Shape origin_shape_;
  Shape storage_shape_;
};

}  // namespace gert
