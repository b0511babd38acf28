// The DMA instructions: plain copies in 32-byte units, the _align copies in bytes with element
// pads, UB -> UB, and the atomic add of UB -> GM stores. GM is plain process memory (CANN's
// GmAlloc maps it shared between the per-core processes), so the atomic add is a compare-and-swap
// on each element's bits: atomic across processes, not only across threads.
#include <atomic>
#include <cstring>

#include "internal.h"

namespace normgrad {
namespace isa {
namespace {

constexpr uint64_t kMaxBursts = 4095;
constexpr uint64_t kMaxAlignBurstBytes = 2097151;  // 21 bits (asc-devkit CheckDataCopyPadParams)

GmReader g_gmReader = nullptr;  // SetGmReader; null: GM is plain memory

// n bursts of `bytes`, pitches apart; one move when both sides are contiguous.
void CopyBursts(uint8_t* dst, const uint8_t* src, uint64_t n, uint64_t bytes, uint64_t srcPitch, uint64_t dstPitch) {
  if (srcPitch == bytes && dstPitch == bytes) {
    std::memmove(dst, src, n * bytes);
    return;
  }
  for (uint64_t i = 0; i < n; ++i) std::memmove(dst + i * dstPitch, src + i * srcPitch, bytes);
}

// CopyBursts with a GM source: through the front end's GM reader when one is set.
void ReadBursts(uint8_t* dst, const uint8_t* gm, uint64_t n, uint64_t bytes, uint64_t gmPitch, uint64_t dstPitch) {
  if (g_gmReader == nullptr) return CopyBursts(dst, gm, n, bytes, gmPitch, dstPitch);
  if (gmPitch == bytes && dstPitch == bytes) return g_gmReader(dst, gm, n * bytes);
  for (uint64_t i = 0; i < n; ++i) g_gmReader(dst + i * dstPitch, gm + i * gmPitch, bytes);
}

// *p = add(*p, v) atomically: compare-and-swap on the element's storage word W.
template <typename W, typename F>
void CasAdd(uint8_t* p, W v, F add) {
  W* w = reinterpret_cast<W*>(p);
  W old = __atomic_load_n(w, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(w, &old, add(old, v), true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
  }
}

// gm[i] = add(gm[i], ub[i]) atomically for each W-sized element of a burst.
template <typename W, typename F>
void CasAddEach(uint8_t* gm, const uint8_t* ub, uint64_t bytes, F add) {
  for (uint64_t i = 0; i + sizeof(W) <= bytes; i += sizeof(W)) {
    W v;
    std::memcpy(&v, ub + i, sizeof(W));
    CasAdd<W>(gm + i, v, add);
  }
}

// gm += ub element-wise in the atomic type, each element rounded once in that type, 16-bit float
// results saturating.
void AtomicAddBurst(uint8_t* gm, const uint8_t* ub, uint64_t bytes, AtomicType t) {
  switch (t) {
    case AtomicType::kF32:
      CasAddEach<uint32_t>(gm, ub, bytes, [](uint32_t a, uint32_t b) {
        return num::FloatBits(num::BitsFloat(a) + num::BitsFloat(b));
      });
      break;
    case AtomicType::kF16:
      CasAddEach<uint16_t>(gm, ub, bytes, num::AtomicAddHalfBits);
      break;
    case AtomicType::kBf16:
      CasAddEach<uint16_t>(gm, ub, bytes, num::AtomicAddBf16Bits);
      break;
    case AtomicType::kS32:
      CasAddEach<uint32_t>(gm, ub, bytes, [](uint32_t a, uint32_t b) { return a + b; });
      break;
    case AtomicType::kS16:
      CasAddEach<uint16_t>(gm, ub, bytes, [](uint16_t a, uint16_t b) { return static_cast<uint16_t>(a + b); });
      break;
    case AtomicType::kS8:
      CasAddEach<uint8_t>(gm, ub, bytes, [](uint8_t a, uint8_t b) { return static_cast<uint8_t>(a + b); });
      break;
    case AtomicType::kNone:
      break;
  }
}

// The store of n bursts to GM: plain, or an atomic add where the copy does it. The device's DMA
// adds on both archs; on dav-c100 CANN's CPU-debug API adds in UB itself (DataCopyWithAtomic, under
// its ProcessLock) and then issues a plain copy, so there the copy adds only for a front end that
// issues the device's instructions (State::deviceAtomicStores).
void StoreBursts(const State& s, Arch arch, const char* name, uint8_t* gm, const uint8_t* ub, uint64_t n,
                 uint64_t bytes, uint64_t ubPitch, uint64_t gmPitch) {
  if ((arch != Arch::kA2 && !s.deviceAtomicStores) || !s.atomicEnabled || s.atomicType == AtomicType::kNone) {
    CopyBursts(gm, ub, n, bytes, ubPitch, gmPitch);
    return;
  }
  if (s.atomicOp != AtomicOp::kAdd) {
    Violation("%s: atomic max/min stores are not modelled", name);
    return;
  }
  for (uint64_t i = 0; i < n; ++i) AtomicAddBurst(gm + i * gmPitch, ub + i * ubPitch, bytes, s.atomicType);
}

bool CheckBursts(const char* name, uint64_t nBurst, uint64_t lenBurst, uint64_t maxLen) {
  return CheckRange(name, "nBurst", nBurst, 1, kMaxBursts) && CheckRange(name, "lenBurst", lenBurst, 1, maxLen);
}

void PadFill(uint8_t* p, uint64_t elems, uint32_t elemBytes, uint64_t value) {
  for (uint64_t i = 0; i < elems; ++i) std::memcpy(p + i * elemBytes, &value, elemBytes);
}

// The _align copies' names by element width (the 64-bit forms run as b32 with doubled pads).
const char* AlignName(bool toGm, uint32_t elemBytes) {
  if (toGm) {
    return elemBytes == 1 ? "copy_ubuf_to_gm_align_b8" : elemBytes == 2 ? "copy_ubuf_to_gm_align_b16"
                                                                          : "copy_ubuf_to_gm_align_b32";
  }
  return elemBytes == 1 ? "copy_gm_to_ubuf_align_b8" : elemBytes == 2 ? "copy_gm_to_ubuf_align_b16"
                                                                        : "copy_gm_to_ubuf_align_b32";
}

}  // namespace

void SetGmReader(GmReader reader) { g_gmReader = reader; }

// Each instruction looks the core's state up once. A front end that checked every operand and field
// itself (State::operandsChecked: front end A, with the API's name in the message) skips the model's
// checks, which would repeat them.

void CopyGmToUb(void* dst, const void* src, uint64_t, uint64_t nBurst, uint64_t lenBurst, uint64_t srcGap,
                uint64_t dstGap) {
  const char* name = "copy_gm_to_ubuf";
  State& s = Core();
  const uint64_t bytes = lenBurst * num::kBlockBytes;
  const uint64_t ubPitch = (lenBurst + dstGap) * num::kBlockBytes, gmPitch = (lenBurst + srcGap) * num::kBlockBytes;
  const bool counted = CountGmCopy(s, false, src, nBurst, bytes, gmPitch);
  if (!s.operandsChecked && (!CheckBursts(name, nBurst, lenBurst, 65535) ||
                             !CheckUb(name, "dst", dst, (nBurst - 1) * ubPitch + bytes, num::kBlockBytes))) {
    return;
  }
  ReadBursts(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), nBurst, bytes, gmPitch, ubPitch);
  if (counted) s.counters.gmToUbBytes += nBurst * bytes;
}

void CopyUbToGm(Arch arch, void* dst, const void* src, uint64_t, uint64_t nBurst, uint64_t lenBurst, uint64_t srcGap,
                uint64_t dstGap) {
  const char* name = "copy_ubuf_to_gm";
  State& s = Core();
  const uint64_t bytes = lenBurst * num::kBlockBytes;
  const uint64_t ubPitch = (lenBurst + srcGap) * num::kBlockBytes, gmPitch = (lenBurst + dstGap) * num::kBlockBytes;
  const bool counted = CountGmCopy(s, true, dst, nBurst, bytes, gmPitch);
  if (!s.operandsChecked && (!CheckBursts(name, nBurst, lenBurst, 65535) ||
                             !CheckUb(name, "src", src, (nBurst - 1) * ubPitch + bytes, num::kBlockBytes))) {
    return;
  }
  StoreBursts(s, arch, name, static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), nBurst, bytes, ubPitch,
              gmPitch);
  if (counted) s.counters.ubToGmBytes += nBurst * bytes;
}

void CopyUbToUb(void* dst, const void* src, uint64_t, uint64_t nBurst, uint64_t lenBurst, uint64_t srcGap,
                uint64_t dstGap) {
  const char* name = "copy_ubuf_to_ubuf";
  State& s = Core();
  ++s.counters.instr[kPipeV];  // issued on PIPE_V, as the simulator counts a UB -> UB DataCopy
  s.counters.repeats[kPipeV] += nBurst;
  ++s.counters.vecInstr;  // priced by its bytes (ubToUbBytes), not by repeats
  const uint64_t bytes = lenBurst * num::kBlockBytes;
  const uint64_t srcPitch = (lenBurst + srcGap) * num::kBlockBytes, dstPitch = (lenBurst + dstGap) * num::kBlockBytes;
  if (!s.operandsChecked && (!CheckBursts(name, nBurst, lenBurst, 65535) ||
                             !CheckUb(name, "src", src, (nBurst - 1) * srcPitch + bytes, num::kBlockBytes) ||
                             !CheckUb(name, "dst", dst, (nBurst - 1) * dstPitch + bytes, num::kBlockBytes))) {
    return;
  }
  CopyBursts(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), nBurst, bytes, srcPitch, dstPitch);
  s.counters.ubToUbBytes += nBurst * bytes;
}

