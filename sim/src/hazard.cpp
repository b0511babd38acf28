// The pipe-hazard tracker: vector clocks per pipe, last accesses per UB block, MTE3-written GM
// ranges per core (docs/hardware-rules.md §7).
#include "ascendc/hazard.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>

#include "ascendc/sync.h"

namespace sim {
namespace {

// Default when neither the setter nor NORMGRAD_SIM_HAZARDS says otherwise.
constexpr bool kDefaultOn = true;
// GM ranges kept per core; older unpruned ones are dropped (a missed hazard, never a false one).
constexpr size_t kMaxGmRanges = 256;
constexpr int kS = hazard::kPipes;  // the scalar pipe in event mappings (not tracked)

std::atomic<int> g_mode{static_cast<int>(HazardMode::kEnvironment)};
std::mutex g_poolMutex;
std::vector<std::unique_ptr<hazard::Tracker>> g_pool;

const char* const kPipeNames[] = {"V", "MTE2", "MTE3", "S"};

// Source and destination pipe of a vector-core HardEvent in the tracker's numbering (kV, kMte2, kMte3,
// kS); false for the others.
bool TrackerEventPipes(int event, int* src, int* dst) {
  auto tracker = [](int pipe) {
    return pipe == PIPE_V ? hazard::kV : pipe == PIPE_MTE2 ? hazard::kMte2 : pipe == PIPE_MTE3 ? hazard::kMte3 : kS;
  };
  int s = 0, d = 0;
  if (!EventPipes(event, &s, &d)) return false;
  *src = tracker(s);
  *dst = tracker(d);
  return true;
}

uint32_t InstrNumber(int pipe) {
  const CoreCounters& c = Core().counters;
  uint64_t n = pipe == hazard::kMte2 ? c.dmaIn : pipe == hazard::kMte3 ? c.dmaOut : c.vecInstr;
  return static_cast<uint32_t>(n);
}

unsigned long long U(uint64_t v) { return static_cast<unsigned long long>(v); }

}  // namespace

void SetHazardTracking(HazardMode mode) { g_mode = static_cast<int>(mode); }

bool HazardTrackingEnabled() {
  switch (static_cast<HazardMode>(g_mode.load())) {
    case HazardMode::kOn: return true;
    case HazardMode::kOff: return false;
    case HazardMode::kEnvironment: break;
  }
  const char* env = std::getenv("NORMGRAD_SIM_HAZARDS");
  if (env != nullptr && std::strcmp(env, "1") == 0) return true;
  if (env != nullptr && std::strcmp(env, "0") == 0) return false;
  return kDefaultOn;
}

namespace hazard {

Tracker* TakeTracker(uint32_t ubBytes) {
  std::unique_ptr<Tracker> t;
  {
    std::lock_guard<std::mutex> lock(g_poolMutex);
    for (size_t i = 0; i < g_pool.size(); ++i) {
      if (g_pool[i]->UbBytes() == ubBytes) {
        t = std::move(g_pool[i]);
        g_pool[i] = std::move(g_pool.back());
        g_pool.pop_back();
        break;
      }
    }
  }
  if (!t) t = std::make_unique<Tracker>(ubBytes);
  t->Reset();
  return t.release();
}

void ReturnTracker(Tracker* tracker) {
  std::unique_ptr<Tracker> t(tracker);
  std::lock_guard<std::mutex> lock(g_poolMutex);
  if (g_pool.size() < 64) g_pool.push_back(std::move(t));
}

void VecOperand(Tracker& t, const char* api, const char* name, uint32_t addr, uint64_t bytes) {
  if (std::strncmp(name, "dst", 3) == 0) {
    t.UbWrite(kV, api, addr, bytes);
  } else {
    t.UbRead(kV, api, addr, bytes);
  }
}

Tracker::Tracker(uint32_t ubBytes) : blockCount_((ubBytes + 31) / 32) { Reset(); }

void Tracker::Reset() {
  for (uint32_t& n : now_) n = 1;
  std::memset(clock_, 0, sizeof(clock_));
  std::memset(captured_, 0, sizeof(captured_));
  gmWrites_.clear();
  runs_.clear();
  runs_.push_back(Run{0, Block{}});
}

bool Tracker::Block::operator==(const Block& o) const {
  auto same = [](const Access& a, const Access& b) { return a.stamp == b.stamp && a.instr == b.instr && a.api == b.api; };
  if (writer != o.writer || !same(write, o.write)) return false;
  for (int p = 0; p < kPipes; ++p) {
    if (!same(read[p], o.read[p])) return false;
  }
  return true;
}

size_t Tracker::Find(uint32_t block) const {
  // Consecutive accesses mostly meet the same run (a loop over one buffer): try it first.
  // Then the run after it: Split(last + 1) right after Split(first) of a short access.
  if (hint_ < runs_.size() && runs_[hint_].first <= block) {
    if (block < RunEnd(hint_)) return hint_;
    if (hint_ + 1 < runs_.size() && block < RunEnd(hint_ + 1)) return ++hint_;
  }
  auto it = std::upper_bound(runs_.begin(), runs_.end(), block,
                             [](uint32_t b, const Run& r) { return b < r.first; });
  hint_ = static_cast<size_t>(it - runs_.begin()) - 1;
  return hint_;
}

size_t Tracker::Split(uint32_t at) {
  if (at >= blockCount_) return runs_.size();
  size_t i = Find(at);
  if (runs_[i].first == at) return i;
  Run piece{at, runs_[i].state};
  runs_.insert(runs_.begin() + static_cast<std::ptrdiff_t>(i + 1), piece);
  return i + 1;
}

void Tracker::Coalesce(size_t firstRun, uint32_t last) {
  size_t a = firstRun;
  if (a > 0) --a;
  for (size_t n = a + 1; n < runs_.size() && runs_[n].first <= last + 1; n = a + 1) {
    if (runs_[n].state == runs_[a].state) {
      runs_.erase(runs_.begin() + static_cast<std::ptrdiff_t>(n));
    } else {
      a = n;
    }
  }
}

Tracker::Access Tracker::Now(int pipe, const char* api) const { return Access{now_[pipe], InstrNumber(pipe), api}; }

void Tracker::FailUb(int q, const char* api, const char* kind, uint32_t first, uint32_t last, int p,
                     const Access& a, bool samePipe) const {
  uint32_t lo = first * 32, hi = (last + 1) * 32;
  if (samePipe) {
    Fail(api, "write-after-write hazard on UB [%u, %u): written by %s (%s, instruction #%u) with no "
         "PipeBarrier<PIPE_%s> since (two copies on one pipe with overlapping destinations may land out of order)",
         lo, hi, kPipeNames[p], a.api, a.instr, kPipeNames[p]);
  }
  // DMA instructions are numbered per pipe; vector ones by API only (their counter is bumped
  // before or after the operand checks depending on the form).
  char what[96];
  if (p == kV) {
    std::snprintf(what, sizeof(what), "%s", a.api);
  } else {
    std::snprintf(what, sizeof(what), "%s, instruction #%u", a.api, a.instr);
  }
  Fail(api, "%s hazard on UB [%u, %u): %s by %s (%s) with no %s_%s SetFlag/WaitFlag or PipeBarrier<PIPE_ALL> "
       "since (this access is on %s)",
       kind, lo, hi, std::strcmp(kind, "write-after-read") == 0 ? "read" : "written", kPipeNames[p], what,
       kPipeNames[p], kPipeNames[q], kPipeNames[q]);
}

void Tracker::UbRead(int q, const char* api, uint32_t addr, uint64_t bytes) {
  if (bytes == 0) return;
  uint32_t first = addr / 32, last = static_cast<uint32_t>(std::min<uint64_t>((addr + bytes - 1) / 32, blockCount_ - 1));
  if (first > last) return;  // outside the UB: the instruction's own checks report it
  Access now = Now(q, api);
  size_t begin = Split(first), stop = Split(last + 1);
  for (size_t r = begin; r != stop; ++r) {
    Block& b = runs_[r].state;
    if (b.writer >= 0 && b.writer != q && !Known(q, b.writer, b.write.stamp)) {
      // Name the whole stretch of that one write inside this access.
      uint32_t end = RunEnd(r) - 1;
      for (size_t n = r + 1;
           n != stop && runs_[n].state.writer == b.writer && runs_[n].state.write.stamp == b.write.stamp; ++n) {
        end = RunEnd(n) - 1;
      }
      FailUb(q, api, "read-after-write", runs_[r].first, end, b.writer, b.write, false);
    }
    b.read[q] = now;
  }
  Coalesce(begin, last);
}

void Tracker::UbWrite(int q, const char* api, uint32_t addr, uint64_t bytes) {
  if (bytes == 0) return;
  uint32_t first = addr / 32, last = static_cast<uint32_t>(std::min<uint64_t>((addr + bytes - 1) / 32, blockCount_ - 1));
  if (first > last) return;  // outside the UB: the instruction's own checks report it
  Access now = Now(q, api);
  size_t begin = Split(first), stop = Split(last + 1);
  for (size_t r = begin; r != stop; ++r) {
    const Block& b = runs_[r].state;
    uint32_t i = runs_[r].first;  // every block of a run has the same state: its first one fails first
    bool unordered = b.writer >= 0 && !Known(q, b.writer, b.write.stamp);
    if (unordered && b.writer != q) FailUb(q, api, "write-after-write", i, i, b.writer, b.write, false);
    for (int p = 0; p < kPipes; ++p) {
      if (p != q && !Known(q, p, b.read[p].stamp)) FailUb(q, api, "write-after-read", i, i, p, b.read[p], false);
    }
    // Same-pipe writes are ordered on V (auto-sync), not on the DMA pipes (§5.1).
    if (unordered && q != kV) FailUb(q, api, "write-after-write", i, i, b.writer, b.write, true);
  }
  Block written;
  written.writer = static_cast<int8_t>(q);
  written.write = now;
  runs_[begin].state = written;
  runs_.erase(runs_.begin() + static_cast<std::ptrdiff_t>(begin + 1), runs_.begin() + static_cast<std::ptrdiff_t>(stop));
  Coalesce(begin, last);
}

uint64_t Tracker::GmWriteRange::FirstRowHitting(uintptr_t a, uintptr_t b) const {
  if (b <= begin || end <= a) return rows;
  uint64_t k = a >= begin + rowBytes ? (a - begin - rowBytes) / pitch + 1 : 0;
  return k < rows && begin + k * pitch < b ? k : rows;
}

void Tracker::GmRead(const char* api, const void* gm, uint32_t rows, uint64_t rowBytes, uint64_t pitch) {
  if (rows == 0 || rowBytes == 0 || gmWrites_.empty()) return;
  uintptr_t base = reinterpret_cast<uintptr_t>(gm);
  for (const GmWriteRange& w : gmWrites_) {
    if (Known(kMte2, kMte3, w.write.stamp)) continue;
    for (uint32_t i = 0; i < rows; ++i) {
      uintptr_t a = base + i * pitch, b = a + rowBytes;
      uint64_t k = w.FirstRowHitting(a, b);
      if (k == w.rows) continue;
      uintptr_t lo = std::max(a, w.begin + k * w.pitch), hi = std::min(b, w.begin + k * w.pitch + w.rowBytes);
      Fail(api, "read-after-write hazard on GM [%p, +%llu bytes): written by this core's MTE3 (%s, instruction #%u) "
           "with no MTE3_MTE2 SetFlag/WaitFlag, PipeBarrier<PIPE_ALL> or SyncAll since",
           reinterpret_cast<void*>(lo), U(hi - lo), w.write.api, w.write.instr);
    }
  }
}

void Tracker::GmWrite(const char* api, const void* gm, uint32_t rows, uint64_t rowBytes, uint64_t pitch,
                      const uint8_t* ub, uint64_t ubPitch, bool atomic) {
  if (rows == 0 || rowBytes == 0) return;
  if (pitch == rowBytes && rows > 1 && (ub == nullptr || ubPitch == rowBytes)) {
    rowBytes *= rows;  // one contiguous run
    pitch = rowBytes;
    rows = 1;
  }
  uintptr_t base = reinterpret_cast<uintptr_t>(gm);
  for (const GmWriteRange& w : gmWrites_) {
    // Atomic adds commute with each other; a plain store may be overtaken by a later one (§5.5).
    if ((atomic && w.atomic) || Known(kMte3, kMte3, w.write.stamp)) continue;
    for (uint32_t i = 0; i < rows; ++i) {
      uintptr_t a = base + i * pitch, b = a + rowBytes;
      for (uint64_t k = w.FirstRowHitting(a, b); k < w.rows && w.begin + k * w.pitch < b; ++k) {
        uintptr_t lo = std::max(a, w.begin + k * w.pitch), hi = std::min(b, w.begin + k * w.pitch + w.rowBytes);
        if (lo >= hi) continue;
        // Rewriting bytes with the values they already hold is safe in either landing order.
        if (!atomic && ub != nullptr &&
            std::memcmp(ub + i * ubPitch + (lo - a), reinterpret_cast<const void*>(lo), hi - lo) == 0) {
          continue;
        }
        Fail(api, "write-after-write hazard on GM [%p, +%llu bytes): written by this core's MTE3 (%s, instruction "
             "#%u) with no PipeBarrier<PIPE_MTE3> since (two copies on one pipe with overlapping destinations may "
             "land out of order)", reinterpret_cast<void*>(lo), U(hi - lo), w.write.api, w.write.instr);
      }
    }
  }
  if (gmWrites_.size() >= 16) PruneGm();
  Access now = Now(kMte3, api);
  uintptr_t end = base + (rows - 1) * pitch + rowBytes;
  if (!gmWrites_.empty() && rows == 1) {
    GmWriteRange& back = gmWrites_.back();
    if (back.rows == 1 && back.end == base && back.atomic == atomic && back.write.stamp == now.stamp) {
      back.end = end;
      back.rowBytes = back.pitch = end - back.begin;
      return;
    }
  }
  if (gmWrites_.size() >= kMaxGmRanges) gmWrites_.erase(gmWrites_.begin());
  gmWrites_.push_back(GmWriteRange{base, end, rows, rowBytes, pitch, now, atomic});
}

void Tracker::PruneGm() {
  uint32_t safe = std::min(clock_[kMte2][kMte3], clock_[kMte3][kMte3]);
  gmWrites_.erase(std::remove_if(gmWrites_.begin(), gmWrites_.end(),
                                 [safe](const GmWriteRange& w) { return w.write.stamp <= safe; }),
                  gmWrites_.end());
}

void Tracker::ScalarWaits(int p, uint32_t stamp) {
  bool known = true;
  for (int q = 0; q < kPipes; ++q) known = known && Known(q, p, stamp);
  if (known) return;
  uint32_t cap[kPipes];
  for (int r = 0; r < kPipes; ++r) cap[r] = clock_[p][r];
  cap[p] = now_[p]++;
  for (int q = 0; q < kPipes; ++q) {
    for (int r = 0; r < kPipes; ++r) clock_[q][r] = std::max(clock_[q][r], cap[r]);
  }
}

void Tracker::ScalarUb(uint32_t addr, bool write) {
  const Block& b = runs_[Find(std::min(addr / 32, blockCount_ - 1))].state;
  if (b.writer >= 0) ScalarWaits(b.writer, b.write.stamp);
  if (write) {
    for (int r = 0; r < kPipes; ++r) {
      if (b.read[r].stamp != 0) ScalarWaits(r, b.read[r].stamp);
    }
  }
}

void Tracker::SetFlag(int event, int id) {
  int src, dst;
  if (!TrackerEventPipes(event, &src, &dst)) return;
  uint32_t* cap = captured_[event][id];
  if (src == kS) {
    // The scalar pipe's own knowledge is already every pipe's (see WaitFlag).
    std::memset(cap, 0, sizeof(captured_[event][id]));
    return;
  }
  // The flag is set once every earlier instruction of src finished: it carries what src knew.
  for (int p = 0; p < kPipes; ++p) cap[p] = clock_[src][p];
  cap[src] = now_[src]++;
}

void Tracker::WaitFlag(int event, int id) {
  int src, dst;
  if (!TrackerEventPipes(event, &src, &dst)) return;
  const uint32_t* cap = captured_[event][id];
  // A wait on PIPE_S stalls the scalar unit, which issues every later instruction of every pipe.
  int lo = dst == kS ? 0 : dst, hi = dst == kS ? kPipes : dst + 1;
  for (int q = lo; q < hi; ++q) {
    for (int p = 0; p < kPipes; ++p) clock_[q][p] = std::max(clock_[q][p], cap[p]);
  }
}

void Tracker::PipeBarrier(int pipe) {
  int p = pipe == PIPE_V ? kV : pipe == PIPE_MTE2 ? kMte2 : pipe == PIPE_MTE3 ? kMte3 : -1;
  if (pipe == PIPE_ALL) {
    FullBarrier();
  } else if (p >= 0) {
    clock_[p][p] = now_[p]++;
  }
}

void Tracker::FullBarrier() {
  for (int q = 0; q < kPipes; ++q) {
    for (int p = 0; p < kPipes; ++p) clock_[q][p] = now_[p];
  }
  for (uint32_t& n : now_) ++n;
  gmWrites_.clear();
}

}  // namespace hazard
}  // namespace sim
