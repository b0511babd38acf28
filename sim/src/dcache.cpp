// The scalar GM accesses of front end A's cores through their DataCache (ascendc/dcache.h; the
// cache itself is data_cache.cpp).
#include "ascendc/dcache.h"

#include <algorithm>

#include "ascendc/core.h"

namespace sim {

namespace {

void AddTraffic(CoreCounters& counters, const DataCache::Traffic& traffic) {
  counters.scalarGmBytesIn += traffic.in;
  counters.scalarGmBytesOut += traffic.out;
}

// The address the DCache sees. Device allocations start on 512-byte boundaries, but host memory
// registered as device memory (aclrtHostRegister: how the Python API hands over its inputs) starts
// wherever the host put it, which would move line boundaries from run to run. So an access is placed
// at its offset in its GM allocation, on a base of the allocation's own (its serial << 40): the lines
// it touches are those of a 512-byte-aligned allocation, as on the device and on front end B.
uintptr_t DeviceAddress(CoreContext& c, const void* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  for (const CoreContext::ScalarAllocation& s : c.scalarAllocations) {
    if (a >= s.begin && a < s.end) return s.tag + (a - s.begin);
  }
  uintptr_t base = 0;
  uint64_t bytes = 0, serial = 0;
  if (!gm::FindAllocation(p, &base, &bytes, &serial)) return a;  // not GM: CheckRange has reported it
  CoreContext::ScalarAllocation& slot = c.scalarAllocations[c.nextScalarAllocation++ % c.scalarAllocations.size()];
  slot = {base, base + std::max<uint64_t>(bytes, 1), static_cast<uintptr_t>(serial) << 40};
  return slot.tag + (a - base);
}

}  // namespace

void ScalarGmRead(const void* p, uint64_t bytes) {
  CoreContext& c = Core();
  ++c.counters.scalarGm;
  AddTraffic(c.counters, c.dcache.Read(DeviceAddress(c, p), bytes));
}

void ScalarGmWrite(const void* p, uint64_t bytes) {
  CoreContext& c = Core();
  ++c.counters.scalarGm;
  AddTraffic(c.counters, c.dcache.Write(DeviceAddress(c, p), bytes));
}

void DataCacheCleanInvalidate(const void* p, bool entireCache) {
  CoreContext& c = Core();
  c.counters.scalarGmBytesOut += entireCache ? c.dcache.CleanInvalidateAll()
                                             : c.dcache.CleanInvalidateLine(DeviceAddress(c, p));
}

void FlushDataCache() {
  CoreContext& c = Core();
  c.counters.scalarGmBytesOut += c.dcache.Flush();
}

}  // namespace sim
