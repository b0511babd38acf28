// The line bookkeeping of ascendc/dcache.h's DataCache. Self-contained (no core context), so that
// front end B's runner (sim/cann_cpu) prices scalar GM reads with the same cache as front end A.
#include "ascendc/dcache.h"

namespace sim {

DataCache::Traffic DataCache::Access(uintptr_t addr, uint64_t bytes, bool write) {
  Traffic traffic;
  if (bytes == 0) return traffic;
  const uint64_t first = addr / kLineBytes;
  const uint64_t last = (addr + bytes - 1) / kLineBytes;  // a misaligned element may straddle two
  for (uint64_t number = first; number <= last; ++number) Touch(number, write, traffic);
  return traffic;
}

void DataCache::Touch(uint64_t number, bool write, Traffic& traffic) {
  // Repeated reads of one value (gamma, mean, rstd in a row loop) hit the most recent line:
  // answer those without a hash lookup.
  if (!recency_.empty() && recency_.front().number == number) {
    recency_.front().dirty |= write;
    return;
  }
  auto it = where_.find(number);
  if (it != where_.end()) {
    recency_.splice(recency_.begin(), recency_, it->second);
    recency_.front().dirty |= write;
    return;
  }
  if (where_.size() == kLines) {
    const Line& victim = recency_.back();
    if (victim.dirty) traffic.out += kLineBytes;
    where_.erase(victim.number);
    recency_.pop_back();
  }
  if (!write) traffic.in += kLineBytes;  // write miss: allocated without a fill (ESTIMATE)
  recency_.push_front(Line{number, write});
  where_[number] = recency_.begin();
}

uint64_t DataCache::CleanInvalidateAll() {
  uint64_t out = Flush();
  recency_.clear();
  where_.clear();
  return out;
}

uint64_t DataCache::CleanInvalidateLine(uintptr_t addr) {
  auto it = where_.find(addr / kLineBytes);
  if (it == where_.end()) return 0;
  const uint64_t out = it->second->dirty ? kLineBytes : 0;
  recency_.erase(it->second);
  where_.erase(it);
  return out;
}

uint64_t DataCache::Flush() {
  uint64_t out = 0;
  for (Line& line : recency_) {
    if (line.dirty) out += kLineBytes;
    line.dirty = false;
  }
  return out;
}

}  // namespace sim
