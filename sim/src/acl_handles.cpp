// The handle table of aclTensor, aclIntArray and aclBoolArray (simhost/acl_handles.h).
//
// Handles are addresses in one PROT_NONE reservation made at the first creation, split into a
// range per kind: handle = range base + 8 * serial, serials counted per kind from 1. From the
// address alone the table tells the kind and whether the serial was ever issued; the map holds
// the live objects. Dereferencing a handle faults, as it should: only this file reads objects.
// The reservation is address space only (no memory is committed); 2^38 bytes per kind give 2^35
// handles per kind per process, far more than any program makes. Where the address space is
// limited (ulimit -v), a smaller range is taken.
#include "simhost/acl_handles.h"

#include <sys/mman.h>

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <variant>

#include "acl_checks.h"
#include "ascendc/core.h"

namespace normgrad_sim {
namespace {

constexpr aclError kInvalid = 161002;  // ACLNN_ERR_PARAM_INVALID
constexpr uint64_t kStride = 8;        // handles look like (aligned) object pointers

enum Kind : int { kTensor = 0, kIntArray = 1, kBoolArray = 2, kKinds = 3 };

struct KindNames {
  const char* type;
  const char* create;
  const char* destroy;
};
constexpr KindNames kNames[kKinds] = {{"aclTensor", "aclCreateTensor", "aclDestroyTensor"},
                                      {"aclIntArray", "aclCreateIntArray", "aclDestroyIntArray"},
                                      {"aclBoolArray", "aclCreateBoolArray", "aclDestroyBoolArray"}};

// Alternative i is the object of Kind i.
using Object = std::variant<TensorInfo, std::vector<int64_t>, std::vector<bool>>;

struct Space {
  uintptr_t base = 0;
  uint64_t perKind = 0;  // bytes of each kind's range; 0: nothing could be reserved
};

const Space& HandleSpace() {
  static const Space space = [] {
    for (uint64_t per = uint64_t{1} << 38; per >= (uint64_t{1} << 16); per >>= 1) {
      void* p = mmap(nullptr, per * kKinds, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p != MAP_FAILED) return Space{reinterpret_cast<uintptr_t>(p), per};
    }
    return Space{};
  }();
  return space;
}

std::mutex g_mutex;
uint64_t g_lastSerial[kKinds] = {0, 0, 0};   // under g_mutex
std::unordered_map<uintptr_t, Object> g_live;  // under g_mutex

// What a handle is, under g_mutex.
enum class State { kNull, kLive, kDestroyed, kForeign };
struct Classified {
  State state = State::kForeign;
  int kind = -1;  // valid unless kNull or kForeign
  std::unordered_map<uintptr_t, Object>::iterator live;
};

Classified Classify(const void* handle) {
  Classified c;
  if (handle == nullptr) {
    c.state = State::kNull;
    return c;
  }
  const Space& space = HandleSpace();
  const uintptr_t h = reinterpret_cast<uintptr_t>(handle);
  if (space.perKind == 0 || h < space.base || h - space.base >= space.perKind * kKinds) return c;
  const uint64_t rel = h - space.base;
  const int kind = static_cast<int>(rel / space.perKind);
  const uint64_t inKind = rel % space.perKind;
  if (inKind % kStride != 0 || inKind == 0 || inKind / kStride > g_lastSerial[kind]) return c;
  c.kind = kind;
  c.live = g_live.find(h);
  c.state = c.live != g_live.end() ? State::kLive : State::kDestroyed;
  return c;
}

std::string Format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return buf;
}

// Why handle (classified as c) is not a live object of kind `want`; "" if it is.
std::string Problem(const void* handle, const Classified& c, int want) {
  const char* type = kNames[want].type;
  switch (c.state) {
    case State::kNull:
      return "is null";
    case State::kForeign:
      return Format("(%p) is not an %s made by %s", handle, type, kNames[want].create);
    case State::kDestroyed:
      if (c.kind == want) {
        return Format("(%s %p) was destroyed (%s) before this call", type, handle, kNames[want].destroy);
      }
      return Format("(%p) is a destroyed %s, not an %s", handle, kNames[c.kind].type, type);
    case State::kLive:
      if (c.kind == want) return "";
      return Format("(%p) is an %s, not an %s", handle, kNames[c.kind].type, type);
  }
  return "is not a handle";
}

void* Add(const char* api, int kind, Object object) {
  const Space& space = HandleSpace();
  std::lock_guard<std::mutex> lock(g_mutex);
  if (space.perKind == 0 || (g_lastSerial[kind] + 1) * kStride >= space.perKind) {
    AclFail(kInvalid, api, "no %s handle is left: %" PRIu64 " were made in this process, the most the simulator's "
            "reserved handle range holds", kNames[kind].type, g_lastSerial[kind]);
    return nullptr;
  }
  const uintptr_t h = space.base + kind * space.perKind + (g_lastSerial[kind] + 1) * kStride;
  g_live.emplace(h, std::move(object));  // may throw: the serial is taken only once it is stored
  ++g_lastSerial[kind];
  return reinterpret_cast<void*>(h);
}

template <typename T>
std::string Find(const void* handle, int kind, T* out) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Classified c = Classify(handle);
  std::string why = Problem(handle, c, kind);
  if (why.empty()) *out = std::get<T>(c.live->second);
  return why;
}

std::string Remove(const void* handle, int kind) {
  if (handle == nullptr) return "";
  Object dead;  // destroyed after the lock is released
  std::lock_guard<std::mutex> lock(g_mutex);
  Classified c = Classify(handle);
  std::string why = Problem(handle, c, kind);
  if (why.empty()) {
    dead = std::move(c.live->second);
    g_live.erase(c.live);
  }
  return why;
}

}  // namespace

aclTensor* AddTensor(const char* api, TensorInfo info) {
  return static_cast<aclTensor*>(Add(api, kTensor, std::move(info)));
}
aclIntArray* AddIntArray(const char* api, std::vector<int64_t> values) {
  return static_cast<aclIntArray*>(Add(api, kIntArray, std::move(values)));
}
aclBoolArray* AddBoolArray(const char* api, std::vector<bool> values) {
  return static_cast<aclBoolArray*>(Add(api, kBoolArray, std::move(values)));
}

std::string FindTensor(const aclTensor* handle, TensorInfo* out) { return Find(handle, kTensor, out); }
std::string FindIntArray(const aclIntArray* handle, std::vector<int64_t>* out) { return Find(handle, kIntArray, out); }
std::string FindBoolArray(const aclBoolArray* handle, std::vector<bool>* out) { return Find(handle, kBoolArray, out); }

std::string RemoveTensor(const aclTensor* handle) { return Remove(handle, kTensor); }
std::string RemoveIntArray(const aclIntArray* handle) { return Remove(handle, kIntArray); }
std::string RemoveBoolArray(const aclBoolArray* handle) { return Remove(handle, kBoolArray); }

std::string StorageProblem(const void* data, uint64_t serial) {
  if (serial == 0) return "";
  uintptr_t base = 0;
  uint64_t size = 0, now = 0;
  if (!sim::gm::FindAllocation(data, &base, &size, &now)) {
    return Format("storage %p was freed (aclrtFree) after aclCreateTensor", data);
  }
  if (now != serial) {
    return Format("storage %p was freed (aclrtFree) after aclCreateTensor, and its address handed out again by a "
                  "later allocation", data);
  }
  return "";
}

}  // namespace normgrad_sim
