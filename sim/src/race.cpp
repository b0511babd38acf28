// Cross-core GM race detection (ascendc/race.h): per-core access records with vector clocks,
// and the check after the launch that sweeps them in address order.
#include "ascendc/race.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <utility>

namespace sim {
namespace {

constexpr bool kDefaultOn = true;
// Strided accesses with more rows than this are kept as one record (checked row by row only
// against the accesses their bounding box meets); fewer rows are split into one item per row.
constexpr uint64_t kMaxSplitRows = 256;

std::atomic<int> g_mode{static_cast<int>(RaceMode::kEnvironment)};

// The recorder pool (TakeRecorder/ReturnRecorder) and the bytes its buffers hold.
constexpr uint64_t kMaxPooledBytes = 512ull << 20;
std::mutex g_poolMutex;
std::vector<race::Recorder> g_pool;
uint64_t g_pooledBytes = 0;

const char* Verb(race::Kind k) { return k == race::kRead ? "reads" : k == race::kWrite ? "writes" : "atomically adds to"; }

}  // namespace

void SetRaceDetection(RaceMode mode) { g_mode = static_cast<int>(mode); }

bool RaceDetectionEnabled() {
  switch (static_cast<RaceMode>(g_mode.load())) {
    case RaceMode::kOn: return true;
    case RaceMode::kOff: return false;
    case RaceMode::kEnvironment: break;
  }
  const char* env = std::getenv("NORMGRAD_SIM_RACES");
  if (env != nullptr && std::strcmp(env, "1") == 0) return true;
  if (env != nullptr && std::strcmp(env, "0") == 0) return false;
  return kDefaultOn;
}

namespace race {

ShadowBytes::ShadowBytes(ShadowBytes&& o) noexcept : data_(o.data_), size_(o.size_), capacity_(o.capacity_) {
  o.data_ = nullptr;
  o.size_ = o.capacity_ = 0;
}

ShadowBytes& ShadowBytes::operator=(ShadowBytes&& o) noexcept {
  std::swap(data_, o.data_);  // o unmaps what this held
  std::swap(size_, o.size_);
  std::swap(capacity_, o.capacity_);
  return *this;
}

ShadowBytes::~ShadowBytes() {
  if (data_ != nullptr) munmap(data_, capacity_);
}

uint8_t* ShadowBytes::Append(const uint8_t* src, uint64_t n) {
  if (size_ + n > capacity_) {
    constexpr uint64_t kPage = 4096, kMin = uint64_t{1} << 20;
    uint64_t want = std::max({capacity_ * 2, size_ + n, kMin});
    want = (want + kPage - 1) / kPage * kPage;
    void* p = data_ == nullptr
                  ? mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                  : mremap(data_, capacity_, want, MREMAP_MAYMOVE);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<uint8_t*>(p);
    capacity_ = want;
  }
  uint8_t* at = data_ + size_;
  if (src != nullptr) std::memcpy(at, src, n);
  size_ += n;
  return at;
}

Recorder TakeRecorder() {
  std::lock_guard<std::mutex> lock(g_poolMutex);
  if (g_pool.empty()) return Recorder();
  Recorder r = std::move(g_pool.back());
  g_pool.pop_back();
  g_pooledBytes -= r.KeptBytes();
  return r;
}

void ReturnRecorder(Recorder&& r) {
  std::lock_guard<std::mutex> lock(g_poolMutex);
  if (g_pooledBytes + r.KeptBytes() > kMaxPooledBytes) return;  // freed with r
  g_pooledBytes += r.KeptBytes();
  g_pool.push_back(std::move(r));
}

void Recorder::Reset(int core, const std::vector<uint32_t>& clock) {
  core_ = core;
  accesses_.clear();
  shadow_.Clear();
  segments_.assign(1, clock);
}

void Recorder::NewSegment(const std::vector<uint32_t>& clock) {
  if (segments_.back() == clock) return;
  bool used = !accesses_.empty() && accesses_.back().segment + 1 == segments_.size();
  if (used) {
    segments_.push_back(clock);
  } else {
    segments_.back() = clock;  // nothing was recorded under the previous clock
  }
}

void Recorder::Add(Kind kind, const char* api, const void* gm, uint64_t rows, uint64_t rowBytes, uint64_t pitch,
                   const uint8_t* data, uint64_t dataPitch) {
  if (rows == 0 || rowBytes == 0) return;
  if (kind == kRead) data = nullptr;
  auto keep = [&](uint8_t* out) {  // copies the stored bytes, row by row
    for (uint64_t i = 0; i < rows; ++i) std::memcpy(out + i * rowBytes, data + i * dataPitch, rowBytes);
  };
  if (data != nullptr && (rows == 1 || dataPitch == rowBytes)) dataPitch = rowBytes;
  if (rows == 1 || pitch == rowBytes) {  // one contiguous run
    if (data != nullptr && dataPitch != rowBytes) {  // gather the rows first so the run's bytes are contiguous
      std::unique_ptr<uint8_t[]> tmp(new uint8_t[rows * rowBytes]);  // uninitialised: keep() fills it
      keep(tmp.get());
      return Add(kind, api, gm, 1, rows * rowBytes, rows * rowBytes, tmp.get(), rows * rowBytes);
    }
    rowBytes *= rows;
    rows = 1;
    pitch = rowBytes;
  }
  uintptr_t begin = reinterpret_cast<uintptr_t>(gm);
  uint32_t segment = static_cast<uint32_t>(segments_.size() - 1);
  // Streams (a core walking a tensor tile by tile) and repeated reads (a scalar read of the same
  // element in every iteration) extend or repeat the previous record instead of adding one.
  if (rows == 1 && !accesses_.empty()) {
    Access& last = accesses_.back();
    if (last.rows == 1 && last.segment == segment && last.kind == kind && last.api == api) {
      uintptr_t end = begin + rowBytes;
      bool shadowed = (last.shadow != kNoShadow) == (data != nullptr);
      if (shadowed && begin >= last.begin && end <= last.End()) {
        uint8_t* kept = data != nullptr ? shadow_.data() + last.shadow + (begin - last.begin) : nullptr;
        if (kept != nullptr && kind == kWrite) std::memcpy(kept, data, rowBytes);  // the later bytes supersede
        if (kept != nullptr && kind == kAtomic) {  // the adds accumulate: keep "was any byte non-zero"
          for (uint64_t k = 0; k < rowBytes; ++k) kept[k] |= data[k];
        }
        return;
      }
      if (shadowed && begin == last.End() && (data == nullptr || last.shadow + last.rowBytes == shadow_.size())) {
        if (data != nullptr) shadow_.Append(data, rowBytes);
        last.rowBytes += rowBytes;
        last.pitch = last.rowBytes;
        return;
      }
    }
  }
  uint64_t shadow = kNoShadow;
  if (data != nullptr && rows == 1) {
    shadow = shadow_.size();
    shadow_.Append(data, rowBytes);
  } else if (data != nullptr) {
    shadow = shadow_.size();
    keep(shadow_.Append(nullptr, rows * rowBytes));
  }
  // Fields stored in place: a temporary copied in whole stalled on store forwarding.
  Access& x = accesses_.emplace_back();
  x.begin = begin;
  x.rows = rows;
  x.rowBytes = rowBytes;
  x.pitch = rows == 1 ? rowBytes : pitch;
  x.segment = segment;
  x.kind = kind;
  x.api = api;
  x.shadow = shadow;
}

namespace {

// One sweep item: a whole record or one row of a split strided record.
struct Item {
  uintptr_t begin, end;
  const Recorder* core;
  uint32_t index;  // into core->accesses()
  uint64_t row;    // the row, or UINT64_MAX for a whole record
};
constexpr size_t kMaxKeptItems = size_t{1} << 22;  // 160 MB of items

// A before B if B's core knew A's epoch when B happened.
bool Before(const Recorder& a, const Recorder::Access& x, const Recorder& b, const Recorder::Access& y) {
  size_t ca = static_cast<size_t>(a.core());
  uint32_t epoch = a.segments()[x.segment][ca];
  return b.segments()[y.segment][ca] >= epoch;
}

// The bytes of item i inside [lo, hi) as a run list: for a row item its run, for a whole strided
// record the rows meeting [lo, hi). Calls f(runBegin, runEnd) until it returns true.
template <typename F>
bool ForEachRun(const Item& it, uintptr_t lo, uintptr_t hi, F f) {
  const Recorder::Access& x = it.core->accesses()[it.index];
  if (it.row != UINT64_MAX || x.rows == 1) return f(it.begin, it.end);
  uint64_t first = 0;
  if (lo > x.begin + x.rowBytes) first = (lo - x.begin - x.rowBytes) / x.pitch + 1;
  for (uint64_t r = first; r < x.rows; ++r) {
    uintptr_t b = x.begin + r * x.pitch;
    if (b >= hi) break;
    if (f(b, b + x.rowBytes)) return true;
  }
  return false;
}

// An atomic add of zero bytes over [l, h) leaves memory as it was (x + 0 == x; only -0.0 becomes
// +0.0), so it conflicts with nothing there: the padding of a block-rounded atomic store.
bool AddsZeros(const Item& i, const Recorder::Access& a, uintptr_t l, uintptr_t h) {
  if (a.kind != kAtomic || a.shadow == Recorder::kNoShadow) return false;
  const uint8_t* p = i.core->ShadowAt(a, l);
  for (uintptr_t k = 0; k < h - l; ++k) {
    if (p[k] != 0) return false;
  }
  return true;
}

// The first byte range both items touch, if any; with sameBytesOk, only ranges where both are plain
// writes of different bytes count (identical stores leave the same memory in either order).
bool Overlap(const Item& a, const Item& b, bool sameBytesOk, uintptr_t* lo, uintptr_t* hi) {
  const Recorder::Access& x = a.core->accesses()[a.index];
  const Recorder::Access& y = b.core->accesses()[b.index];
  uintptr_t boxLo = std::max(a.begin, b.begin), boxHi = std::min(a.end, b.end);
  if (boxLo >= boxHi) return false;
  return ForEachRun(a, boxLo, boxHi, [&](uintptr_t a0, uintptr_t a1) {
    return ForEachRun(b, std::max(a0, boxLo), std::min(a1, boxHi), [&](uintptr_t b0, uintptr_t b1) {
      uintptr_t l = std::max(a0, b0), h = std::min(a1, b1);
      if (l >= h) return false;
      if (sameBytesOk && std::memcmp(a.core->ShadowAt(x, l), b.core->ShadowAt(y, l), h - l) == 0) return false;
      if (AddsZeros(a, x, l, h) || AddsZeros(b, y, l, h)) return false;
      *lo = l;
      *hi = h;
      return true;
    });
  });
}

std::string Describe(const Item& first, const Item& second, uintptr_t lo, uintptr_t hi) {
  const Recorder::Access& x = first.core->accesses()[first.index];
  const Recorder::Access& y = second.core->accesses()[second.index];
  char where[160];
  uintptr_t base = 0;
  uint64_t bytes = 0;
  if (gm::FindAllocation(reinterpret_cast<const void*>(lo), &base, &bytes)) {
    std::snprintf(where, sizeof(where), "bytes [%" PRIu64 ", %" PRIu64 ") of the %" PRIu64 "-byte GM allocation at %p",
                  static_cast<uint64_t>(lo - base), static_cast<uint64_t>(hi - base), bytes,
                  reinterpret_cast<const void*>(base));
  } else {
    std::snprintf(where, sizeof(where), "GM bytes [%p, %p)", reinterpret_cast<const void*>(lo),
                  reinterpret_cast<const void*>(hi));
  }
  return "core " + std::to_string(first.core->core()) + ": " + x.api + ": cross-core GM race: core " +
         std::to_string(first.core->core()) + " " + Verb(x.kind) + " " + where + " (" + x.api + ") and core " +
         std::to_string(second.core->core()) + " " + Verb(y.kind) + " them (" + y.api +
         ") with no synchronisation ordering the two (SyncAll, CrossCoreSetFlag/CrossCoreWaitFlag, IBSet/IBWait "
         "or NotifyNextBlock/WaitPreBlock)";
}

}  // namespace

std::string FindRace(const std::vector<const Recorder*>& cores) {
  // Kept per launching thread: a large launch sweeps hundreds of thousands of items, and a fresh
  // vector page-faulted its memory in at every launch. Dropped when it grew past kMaxKeptItems.
  static thread_local std::vector<Item> items;
  items.clear();
  struct Trim {
    ~Trim() {
      if (items.capacity() > kMaxKeptItems) std::vector<Item>().swap(items);
    }
  } trim;
  for (const Recorder* r : cores) {
    const auto& acc = r->accesses();
    for (uint32_t i = 0; i < acc.size(); ++i) {
      const Recorder::Access& x = acc[i];
      if (x.rows > 1 && x.rows <= kMaxSplitRows) {
        for (uint64_t row = 0; row < x.rows; ++row) {
          uintptr_t b = x.begin + row * x.pitch;
          items.push_back(Item{b, b + x.rowBytes, r, i, row});
        }
      } else {
        items.push_back(Item{x.begin, x.End(), r, i, UINT64_MAX});
      }
    }
  }
  // Address order, then core and program order: the first race found is the same on every run.
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    if (a.core->core() != b.core->core()) return a.core->core() < b.core->core();
    if (a.index != b.index) return a.index < b.index;
    return a.row < b.row;
  });
  std::vector<const Item*> reads, writes;  // items whose range may still meet later ones
  auto expire = [](std::vector<const Item*>& v, uintptr_t at) {
    v.erase(std::remove_if(v.begin(), v.end(), [at](const Item* p) { return p->end <= at; }), v.end());
  };
  for (const Item& it : items) {
    expire(reads, it.begin);
    expire(writes, it.begin);
    const Recorder::Access& x = it.core->accesses()[it.index];
    auto conflicts = [&](const std::vector<const Item*>& active) -> std::string {
      for (const Item* other : active) {
        if (other->core == it.core) continue;
        const Recorder::Access& y = other->core->accesses()[other->index];
        if (x.kind == kAtomic && y.kind == kAtomic) continue;
        if (Before(*other->core, y, *it.core, x) || Before(*it.core, x, *other->core, y)) continue;
        uintptr_t lo = 0, hi = 0;
        bool sameBytesOk = x.shadow != Recorder::kNoShadow && y.shadow != Recorder::kNoShadow;
        if (!Overlap(*other, it, sameBytesOk, &lo, &hi)) continue;
        // Name the lower core first so the message does not depend on the sweep order.
        return other->core->core() < it.core->core() ? Describe(*other, it, lo, hi) : Describe(it, *other, lo, hi);
      }
      return std::string();
    };
    std::string race = conflicts(writes);
    if (race.empty() && x.kind != kRead) race = conflicts(reads);
    if (!race.empty()) return race;
    (x.kind == kRead ? reads : writes).push_back(&it);
  }
  return std::string();
}

}  // namespace race
}  // namespace sim
