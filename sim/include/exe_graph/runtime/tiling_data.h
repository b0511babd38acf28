// gert::TilingData (exe_graph/runtime/tiling_data.h in CANN): the tiling bytes a tiling function
// writes, within a capacity fixed at registration (OpImplRegisterV2::Tiling, 2048 by default).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "graph/ge_error_codes.h"

namespace sim::host {
class Runner;
}

namespace gert {

class TilingData {
 public:
  size_t GetCapacity() const { return bytes_.size(); }
  size_t GetDataSize() const { return size_; }
  void SetDataSize(const size_t size) { size_ = size; }
  void* GetData() { return bytes_.data(); }
  const void* GetData() const { return bytes_.data(); }
  template <typename T>
  ge::graphStatus Append(const T& data) {
    return Append(&data, 1);
  }
  template <typename T>
  ge::graphStatus Append(const T* data, size_t append_num) {
    const size_t bytes = sizeof(T) * append_num;
    if (size_ + bytes > bytes_.size()) return ge::GRAPH_FAILED;
    std::memcpy(bytes_.data() + size_, data, bytes);
    size_ += bytes;
    return ge::GRAPH_SUCCESS;
  }

 private:
  friend class sim::host::Runner;
  std::vector<uint8_t> bytes_;
  size_t size_ = 0;
};

}  // namespace gert
