// The L2 re-read model of ascendc/l2cache.h.
#include "ascendc/l2cache.h"

#include <algorithm>
#include <iterator>

namespace sim {

void L2Reuse::Reset(uint64_t l2Bytes, int cores) {
  spans_.clear();
  clock_ = 0;
  window_ = cores > 0 ? l2Bytes / static_cast<uint64_t>(cores) : 0;
  pruneAt_ = 1024;
}

uint64_t L2Reuse::Touch(uintptr_t a, uintptr_t b) {
  uint64_t hit = 0;
  const uint64_t now = clock_;
  // Cut the spans overlapping [a, b) out of the map, counting the recent bytes among them.
  auto it = spans_.lower_bound(a);
  if (it != spans_.begin() && std::prev(it)->second.end > a) --it;
  while (it != spans_.end() && it->first < b) {
    uintptr_t lo = it->first, hi = it->second.end;
    Span old = it->second;
    it = spans_.erase(it);
    uintptr_t olo = std::max(lo, a), ohi = std::min(hi, b);
    if (now - old.clock <= window_) hit += ohi - olo;
    if (lo < a) spans_.emplace(lo, Span{a, old.clock});
    if (hi > b) it = spans_.emplace(b, Span{hi, old.clock}).first;
  }
  // Insert [a, b) touched now, joined to a left neighbour touched at the same clock.
  auto next = spans_.lower_bound(a);
  if (next != spans_.begin()) {
    auto prev = std::prev(next);
    if (prev->second.end == a && prev->second.clock == now) {
      prev->second.end = b;
      return hit;
    }
  }
  spans_.emplace_hint(next, a, Span{b, now});
  return hit;
}

void L2Reuse::DropExpired() {
  // Spans older than the window can never hit again: dropping them changes no count.
  for (auto it = spans_.begin(); it != spans_.end();) {
    it = clock_ - it->second.clock > window_ ? spans_.erase(it) : std::next(it);
  }
  pruneAt_ = std::max<size_t>(1024, spans_.size() * 2);
}

uint64_t L2Reuse::Read(const void* gm, uint32_t rows, uint64_t rowBytes, uint64_t pitch) {
  uintptr_t base = reinterpret_cast<uintptr_t>(gm);
  uint64_t hit = 0;
  if (pitch == rowBytes) {
    hit = Touch(base, base + rowBytes * rows);
  } else {
    for (uint32_t i = 0; i < rows; ++i) hit += Touch(base + i * pitch, base + i * pitch + rowBytes);
  }
  clock_ += rowBytes * rows;
  if (spans_.size() > pruneAt_) DropExpired();
  return hit;
}

void L2Reuse::Write(const void* gm, uint32_t rows, uint64_t rowBytes, uint64_t pitch) {
  uintptr_t base = reinterpret_cast<uintptr_t>(gm);
  if (pitch == rowBytes) {
    Touch(base, base + rowBytes * rows);
  } else {
    for (uint32_t i = 0; i < rows; ++i) Touch(base + i * pitch, base + i * pitch + rowBytes);
  }
  clock_ += rowBytes * rows;
  if (spans_.size() > pruneAt_) DropExpired();
}

}  // namespace sim
