// View regions of global memory: the contiguous image of a strided view, computed on read.
#include "gm_view.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace sim::gm {

void* ReserveAddressSpace(uint64_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

void ReleaseAddressSpace(void* base, uint64_t bytes) { munmap(base, bytes); }

namespace {

// Copies run elements of the innermost dim from `from` (stride `step` elements) to dst, all whole.
void CopyRun(const uint8_t* from, int64_t step, uint64_t elem, uint64_t run, uint8_t* dst) {
  if (step == 1) {
    std::memcpy(dst, from, run * elem);
  } else if (step == 0) {  // a broadcast dim: one element, then doubling copies of what is done
    std::memcpy(dst, from, elem);
    for (uint64_t have = 1; have < run;) {
      const uint64_t n = std::min(have, run - have);
      std::memcpy(dst + have * elem, dst, n * elem);
      have += n;
    }
  } else {
    const int64_t pitch = step * static_cast<int64_t>(elem);
    for (uint64_t k = 0; k < run; ++k) std::memcpy(dst + k * elem, from + static_cast<int64_t>(k) * pitch, elem);
  }
}

}  // namespace

void ReadStrided(const StridedSource& src, uint64_t at, uint8_t* dst, uint64_t bytes) {
  const uint64_t elem = src.elemBytes;
  const size_t rank = src.shape.size();
  if (bytes == 0) return;
  if (rank == 0) {  // a 0-d view: its one element
    std::memcpy(dst, src.storage + src.offset * static_cast<int64_t>(elem) + at, bytes);
    return;
  }
  // The element holding byte `at`, its index per dim (row-major) and its storage index.
  uint64_t e = at / elem;
  std::vector<int64_t> idx(rank, 0);
  int64_t storage = src.offset;
  for (size_t d = rank, rest = e; d-- > 0;) {
    idx[d] = static_cast<int64_t>(rest % static_cast<uint64_t>(src.shape[d]));
    rest /= static_cast<uint64_t>(src.shape[d]);
    storage += idx[d] * src.strides[d];
  }
  const int64_t inner = src.shape[rank - 1];
  const int64_t step = src.strides[rank - 1];
  uint64_t skip = at - e * elem;  // bytes of that element before `at`
  uint64_t done = 0;
  uint8_t partial[16];
  while (done < bytes) {
    // A run along the innermost dim, from idx to its end or past the last byte wanted.
    const uint64_t wanted = (skip + bytes - done + elem - 1) / elem;
    const uint64_t run = std::min<uint64_t>(static_cast<uint64_t>(inner - idx[rank - 1]), wanted);
    const uint8_t* from = src.storage + storage * static_cast<int64_t>(elem);
    if (skip == 0 && run * elem <= bytes - done) {
      CopyRun(from, step, elem, run, dst + done);
      done += run * elem;
    } else {  // a first or last element cut by the range: one element at a time through `partial`
      for (uint64_t k = 0; k < run && done < bytes; ++k) {
        CopyRun(from + static_cast<int64_t>(k) * step * static_cast<int64_t>(elem), 1, elem, 1, partial);
        const uint64_t take = std::min<uint64_t>(elem - skip, bytes - done);
        std::memcpy(dst + done, partial + skip, take);
        done += take;
        skip = 0;
      }
    }
    if (done >= bytes) break;
    // Advance the odometer to the element after the run: the innermost dim wraps, the next carry.
    storage += static_cast<int64_t>(run - 1) * step;
    idx[rank - 1] += static_cast<int64_t>(run - 1);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < src.shape[d]) {
        storage += src.strides[d];
        break;
      }
      storage -= (src.shape[d] - 1) * src.strides[d];
      idx[d] = 0;
    }
  }
}

}  // namespace sim::gm
