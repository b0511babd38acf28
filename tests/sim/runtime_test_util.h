// Helpers for the runtime tests: registered GM buffers and launch-report matchers.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ascendc/launch.h"
#include "kernel_operator.h"

namespace rt_test {

// A device allocation in the GM registry, freed at scope end.
template <typename T>
class GmBuf {
 public:
  explicit GmBuf(size_t n, T init = T{}) : data_(n == 0 ? 1 : n, init) { sim::gm::Register(data_.data(), n * sizeof(T)); }
  ~GmBuf() { sim::gm::Unregister(data_.data()); }
  GmBuf(const GmBuf&) = delete;
  GmBuf& operator=(const GmBuf&) = delete;
  T* data() { return data_.data(); }
  T& operator[](size_t i) { return data_[i]; }
  size_t size() const { return data_.size(); }
  AscendC::GlobalTensor<T> Tensor() {
    AscendC::GlobalTensor<T> t;
    t.SetGlobalBuffer(data_.data(), data_.size());
    return t;
  }

 private:
  std::vector<T> data_;
};

// Launches on one core of the named SoC profile.
inline sim::LaunchReport RunOn(const char* soc, int blockDim, const std::function<void()>& body) {
  return sim::LaunchOn(*sim::FindSoc(soc), "test_kernel", blockDim, body);
}
inline sim::LaunchReport Run1(const std::function<void()>& body) { return RunOn("ascend910b", 1, body); }

inline bool HasWarning(const sim::LaunchReport& r, const std::string& text) {
  for (const std::string& w : r.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

inline uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

}  // namespace rt_test

// The launch failed and its error contains `text`.
#define EXPECT_LAUNCH_ERROR(report, text)                                                 \
  do {                                                                                    \
    const sim::LaunchReport& r_ = (report);                                               \
    EXPECT_FALSE(r_.ok);                                                                  \
    EXPECT_NE(r_.error.find(text), std::string::npos) << "error was: " << r_.error;       \
  } while (0)
#define EXPECT_LAUNCH_OK(report)                                      \
  do {                                                                \
    const sim::LaunchReport& r_ = (report);                           \
    EXPECT_TRUE(r_.ok) << r_.error;                                   \
  } while (0)
