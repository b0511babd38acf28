// Simulator speed: host throughput of the count-form vector ops and of DataCopy GM->UB on one
// simulated core (one host thread). Prints a table; the numbers go in benchmarks/README.md.
// Not a test: nothing is asserted.
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "kernel_operator.h"

namespace {

using namespace AscendC;

constexpr uint32_t kElems = 16384;  // 64 KiB of float per operand: three operands fit the UB
constexpr int kCalls = 4000;

template <typename T>
LocalTensor<T> At(uint32_t addr, uint32_t elems) {
  LocalTensor<T> t;
  t.SimInit(addr, elems * sizeof(T), TPosition::VECCALC, -1, nullptr);
  return t;
}

// Runs body kCalls times after a warm-up and prints elements per second.
void Measure(const char* name, const std::function<void()>& body) {
  for (int i = 0; i < 50; ++i) body();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kCalls; ++i) body();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double rate = static_cast<double>(kElems) * kCalls / s;
  std::printf("| %-36s | %8u | %9.2f | %7.1f |\n", name, kElems, rate / 1e9, s / kCalls * 1e6);
}

}  // namespace

int main() {
  sim::CoreContext core;
  core.soc = &sim::CurrentSoc();
  core.ub.assign(core.soc->ubBytes, 0);
  sim::BindCore(&core);
  auto a = At<float>(0, kElems), b = At<float>(65536, kElems), d = At<float>(131072, kElems);
  for (uint32_t i = 0; i < kElems; ++i) {
    a.SimData()[i] = 0.001f * i;
    b.SimData()[i] = 1.0f + 0.0001f * i;
  }
  auto h = At<half>(131072, kElems);
  std::printf("| op (count form, one core)            | elements | G elem/s  | us/call |\n");
  std::printf("|--------------------------------------|----------|-----------|---------|\n");
  Measure("Add float", [&] { Add(d, a, b, kElems); });
  Measure("Mul float", [&] { Mul(d, a, b, kElems); });
  Measure("Muls float (in place)", [&] { Muls(a, a, 1.0f, kElems); });
  Measure("Cast float -> half CAST_RINT", [&] { Cast(h, a, RoundMode::CAST_RINT, kElems); });
  Measure("Cast float -> half CAST_ROUND", [&] { Cast(h, a, RoundMode::CAST_ROUND, kElems); });
  Measure("Cast half -> float CAST_NONE", [&] { Cast(b, h, RoundMode::CAST_NONE, kElems); });
  Measure("ReduceSum float", [&] { ReduceSum(d, a, d, kElems); });
  Measure("Add half", [&] { Add(h, h, h, kElems); });
  std::vector<float> gm(kElems, 1.0f);
  sim::gm::Register(gm.data(), gm.size() * sizeof(float));
  GlobalTensor<float> g;
  g.SetGlobalBuffer(gm.data(), kElems);
  Measure("DataCopy GM -> UB float", [&] { DataCopy(a, g, kElems); });
  sim::gm::Unregister(gm.data());
  sim::BindCore(nullptr);
  return 0;
}