void CopyGmToUbAlign(uint32_t elemBytes, void* dst, const void* src, uint64_t, uint64_t nBurst, uint64_t lenBurst,
                     uint64_t leftPad, uint64_t rightPad, uint64_t srcGap, uint64_t dstGap) {
  State& s = Core();
  const bool counted = CountGmCopy(s, false, src, nBurst, lenBurst, lenBurst + srcGap);
  // UB side: pads and data rounded up to whole 32-byte blocks, gaps in blocks; GM side: bytes.
  const uint64_t left = leftPad * elemBytes, used = left + lenBurst + rightPad * elemBytes;
  const uint64_t ubBurst = (used + num::kBlockBytes - 1) / num::kBlockBytes * num::kBlockBytes;
  const uint64_t ubPitch = ubBurst + dstGap * num::kBlockBytes, gmPitch = lenBurst + srcGap;
  if (!s.operandsChecked) {
    const char* name = AlignName(false, elemBytes);
    if (!CheckBursts(name, nBurst, lenBurst, kMaxAlignBurstBytes) ||
        !CheckRange(name, "leftPad bytes", left, 0, num::kBlockBytes) ||
        !CheckRange(name, "rightPad bytes", rightPad * elemBytes, 0, num::kBlockBytes)) {
      return;
    }
    if (lenBurst % elemBytes != 0) {
      Violation("%s: lenBurst %llu bytes is not a multiple of the %u-byte element", name,
                static_cast<unsigned long long>(lenBurst), elemBytes);
      return;
    }
    if (!CheckUb(name, "dst", dst, (nBurst - 1) * ubPitch + ubBurst, num::kBlockBytes)) return;
  }
  uint8_t* d = static_cast<uint8_t*>(dst);
  ReadBursts(d + left, static_cast<const uint8_t*>(src), nBurst, lenBurst, gmPitch, ubPitch);
  // The pads hold the pad register's value (set_mov_pad_val); the bytes from `used` to the block end
  // are not written.
  if (leftPad != 0 || rightPad != 0) {
    for (uint64_t i = 0; i < nBurst; ++i) {
      uint8_t* row = d + i * ubPitch;
      PadFill(row, leftPad, elemBytes, s.movPadVal);
      PadFill(row + left + lenBurst, rightPad, elemBytes, s.movPadVal);
    }
  }
  if (counted) s.counters.gmToUbBytes += nBurst * lenBurst;
}

