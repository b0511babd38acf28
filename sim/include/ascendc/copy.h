// Data movement: DataCopy, DataCopyPad, atomic-add stores, InitOutput/InitGlobalMemory.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ascendc/constants.h"
#include "ascendc/core.h"
#include "ascendc/dtype.h"
#include "ascendc/tensor.h"

namespace sim {

// Element type codes (copy::AtomicElem reports the atomic mode in them; 0 = none).
enum ElemCode : int {
  kElemNone = 0, kElemInt8, kElemUint8, kElemInt16, kElemUint16, kElemHalf, kElemBf16, kElemInt32,
  kElemUint32, kElemFloat, kElemInt64, kElemUint64, kElemDouble, kElemOther
};
template <typename T>
constexpr int ElemCodeOf() {
  if (std::is_same<T, int8_t>::value) return kElemInt8;
  if (std::is_same<T, uint8_t>::value) return kElemUint8;
  if (std::is_same<T, int16_t>::value) return kElemInt16;
  if (std::is_same<T, uint16_t>::value) return kElemUint16;
  if (std::is_same<T, half>::value) return kElemHalf;
  if (std::is_same<T, bfloat16_t>::value) return kElemBf16;
  if (std::is_same<T, int32_t>::value) return kElemInt32;
  if (std::is_same<T, uint32_t>::value) return kElemUint32;
  if (std::is_same<T, float>::value) return kElemFloat;
  if (std::is_same<T, int64_t>::value) return kElemInt64;
  if (std::is_same<T, uint64_t>::value) return kElemUint64;
  if (std::is_same<T, double>::value) return kElemDouble;
  return kElemOther;
}
const char* ElemName(int code);

// Dummy bytes DataCopyPad writes after a block to reach 32 bytes when there is no padding: the
// doc says "the block's first element"; the default writes the UB poison word instead, so that
// kernels which read them show NaN rather than a plausible value.
enum class DummyFill { kPoison, kFirstElement };
void SetDataCopyPadDummyFill(DummyFill fill);

namespace copy {
// A LocalTensor operand: UB byte address and bytes visible through the view.
struct Ub {
  uint32_t addr;
  uint32_t len;
};
template <typename T>
Ub View(const AscendC::LocalTensor<T>& t) {
  return {t.SimAddr(), t.GetLength()};
}
// Pitches are byte distances between block starts.
void GmToUb(const char* api, Ub dst, const uint8_t* gm, uint32_t elemBytes, uint32_t blockCount, uint64_t blockBytes,
            uint64_t gmPitch, uint64_t ubPitch);
void UbToGm(const char* api, uint8_t* gm, Ub src, uint32_t elemBytes, int elemCode, uint32_t blockCount,
            uint64_t blockBytes, uint64_t ubPitch, uint64_t gmPitch);
void UbToUb(const char* api, Ub dst, Ub src, uint32_t blockCount, uint64_t blockBytes, uint64_t srcPitch,
            uint64_t dstPitch);
// Count form: round down to 32 bytes with a warning, then one block.
uint64_t CountBytes(const char* api, uint32_t count, uint32_t elemBytes);
// DataCopyPad. blockLen in bytes; the GM stride in bytes, the UB stride in 32-byte blocks.
struct PadArgs {
  uint32_t blockCount, blockLen, srcStride, dstStride;
  bool isPad;
  uint32_t left, right;       // elements
  uint64_t padBits;           // the padding value's bytes (low elemBytes bytes)
  bool extParams;             // DataCopyExtParams (else legacy DataCopyParams), for messages
};
void PadGmToUb(Ub dst, const uint8_t* gm, uint32_t elemBytes, const PadArgs& a);
void PadUbToGm(uint8_t* gm, Ub src, uint32_t elemBytes, int elemCode, const PadArgs& a);
// SetAtomicAdd / SetAtomicNone: issued to the instruction-level model's atomic register, which the
// UB->GM copies add by; AtomicElem reads it back (kElemNone when off).
void SetAtomic(const char* api, int elemCode);
int AtomicElem();
void FillGm(const char* api, uint8_t* gm, uint64_t count, uint32_t elemBytes, const void* value, uint64_t chunkBytes);
}  // namespace copy

template <typename T>
uint64_t BitsOf(const T& v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T) < 8 ? sizeof(T) : 8);
  return b;
}

}  // namespace sim

