// gert::ContinuousVector (exe_graph/runtime/continuous_vector.h in CANN): a list attribute's
// elements, contiguous; TypedContinuousVector<T> views them as T.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace sim::host {
class AttrStore;
}

namespace gert {

class ContinuousVector {
 public:
  size_t GetSize() const { return size_; }
  size_t GetCapacity() const { return size_; }
  const void* GetData() const { return bytes_.data(); }
  void* MutableData() { return bytes_.data(); }

 protected:
  friend class sim::host::AttrStore;
  std::vector<uint8_t> bytes_;
  size_t size_ = 0;
};

template <typename T>
class TypedContinuousVector : public ContinuousVector {
 public:
  const T* GetData() const { return reinterpret_cast<const T*>(bytes_.data()); }
  T* MutableData() { return reinterpret_cast<T*>(bytes_.data()); }
};

}  // namespace gert
