// BatchNormElemtGrad's Unified Buffer layout, written once: BnElemtTileStream::Init and the
// channel-slab coefficient rows allocate exactly these members in this order, and the tiling's UB
// figure is their sum (BatchNormElemtGradUbBytes). Shared by host and kernel (constexpr only).
#pragma once
#include <cstdint>

#include "ub_layout.h"

namespace normgrad {

// Double buffering of the streamed tiles: MTE2/MTE3 overlap the vector math.
constexpr uint32_t kBnElemtBufferNum = 2;
// Channel slabs keep four fp32 coefficients (mean, -a*b, a, -a*c): expanded along the slab row for
// every tile element, or (channel rows) one Brcb'd 32-byte block per row of a tile.
constexpr uint32_t kBnElemtCoefRows = 4;

// Channel rows: bytes of one coefficient buffer for tiles of tileRows rows of `channels` channels
// each: one 32-byte block per row (at least the 8-row groups Brcb writes for the channels), then
// the channels' scalars Brcb reads (rounded up to 8 floats).
NORMGRAD_HOST_AICORE constexpr uint64_t BnElemtChannelRowsCoefBytes(uint64_t tileRows, uint64_t channels) {
  const uint64_t brcbRows = (channels + 7) / 8 * 8;
  return (tileRows > brcbRows ? tileRows : brcbRows) * 32 + brcbRows * 4;
}

// Channel slabs may copy their channels' statistics (five vectors) and the counter into the UB,
// each in a 32-byte-aligned slot sized for 4-byte elements: kBnElemtStatSlots slots.
constexpr uint32_t kBnElemtStatSlots = 6;
// The counter is copied only up to this many elements (else read from GM as scalars).
constexpr int64_t kBnElemtUbCounterMax = 256;

// Bytes of one statistics slot for `channels` channels and a counter of `counterNumel` elements.
NORMGRAD_HOST_AICORE constexpr uint64_t BnElemtStatSlotBytes(uint64_t channels, uint64_t counterNumel) {
  return UbAlign((channels > counterNumel ? channels : counterNumel) * 4, 32);
}

struct BnElemtUbLayout {
  UbBuffer dy, x, dx;  // native-dtype tiles, kBnElemtBufferNum deep
  UbBuffer dyF, xF;    // fp32 copies of 16-bit dy and x
  UbBuffer coef;       // channel slabs and rows: kBnElemtCoefRows separate TBufs of `bytes` each
  UbBuffer stats;      // channel slabs with statistics in the UB: kBnElemtStatSlots slots
};

// The layout for tiles of `tileElems` elements of the given element sizes, with kBnElemtCoefRows
// coefficient buffers of coefBytes each (0: none, row scalars); statSlotBytes 0: the statistics
// are read from GM.
NORMGRAD_HOST_AICORE constexpr BnElemtUbLayout BnElemtUb(uint32_t dyBytes, uint32_t xBytes, uint32_t dxBytes,
                                                         uint64_t coefBytes, uint64_t tileElems,
                                                         uint64_t statSlotBytes = 0) {
  return BnElemtUbLayout{
      UbBuffer{tileElems * dyBytes, kBnElemtBufferNum},
      UbBuffer{tileElems * xBytes, kBnElemtBufferNum},
      UbBuffer{tileElems * dxBytes, kBnElemtBufferNum},
      UbBufIf(dyBytes == 2, tileElems * 4),
      UbBufIf(xBytes == 2, tileElems * 4),
      UbBufIf(coefBytes > 0, coefBytes, kBnElemtCoefRows),
      UbBufIf(coefBytes > 0 && statSlotBytes > 0, statSlotBytes * kBnElemtStatSlots),
  };
}

NORMGRAD_HOST_AICORE constexpr uint64_t BnElemtUbSum(const BnElemtUbLayout& l) {
  return UbBytesOf(l.dy) + UbBytesOf(l.x) + UbBytesOf(l.dx) + UbBytesOf(l.dyF) + UbBytesOf(l.xF) + UbBytesOf(l.coef) +
         UbBytesOf(l.stats);
}

// Bytes per tile element before rounding: what the tiling divides its UB budget by.
NORMGRAD_HOST_AICORE constexpr uint64_t BnElemtUbRawSum(const BnElemtUbLayout& l) {
  return UbRawBytesOf(l.dy) + UbRawBytesOf(l.x) + UbRawBytesOf(l.dx) + UbRawBytesOf(l.dyF) + UbRawBytesOf(l.xF) +
         UbRawBytesOf(l.coef);
}

}  // namespace normgrad