namespace AscendC {

// DataCopy strided form: every field in 32-byte blocks; a gap runs from the end of one block to
// the start of the next.
struct DataCopyParams {
  uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
  uint16_t blockLen = 0;
  union {
    uint16_t srcGap = 0;
    uint16_t srcStride;
  };
  union {
    uint16_t dstGap = 0;
    uint16_t dstStride;
  };
  DataCopyParams() {}
  DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn, const uint16_t dstStrideIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
};

struct DataCopyExtParams {
  uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
  uint32_t blockLen = 0;
  uint32_t srcStride = DEFAULT_DATA_COPY_STRIDE;
  uint32_t dstStride = DEFAULT_DATA_COPY_STRIDE;
  uint32_t rsv = 0;
  DataCopyExtParams() {}
  DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn,
                    const uint32_t dstStrideIn, const uint32_t rsvIn = 0)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
};

template <typename T>
struct DataCopyPadExtParams {
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  T paddingValue{};
  DataCopyPadExtParams() {}
  DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue, T padValue)
      : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
};

// Legacy: paddingValue is handed to the hardware as raw bits.
struct DataCopyPadParams {
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  uint64_t paddingValue = 0;
  DataCopyPadParams() {}
  DataCopyPadParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue,
                    const uint64_t padValue)
      : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
};

// ---- DataCopy, count form: count * sizeof(T) must be a multiple of 32 (rounded down otherwise)
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count) {
  uint64_t bytes = sim::copy::CountBytes("DataCopy", count, sizeof(T));
  sim::copy::GmToUb("DataCopy", sim::copy::View(dst), reinterpret_cast<const uint8_t*>(src.GetPhyAddr()), sizeof(T),
                    1, bytes, bytes, bytes);
}
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
  uint64_t bytes = sim::copy::CountBytes("DataCopy", count, sizeof(T));
  sim::copy::UbToGm("DataCopy", reinterpret_cast<uint8_t*>(dst.GetPhyAddr()), sim::copy::View(src), sizeof(T),
                    sim::ElemCodeOf<T>(), 1, bytes, bytes, bytes);
}
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
  uint64_t bytes = sim::copy::CountBytes("DataCopy", count, sizeof(T));
  sim::copy::UbToUb("DataCopy", sim::copy::View(dst), sim::copy::View(src), 1, bytes, bytes, bytes);
}

// ---- DataCopy, strided form (32-byte block units on both sides)
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p) {
  uint64_t len = p.blockLen * 32ull;
  sim::copy::GmToUb("DataCopy", sim::copy::View(dst), reinterpret_cast<const uint8_t*>(src.GetPhyAddr()), sizeof(T),
                    p.blockCount, len, len + p.srcStride * 32ull, len + p.dstStride * 32ull);
}
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
  uint64_t len = p.blockLen * 32ull;
  sim::copy::UbToGm("DataCopy", reinterpret_cast<uint8_t*>(dst.GetPhyAddr()), sim::copy::View(src), sizeof(T),
                    sim::ElemCodeOf<T>(), p.blockCount, len, len + p.srcStride * 32ull, len + p.dstStride * 32ull);
}
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
  uint64_t len = p.blockLen * 32ull;
  sim::copy::UbToUb("DataCopy", sim::copy::View(dst), sim::copy::View(src), p.blockCount, len,
                    len + p.srcStride * 32ull, len + p.dstStride * 32ull);
}

