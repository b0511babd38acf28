// Shared fixture of the model's unit tests: a registered 32-byte-aligned UB, a GM buffer, and a
// violation hook that records the message instead of exiting.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "normgrad_isa/intrinsics.h"

namespace isa_test {

inline std::vector<std::string>& Violations() {
  static std::vector<std::string> v;
  return v;
}
inline void RecordViolation(const char* msg) { Violations().push_back(msg); }

class Model : public ::testing::Test {
 protected:
  static constexpr uint64_t kUb = 192 * 1024;
  alignas(64) static inline uint8_t ub_[kUb];
  alignas(64) static inline uint8_t gm_[1 << 16];

  void SetUp() override {
    normgrad::isa::RegisterUb(ub_, kUb);
    normgrad::isa::ResetCore();
    normgrad::isa::SetViolationHook(RecordViolation);
    Violations().clear();
    std::memset(ub_, 0, sizeof(ub_));
    std::memset(gm_, 0, sizeof(gm_));
  }
  void TearDown() override { normgrad::isa::SetViolationHook(nullptr); }

  template <typename T>
  T* Ub(uint64_t byteOffset) { return reinterpret_cast<T*>(ub_ + byteOffset); }
  template <typename T>
  T* Gm(uint64_t byteOffset) { return reinterpret_cast<T*>(gm_ + byteOffset); }
  static bool Violated(const char* fragment) {
    for (const std::string& m : Violations()) {
      if (m.find(fragment) != std::string::npos) return true;
    }
    return false;
  }
};

inline uint16_t HalfBits(const half* p) {
  uint16_t b;
  std::memcpy(&b, p, 2);
  return b;
}
inline void SetHalfBits(half* p, uint16_t b) { std::memcpy(static_cast<void*>(p), &b, 2); }

}  // namespace isa_test
