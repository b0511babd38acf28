// The L2 re-read model of ascendc/l2cache.h.
#include "ascendc/l2cache.h"

#include <algorithm>

namespace sim {

void L2Reuse::Reset(uint64_t l2Bytes, int cores) {
  spans_.clear();
  clock_ = 0;
  window_ = cores > 0 ? l2Bytes / static_cast<uint64_t>(cores) : 0;
  pruneAt_ = 1024;
}

uint64_t L2Reuse::Touch(uintptr_t a, uintptr_t b) {
  const uint64_t now = clock_;
  // Spans are disjoint and sorted, so their ends are sorted too: the first one ending after a.
  size_t i = static_cast<size_t>(
      std::upper_bound(spans_.begin(), spans_.end(), a, [](uintptr_t x, const Span& s) { return x < s.end; }) -
      spans_.begin());
  size_t j = i;
  uint64_t hit = 0;
  for (; j < spans_.size() && spans_[j].begin < b; ++j) {
    if (now - spans_[j].clock <= window_) hit += std::min(spans_[j].end, b) - std::max(spans_[j].begin, a);
  }
  // Spans [i, j) overlap [a, b): replace them by their parts outside it and [a, b) touched now.
  Span repl[3];
  size_t k = 0;
  if (j > i && spans_[i].begin < a) repl[k++] = Span{spans_[i].begin, a, spans_[i].clock};
  bool joined = k == 0 && i > 0 && spans_[i - 1].end == a && spans_[i - 1].clock == now;
  if (joined) {
    spans_[i - 1].end = b;
  } else {
    repl[k++] = Span{a, b, now};
  }
  if (j > i && spans_[j - 1].end > b) repl[k++] = Span{b, spans_[j - 1].end, spans_[j - 1].clock};
  const size_t common = std::min(k, j - i);
  for (size_t t = 0; t < common; ++t) spans_[i + t] = repl[t];
  if (k > common) {
    spans_.insert(spans_.begin() + static_cast<std::ptrdiff_t>(i + common), repl + common, repl + k);
  } else if (j - i > common) {
    spans_.erase(spans_.begin() + static_cast<std::ptrdiff_t>(i + common), spans_.begin() + static_cast<std::ptrdiff_t>(j));
  }
  return hit;
}

void L2Reuse::DropExpired() {
  // Spans older than the window can never hit again: dropping them changes no count.
  spans_.erase(std::remove_if(spans_.begin(), spans_.end(),
                              [this](const Span& s) { return clock_ - s.clock > window_; }),
               spans_.end());
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
