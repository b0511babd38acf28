// GlobalTensor (a window on global memory) and LocalTensor (a view of the Unified Buffer),
// with the bound checks CANN's CPU mode makes on views and scalar accesses.
#pragma once
#include <cstdint>
#include <type_traits>

#include "ascendc/core.h"
#include "ascendc/dtype.h"
#include "ascendc/hazard.h"
#include "ascendc/race.h"

#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif

namespace AscendC {

enum class TPosition : uint8_t {
  GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC,
  LCM = VECCALC, SPM, SHM = SPM, TSCM, C2PIPE2GM, C2PIPE2LOCAL, MAX
};
using QuePosition = TPosition;

// A view (UB byte address, byte length) of the current core's Unified Buffer.
template <typename T>
class LocalTensor {
 public:
  using PrimType = T;
  LocalTensor() = default;

  LocalTensor operator[](const uint32_t offset) const {
    uint64_t bytes = static_cast<uint64_t>(offset) * sizeof(T);
    if (bytes >= len_ && !(bytes == 0 && len_ == 0)) {
      sim::Fail("LocalTensor::operator[]", "offset %u elements is outside the tensor of %u elements",
                offset, GetSize());
    }
    LocalTensor t = *this;
    t.addr_ += static_cast<uint32_t>(bytes);
    t.len_ -= static_cast<uint32_t>(bytes);
    t.capacity_ -= static_cast<uint32_t>(bytes);
    return t;
  }
  T GetValue(const uint32_t index) const {
    CheckIndex("LocalTensor::GetValue", index);
    ScalarAccess(index, false);
    return SimData()[index];
  }
  template <typename T1>
  void SetValue(const uint32_t index, const T1 value) const {
    CheckIndex("LocalTensor::SetValue", index);
    ScalarAccess(index, true);
    SimData()[index] = static_cast<T>(value);
  }
  T& operator()(const uint32_t index) const {
    CheckIndex("LocalTensor::operator()", index);
    ScalarAccess(index, true);
    return SimData()[index];
  }
  template <typename CAST_T>
  LocalTensor<CAST_T> ReinterpretCast() const {
    LocalTensor<CAST_T> t;
    t.SimInit(addr_, len_, pos_, bufId_, owner_);
    return t;
  }
  uint32_t GetSize() const { return len_ / sizeof(T); }
  void SetSize(const uint32_t size) {
    uint64_t bytes = static_cast<uint64_t>(size) * sizeof(T);
    if (bytes > capacity_) {
      sim::Fail("LocalTensor::SetSize", "%u elements (%llu bytes) exceed the buffer of %u bytes", size,
                static_cast<unsigned long long>(bytes), capacity_);
    }
    len_ = static_cast<uint32_t>(bytes);
  }
  uint32_t GetLength() const { return len_; }
  uint64_t GetPhyAddr() const { return addr_; }
  uint64_t GetPhyAddr(const uint32_t offset) const { return addr_ + offset * sizeof(T); }
  int32_t GetPosition() const { return static_cast<int32_t>(pos_); }

  // ---- simulator internals (not Ascend C API; kernels never call these) ----
  void SimInit(uint32_t addr, uint32_t len, TPosition pos, int32_t bufId, void* owner) {
    addr_ = addr;
    len_ = len;
    capacity_ = len;
    pos_ = pos;
    bufId_ = bufId;
    owner_ = owner;
  }
  T* SimData() const { return reinterpret_cast<T*>(sim::UbPtr(addr_)); }
  uint32_t SimAddr() const { return addr_; }
  int32_t SimBufId() const { return bufId_; }
  void* SimOwner() const { return owner_; }

 private:
  // Counts a scalar UB access and tells the hazard tracker (auto-sync, hazard.h).
  void ScalarAccess(uint32_t index, bool write) const {
    sim::CoreContext& c = sim::Core();
    ++c.counters.scalarUb;
    if (c.hazards != nullptr) c.hazards->ScalarUb(addr_ + index * static_cast<uint32_t>(sizeof(T)), write);
  }
  void CheckIndex(const char* api, uint32_t index) const {
    if (static_cast<uint64_t>(index) * sizeof(T) >= len_) {
      sim::Fail(api, "index %u is outside the tensor of %u elements", index, GetSize());
    }
  }
  uint32_t addr_ = 0;      // byte offset in the core's UB
  uint32_t len_ = 0;       // bytes visible through this view
  uint32_t capacity_ = 0;  // bytes of the underlying allocation from this view's start
  TPosition pos_ = TPosition::VECCALC;
  int32_t bufId_ = -1;     // queue buffer slot this view came from (-1: TBuf or none)
  void* owner_ = nullptr;  // TQue/TBuf that owns the buffer
};

// A window on global memory. Scalar accesses are checked against the GM allocation registry and
// go through the core's data cache (ascendc/dcache.h), which prices them.
template <typename T>
class GlobalTensor {
 public:
  using PrimType = T;
  GlobalTensor() = default;
  void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
    base_ = buffer;
    size_ = bufferSize;
  }
  void SetGlobalBuffer(__gm__ T* buffer) {
    base_ = buffer;
    size_ = 0;
  }
  GlobalTensor operator[](const uint64_t offset) const {
    GlobalTensor t;
    t.base_ = base_ + offset;
    t.size_ = size_ > offset ? size_ - offset : 0;
    return t;
  }
  T GetValue(const uint64_t offset) const {
    sim::gm::CheckRange("GlobalTensor::GetValue", base_ + offset, sizeof(T), false);
    sim::ScalarGmRead(base_ + offset, sizeof(T));
    sim::race::GmAccess(sim::race::kRead, "GlobalTensor::GetValue", base_ + offset, 1, sizeof(T), sizeof(T));
    T value;
    sim::gm::Read(&value, base_ + offset, sizeof(T));  // a view region has no bytes to dereference
    return value;
  }
  void SetValue(const uint64_t offset, T value) const {
    sim::gm::CheckRange("GlobalTensor::SetValue", base_ + offset, sizeof(T), true);
    sim::ScalarGmWrite(base_ + offset, sizeof(T));
    sim::race::GmAccess(sim::race::kWrite, "GlobalTensor::SetValue", base_ + offset, 1, sizeof(T), sizeof(T),
                        reinterpret_cast<const uint8_t*>(&value), sizeof(T));
    base_[offset] = value;
  }
  __gm__ T* GetPhyAddr() const { return base_; }
  __gm__ T* GetPhyAddr(const uint64_t offset) const { return base_ + offset; }
  uint64_t GetSize() const { return size_; }

 private:
  T* base_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace AscendC
