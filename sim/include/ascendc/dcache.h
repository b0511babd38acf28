// The core's scalar data cache (DCache) as the cost model sees it: it decides which scalar GM
// accesses (GlobalTensor GetValue/SetValue) reach global memory and how many bytes they move.
// It holds no data (GM is host memory, read and written directly); it only tracks which lines
// are resident and which are dirty, so the launch report can price scalar accesses.
//
// Model (docs/sim.md, "What is modeled"):
// - Capacity 32 KB per core: docs/cost-model.md §1 and docs/hardware-rules.md §9 ("ICache / DCache 32 KB each").
// - Lines of 64 bytes: docs/hardware-rules.md §9 (SetValue data is "flushed later in 64-byte cache
//   lines"; cores writing through SetValue must stay "one 64-byte line apart").
// - Fully associative, least-recently-used replacement: ESTIMATE (associativity and policy are
//   not documented; full associativity is the optimistic end: no conflict misses).
// - Reads: a hit moves nothing; a miss loads the whole line from GM (64 bytes in). The miss
//   latency is not modeled: no source gives a figure for it.
// - Writes: write-back, as docs/hardware-rules.md §9 describes (SetValue writes the DCache, flushed
//   later). A write marks its line dirty; a dirty line costs 64 bytes out when it is evicted,
//   cleaned by DataCacheCleanAndInvalid, or flushed at the end of the launch. A write miss
//   allocates the line without reading it from GM: ESTIMATE (not documented).
// - The cache starts empty at every launch (a CoreContext lives for one launch) and is private
//   to its core's host thread, so it needs no lock. Eviction order comes from the recency list,
//   never from hash-table order, so the counts are the same on every run. Lines are addresses / 64;
//   ScalarGmRead/Write place an access at its offset in its GM allocation on a base of that
//   allocation's own, so lines fall as in a 512-byte-aligned device allocation even for host
//   memory registered as device memory (sim/src/dcache.cpp).
#pragma once
#include <cstdint>
#include <list>
#include <unordered_map>

namespace sim {

class DataCache {
 public:
  static constexpr uint64_t kCapacityBytes = 32 * 1024;  // docs/hardware-rules.md §9
  static constexpr uint64_t kLineBytes = 64;             // docs/hardware-rules.md §9 (SetValue)
  static constexpr uint64_t kLines = kCapacityBytes / kLineBytes;

  // GM bytes one access moved: line fills (in) and write-backs of evicted dirty lines (out).
  struct Traffic {
    uint64_t in = 0;
    uint64_t out = 0;
  };

  // Reads or writes [addr, addr + bytes) through the cache (every line the range touches).
  Traffic Read(uintptr_t addr, uint64_t bytes) { return Access(addr, bytes, false); }
  Traffic Write(uintptr_t addr, uint64_t bytes) { return Access(addr, bytes, true); }
  // DataCacheCleanAndInvalid: writes back the dirty lines and drops them, all of them or the
  // one holding addr. Returns the bytes written back.
  uint64_t CleanInvalidateAll();
  uint64_t CleanInvalidateLine(uintptr_t addr);
  // End of launch: writes back every dirty line (they stay resident). Returns the bytes.
  uint64_t Flush();

  uint64_t ResidentLines() const { return where_.size(); }

 private:
  struct Line {
    uint64_t number;  // address / kLineBytes
    bool dirty;
  };
  Traffic Access(uintptr_t addr, uint64_t bytes, bool write);
  // Makes `number` the most recent line, loading it on a miss (after evicting the least recent
  // line when full); adds the bytes moved to `traffic`.
  void Touch(uint64_t number, bool write, Traffic& traffic);

  std::list<Line> recency_;  // most recent first
  std::unordered_map<uint64_t, std::list<Line>::iterator> where_;
};

// Scalar GM accesses of the calling core (GlobalTensor GetValue/SetValue, DataCacheCleanAndInvalid):
// count the access, pass it through the core's DataCache and add the GM bytes it moves to the
// core's scalarGmBytesIn / scalarGmBytesOut.
void ScalarGmRead(const void* p, uint64_t bytes);
void ScalarGmWrite(const void* p, uint64_t bytes);
void DataCacheCleanInvalidate(const void* p, bool entireCache);
// Writes back the calling core's dirty lines at kernel end (launch internals).
void FlushDataCache();

}  // namespace sim
