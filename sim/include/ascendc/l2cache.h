// Per-core model of GM re-reads the chip's shared L2 cache serves (cost only, holds no data).
//
// Every DMA copy between GM and UB passes through the L2 (both directions allocate lines), so
// bytes a core reads again soon after it read or wrote them come from the L2, not from HBM.
// The model is per core and in program order, so its counts are the same on every run:
// - a core's "clock" is the GM bytes it has moved so far in the launch (reads and writes);
// - each GM byte range it touched keeps the clock of its last touch;
// - an MTE2 read of bytes last touched at clock s hits when (now - s) * blockDim <= L2 bytes:
//   while this core moved (now - s) bytes the other cores of the launch moved about as much
//   each, so that much chip traffic has gone through the L2 since (an LRU reuse distance).
// Not modeled: hits on bytes another core touched (charged at HBM: the conservative end), the
// DCache's scalar line fills, partial hits below line granularity, L2 bandwidth limits.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sim {

class L2Reuse {
 public:
  // Empty cache at the start of a launch of `cores` cores on a chip with l2Bytes of L2.
  void Reset(uint64_t l2Bytes, int cores);
  // An MTE2 read of `rows` runs of rowBytes, pitch bytes apart; returns the bytes that hit.
  uint64_t Read(const void* gm, uint32_t rows, uint64_t rowBytes, uint64_t pitch);
  // An MTE3 write (the bytes now sit in the L2).
  void Write(const void* gm, uint32_t rows, uint64_t rowBytes, uint64_t pitch);

 private:
  struct Span {
    uintptr_t begin, end;
    uint64_t clock;  // the core's clock when it last touched these bytes
  };
  // Marks [a, b) touched now; returns the bytes of it that were touched within the window.
  uint64_t Touch(uintptr_t a, uintptr_t b);
  void DropExpired();

  std::vector<Span> spans_;          // disjoint, sorted by begin (streams append at the end)
  uint64_t clock_ = 0;
  uint64_t window_ = 0;              // this core's share of the L2: l2Bytes / cores
  size_t pruneAt_ = 1024;            // spans_ size that triggers dropping expired spans
};

}  // namespace sim
