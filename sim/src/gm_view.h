// The pieces of a view region (sim::gm::RegisterView) that are not the registry: its address
// space and the computation of its bytes from the strided source.
#pragma once
#include <cstdint>

#include "ascendc/core.h"

namespace sim::gm {

// bytes of inaccessible address space (no memory behind it: a dereference faults), or nullptr.
void* ReserveAddressSpace(uint64_t bytes);
void ReleaseAddressSpace(void* base, uint64_t bytes);
// Writes to dst the bytes [at, at + bytes) of the row-major contiguous image of src.
void ReadStrided(const StridedSource& src, uint64_t at, uint8_t* dst, uint64_t bytes);

}  // namespace sim::gm
