// Error reporting, the per-thread core context, and the global-memory allocation registry.
#include "ascendc/core.h"

#include "ascendc/isa_issue.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>

#include "gm_view.h"

namespace sim {
namespace detail {

thread_local CoreContext* t_core = nullptr;

void NoCoreBound() { throw SimError("Ascend C API called outside a kernel launch"); }

}  // namespace detail

namespace {

using detail::t_core;

std::string Format(const char* fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string s(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(&s[0], s.size() + 1, fmt, ap);
  return s;
}

std::string Prefix(const char* api) {
  std::string p;
  if (t_core != nullptr) p = "core " + std::to_string(t_core->blockIdx) + ": ";
  return p + api + ": ";
}

}  // namespace

void Fail(const char* api, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string msg = Prefix(api) + Format(fmt, ap);
  va_end(ap);
  throw SimError(msg);
}

void Warn(const char* api, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string msg = Prefix(api) + Format(fmt, ap);
  va_end(ap);
  if (t_core != nullptr) {
    for (const std::string& w : t_core->warnings) {
      if (w == msg) return;
    }
    t_core->warnings.push_back(msg);
  } else {
    std::fprintf(stderr, "normgrad sim warning: %s\n", msg.c_str());
  }
}

bool InKernel() { return t_core != nullptr; }

// Installs the context for the calling thread (launch.cpp owns the lifetime).
void BindCore(CoreContext* ctx) {
  t_core = ctx;
  if (ctx != nullptr) vec::BindModelCore(*ctx);  // a fresh model core on this core's UB
}

namespace gm {
namespace {

struct Region {
  uint64_t bytes;
  uint64_t serial;  // never reused in the process (g_lastSerial)
  bool readOnly;
  std::shared_ptr<const StridedSource> view;  // a view region (RegisterView), else null
};
std::shared_mutex g_mutex;
std::map<uintptr_t, Region> g_regions;  // base -> region
uint64_t g_lastSerial = 0;              // under g_mutex
std::atomic<int> g_views{0};           // live view regions: Read is a plain memcpy while 0

// The region holding [a, a + bytes), or nullptr. Caller holds g_mutex.
const std::pair<const uintptr_t, Region>* Find(uintptr_t a, uint64_t bytes) {
  auto it = g_regions.upper_bound(a);
  if (it == g_regions.begin()) return nullptr;
  --it;
  return a >= it->first && a + bytes <= it->first + it->second.bytes ? &*it : nullptr;
}

}  // namespace

void Register(const void* base, uint64_t bytes, bool readOnly) {
  std::unique_lock<std::shared_mutex> lock(g_mutex);
  g_regions[reinterpret_cast<uintptr_t>(base)] = Region{bytes, ++g_lastSerial, readOnly, nullptr};
}

void Unregister(const void* base) {
  std::unique_lock<std::shared_mutex> lock(g_mutex);
  g_regions.erase(reinterpret_cast<uintptr_t>(base));
}

bool IsRegistered(const void* base) {
  std::shared_lock<std::shared_mutex> lock(g_mutex);
  return g_regions.count(reinterpret_cast<uintptr_t>(base)) != 0;
}

void CheckRange(const char* api, const void* p, uint64_t bytes, bool isWrite) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  bool readOnly = false;
  {
    std::shared_lock<std::shared_mutex> lock(g_mutex);
    if (const auto* r = Find(a, bytes)) {
      if (!isWrite || !r->second.readOnly) return;
      readOnly = true;
    }
  }
  if (readOnly) {
    Fail(api, "global-memory write of %llu bytes at %p into a read-only input (registered host memory or a "
         "broadcast view): kernels must not write their inputs", static_cast<unsigned long long>(bytes), p);
  }
  Fail(api, "global-memory %s of %llu bytes at %p is outside every device allocation",
       isWrite ? "write" : "read", static_cast<unsigned long long>(bytes), p);
}

bool FindAllocation(const void* p, uintptr_t* base, uint64_t* bytes, uint64_t* serial) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::shared_lock<std::shared_mutex> lock(g_mutex);
  auto it = g_regions.upper_bound(a);
  if (it == g_regions.begin()) return false;
  --it;
  if (a >= it->first + std::max<uint64_t>(it->second.bytes, 1)) return false;
  *base = it->first;
  *bytes = it->second.bytes;
  if (serial != nullptr) *serial = it->second.serial;
  return true;
}

void* RegisterView(const StridedSource& src) {
  uint64_t bytes = src.elemBytes;
  for (int64_t n : src.shape) bytes *= static_cast<uint64_t>(n);
  if (bytes == 0) return nullptr;
  void* base = ReserveAddressSpace(bytes);
  if (base == nullptr) return nullptr;
  std::unique_lock<std::shared_mutex> lock(g_mutex);
  g_regions[reinterpret_cast<uintptr_t>(base)] =
      Region{bytes, ++g_lastSerial, true, std::make_shared<const StridedSource>(src)};
  ++g_views;
  return base;
}

void UnregisterView(void* base) {
  uint64_t bytes = 0;
  {
    std::unique_lock<std::shared_mutex> lock(g_mutex);
    auto it = g_regions.find(reinterpret_cast<uintptr_t>(base));
    if (it == g_regions.end() || it->second.view == nullptr) return;
    bytes = it->second.bytes;
    g_regions.erase(it);
    --g_views;
  }
  ReleaseAddressSpace(base, bytes);
}

void Read(void* dst, const void* src, uint64_t bytes) {
  if (g_views.load(std::memory_order_relaxed) != 0) {
    uintptr_t a = reinterpret_cast<uintptr_t>(src);
    std::shared_ptr<const StridedSource> view;
    uintptr_t base = 0;
    {
      std::shared_lock<std::shared_mutex> lock(g_mutex);
      if (const auto* r = Find(a, bytes)) {
        view = r->second.view;
        base = r->first;
      }
    }
    if (view != nullptr) return ReadStrided(*view, a - base, static_cast<uint8_t*>(dst), bytes);
  }
  std::memcpy(dst, src, bytes);
}

}  // namespace gm
}  // namespace sim