// ---- DataCopyPad: blockLen in bytes, GM-side stride in bytes, UB-side stride in 32-byte blocks
template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                 const DataCopyPadExtParams<T>& pad) {
  sim::copy::PadArgs a{p.blockCount, p.blockLen,       p.srcStride,   p.dstStride,
                       pad.isPad,    pad.leftPadding, pad.rightPadding, sim::BitsOf(pad.paddingValue), true};
  sim::copy::PadGmToUb(sim::copy::View(dst), reinterpret_cast<const uint8_t*>(src.GetPhyAddr()), sizeof(T), a);
}
template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p) {
  sim::copy::PadArgs a{p.blockCount, p.blockLen, p.srcStride, p.dstStride, false, 0, 0, 0, true};
  sim::copy::PadUbToGm(reinterpret_cast<uint8_t*>(dst.GetPhyAddr()), sim::copy::View(src), sizeof(T),
                       sim::ElemCodeOf<T>(), a);
}
template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                 const DataCopyPadParams& pad) {
  sim::copy::PadArgs a{p.blockCount, p.blockLen,       p.srcStride,   p.dstStride,
                       pad.isPad,    pad.leftPadding, pad.rightPadding, pad.paddingValue, false};
  sim::copy::PadGmToUb(sim::copy::View(dst), reinterpret_cast<const uint8_t*>(src.GetPhyAddr()), sizeof(T), a);
}
template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
  sim::copy::PadArgs a{p.blockCount, p.blockLen, p.srcStride, p.dstStride, false, 0, 0, 0, false};
  sim::copy::PadUbToGm(reinterpret_cast<uint8_t*>(dst.GetPhyAddr()), sim::copy::View(src), sizeof(T),
                       sim::ElemCodeOf<T>(), a);
}

// ---- Atomic accumulation of UB->GM copies
template <typename T>
void SetAtomicAdd() {
  static_assert(sim::ElemCodeOf<T>() == sim::kElemInt8 || sim::ElemCodeOf<T>() == sim::kElemInt16 ||
                    sim::ElemCodeOf<T>() == sim::kElemHalf || sim::ElemCodeOf<T>() == sim::kElemBf16 ||
                    sim::ElemCodeOf<T>() == sim::kElemInt32 || sim::ElemCodeOf<T>() == sim::kElemFloat,
                "SetAtomicAdd: types are int8_t, int16_t, half, bfloat16_t, int32_t, float");
  sim::copy::SetAtomic("SetAtomicAdd", sim::ElemCodeOf<T>());
}
template <typename T>
void SetAtomicType() {
  SetAtomicAdd<T>();
}
inline void SetAtomicNone() { sim::copy::SetAtomic("SetAtomicNone", sim::kElemNone); }
inline void DisableDmaAtomic() { SetAtomicNone(); }

// ---- GM initialisation (the device stages the value in free UB, then DataCopyPads it out)
template <typename T>
void InitOutput(GlobalTensor<T> gm, uint32_t size, T value = T{}) {
  sim::copy::FillGm("InitOutput", reinterpret_cast<uint8_t*>(gm.GetPhyAddr()), size, sizeof(T), &value, 255 * 32);
}
template <typename T>
void InitGlobalMemory(GlobalTensor<T>& gm, const uint64_t size, const T value) {
  static_assert(std::is_same<T, uint16_t>::value || std::is_same<T, int16_t>::value || std::is_same<T, half>::value ||
                    std::is_same<T, uint32_t>::value || std::is_same<T, int32_t>::value ||
                    std::is_same<T, float>::value,
                "InitGlobalMemory: types are uint16_t, int16_t, half, uint32_t, int32_t, float");
  sim::copy::FillGm("InitGlobalMemory", reinterpret_cast<uint8_t*>(gm.GetPhyAddr()), size, sizeof(T), &value,
                    255 * 256);
}
template <typename T>
void Fill(GlobalTensor<T>& gm, const uint64_t size, const T value) {
  InitGlobalMemory(gm, size, value);
}

// ---- Data cache. GM is read and written directly (the data are always coherent), so these only
// update the cost model's DCache (ascendc/dcache.h): dirty lines are priced as written back and
// the lines dropped, so later scalar reads of them miss again. dcciDst is not distinguished.
enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
template <typename T, CacheLine entireType, DcciDst dcciDst>
void DataCacheCleanAndInvalid(const GlobalTensor<T>& gm) {
  sim::DataCacheCleanInvalidate(gm.GetPhyAddr(), entireType == CacheLine::ENTIRE_DATA_CACHE);
}
template <typename T, CacheLine entireType>
void DataCacheCleanAndInvalid(const GlobalTensor<T>& gm) {
  sim::DataCacheCleanInvalidate(gm.GetPhyAddr(), entireType == CacheLine::ENTIRE_DATA_CACHE);
}

}  // namespace AscendC
