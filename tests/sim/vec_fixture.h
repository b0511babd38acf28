// Test fixture for the vector-unit tests: one hand-built core (own UB, mask register, counters)
// bound to the test thread, LocalTensors at chosen UB addresses, and an independent reference
// for half values written from the IEEE binary16 definition.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include "kernel_operator.h"

namespace vectest {

class VecTest : public ::testing::Test {
 protected:
  void SetUp() override { UseSoc("ascend910b"); }
  void TearDown() override { sim::BindCore(nullptr); }
  void UseSoc(const char* name) {
    ctx_ = sim::CoreContext();
    ctx_.soc = sim::FindSoc(name);
    ctx_.ub.assign(ctx_.soc->ubBytes, 0);
    sim::BindCore(&ctx_);
  }
  template <typename T>
  AscendC::LocalTensor<T> At(uint32_t addr, uint32_t elems) {
    AscendC::LocalTensor<T> t;
    t.SimInit(addr, elems * static_cast<uint32_t>(sizeof(T)), AscendC::TPosition::VECCALC, -1, nullptr);
    return t;
  }
  template <typename T>
  T* Ptr(uint32_t addr) {
    return reinterpret_cast<T*>(ctx_.ub.data() + addr);
  }
  uint64_t Repeats(sim::OpClass c) const { return ctx_.counters.vecRepeats[static_cast<int>(c)]; }
  sim::CoreContext ctx_;
};

// The message of the sim::SimError f throws, or "" if it throws nothing.
inline std::string FailMessage(const std::function<void()>& f) {
  try {
    f();
  } catch (const sim::SimError& e) {
    return e.what();
  }
  return "";
}

// Value of a binary16 bit pattern, from the format definition.
inline double HalfValue(uint16_t bits) {
  int e = (bits >> 10) & 0x1f;
  int m = bits & 0x3ff;
  double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1024 + m, e - 25);
  return (bits & 0x8000) ? -v : v;
}

// x rounded to the nearest half, ties to even, then saturated (|x| > 65504 -> 65504, NaN -> 0):
// a binary search over the ordered positive finite encodings 0..0x7bff.
inline uint16_t RefHalfSat(double x) {
  if (std::isnan(x)) return 0;
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  double a = std::fabs(x);
  if (a >= 65504) return sign | 0x7bff;
  uint16_t lo = 0, hi = 0x7bff;  // HalfValue(lo) <= a < HalfValue(hi)
  while (hi - lo > 1) {
    uint16_t mid = static_cast<uint16_t>((lo + hi) / 2);
    (HalfValue(mid) <= a ? lo : hi) = mid;
  }
  double dl = a - HalfValue(lo), dh = HalfValue(hi) - a;
  uint16_t r = dl < dh ? lo : dh < dl ? hi : ((lo & 1) ? hi : lo);
  return sign | r;
}

inline uint16_t Bits(half h) { return h.bits; }
inline half H(double v) { return half::FromBits(RefHalfSat(v)); }

inline uint32_t FBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

}  // namespace vectest