void CopyUbToGmAlign(Arch arch, uint32_t elemBytes, void* dst, const void* src, uint64_t, uint64_t nBurst,
                     uint64_t lenBurst, uint64_t leftPad, uint64_t rightPad, uint64_t srcGap, uint64_t dstGap) {
  const char* name = AlignName(true, elemBytes);
  State& s = Core();
  const bool counted = CountGmCopy(s, true, dst, nBurst, lenBurst, lenBurst + dstGap);
  const uint64_t ubBurst = (lenBurst + num::kBlockBytes - 1) / num::kBlockBytes * num::kBlockBytes;
  const uint64_t ubPitch = ubBurst + srcGap * num::kBlockBytes, gmPitch = lenBurst + dstGap;
  if (!s.operandsChecked &&
      (!CheckBursts(name, nBurst, lenBurst, kMaxAlignBurstBytes) || !CheckRange(name, "leftPad", leftPad, 0, 0) ||
       !CheckRange(name, "rightPad", rightPad, 0, 0) ||
       !CheckUb(name, "src", src, (nBurst - 1) * ubPitch + lenBurst, num::kBlockBytes))) {
    return;
  }
  StoreBursts(s, arch, name, static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), nBurst, lenBurst, ubPitch,
              gmPitch);
  if (counted) s.counters.ubToGmBytes += nBurst * lenBurst;
}

void SetMovPadVal(uint64_t v) { Core().movPadVal = v; }

}  // namespace isa
}  // namespace normgrad
