// The vocabulary of the operators' Unified Buffer layouts (<op>_ub_layout.h): a layout is a plain
// struct of UbBuffer members, one per InitBuffer of a kernel phase, written once. The kernel's
// Init walks it (op_kernel/common/ub_alloc.h) and the tiling's UB figure is its sum. Shared by host
// and kernel, so constexpr structs and functions only (the device compiler sees them; no std).
//
// TPipe rounds every buffer up to 32 bytes (docs/hardware-rules.md §1); UbBytesOf does the same.
#pragma once
#include <cstdint>

#include "host_aicore.h"

namespace normgrad {

// One InitBuffer: `num` buffers of `bytes` each; num 0 means the phase does not allocate it.
struct UbBuffer {
  uint64_t bytes;
  uint32_t num;
};

NORMGRAD_HOST_AICORE constexpr uint64_t UbAlign(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
// UB bytes one member takes, TPipe's 32-byte rounding included.
NORMGRAD_HOST_AICORE constexpr uint64_t UbBytesOf(const UbBuffer& b) { return b.num * UbAlign(b.bytes, 32); }
// Bytes before rounding: what a layout of one element costs per element, for planning tile sizes.
NORMGRAD_HOST_AICORE constexpr uint64_t UbRawBytesOf(const UbBuffer& b) { return b.num * b.bytes; }
NORMGRAD_HOST_AICORE constexpr UbBuffer UbBufIf(bool on, uint64_t bytes, uint32_t num = 1) { return UbBuffer{bytes, on ? num : 0u}; }

}  // namespace normgrad
