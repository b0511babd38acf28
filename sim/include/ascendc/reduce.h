// Reductions: ReduceSum, WholeReduceSum, BlockReduceSum, PairReduceSum in the documented
// pairwise order (docs/hardware-rules.md §4). Sums are in T precision (half sums round and saturate
// at every add); within a repeat or block the order is a binary tree over lanes in lane order
// with inactive lanes contributing 0. Legacy parameter orders: Block/Pair take repeatTime
// before mask.
#pragma once
#include <cstdint>
#include <type_traits>

#include "ascendc/core.h"
#include "ascendc/tensor.h"
#include "ascendc/vec_engine.h"
#include "ascendc/vec_numerics.h"

namespace sim {
namespace vec {

// Which legacy reduction a call is; they share the lane model and differ in the output shape.
enum class ReduceKind { kWhole, kBlock, kPair };

// Runs WholeReduceSum / BlockReduceSum / PairReduceSum on raw operands (T = half or float).
template <typename T>
void ReduceRepeats(ReduceKind kind, const char* api, uint32_t dstAddr, uint32_t dstBytes, const Operand& src,
                   const LanePlan& plan, int32_t repeatTime, int32_t dstRepStride);
// ReduceSum, count form (plan from the count, setMask, or from the register) and high-dim form (plan from
// a mask).
template <typename T>
void ReduceSumCount(uint32_t dstAddr, uint32_t dstBytes, const Operand& src, uint32_t tmpAddr, uint32_t tmpBytes,
                    const LanePlan& plan, uint64_t count, bool setMask);
template <typename T>
void ReduceSumHighDim(uint32_t dstAddr, uint32_t dstBytes, const Operand& src, uint32_t tmpAddr, uint32_t tmpBytes,
                      const LanePlan& plan);

// Mask plans for the reductions: int32 continuous masks, and an all-zero bitwise mask warns.
LanePlan PlanReduceContinuous(const char* api, uint32_t lanes, int32_t mask, int32_t repeatTime, bool isSetMask);
LanePlan PlanReduceBitwise(const char* api, uint32_t lanes, const uint64_t* mask, int32_t repeatTime, bool isSetMask);

template <typename T>
Operand ReduceSrc(const AscendC::LocalTensor<T>& src, int32_t srcBlkStride, int32_t srcRepStride, const char* api) {
  if (srcBlkStride < 0 || srcBlkStride > 65535 || srcRepStride < 0 || srcRepStride > 65535) {
    Fail(api, "srcBlkStride %d / srcRepStride %d outside [0, 65535]", srcBlkStride, srcRepStride);
  }
  return MakeOperand("src", src, static_cast<uint32_t>(srcBlkStride), static_cast<uint32_t>(srcRepStride));
}

}  // namespace vec
}  // namespace sim

namespace AscendC {

template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                               const uint64_t mask[], const int32_t repeatTime,
                                                               const int32_t dstRepStride, const int32_t srcBlkStride,
                                                               const int32_t srcRepStride) {
  const char* api = "WholeReduceSum";
  sim::vec::ReduceRepeats<T>(sim::vec::ReduceKind::kWhole, api, dst.SimAddr(), dst.GetLength(),
                             sim::vec::ReduceSrc(src, srcBlkStride, srcRepStride, api),
                             sim::vec::PlanReduceBitwise(api, sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask),
                             repeatTime, dstRepStride);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                               const int32_t mask, const int32_t repeatTime,
                                                               const int32_t dstRepStride, const int32_t srcBlkStride,
                                                               const int32_t srcRepStride) {
  const char* api = "WholeReduceSum";
  sim::vec::ReduceRepeats<T>(
      sim::vec::ReduceKind::kWhole, api, dst.SimAddr(), dst.GetLength(),
      sim::vec::ReduceSrc(src, srcBlkStride, srcRepStride, api),
      sim::vec::PlanReduceContinuous(api, sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatTime,
      dstRepStride);
}

template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> BlockReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                               const int32_t repeatTime, const uint64_t mask[],
                                                               const int32_t dstRepStride, const int32_t srcBlkStride,
                                                               const int32_t srcRepStride) {
  const char* api = "BlockReduceSum";
  sim::vec::ReduceRepeats<T>(sim::vec::ReduceKind::kBlock, api, dst.SimAddr(), dst.GetLength(),
                             sim::vec::ReduceSrc(src, srcBlkStride, srcRepStride, api),
                             sim::vec::PlanReduceBitwise(api, sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask),
                             repeatTime, dstRepStride);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> BlockReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                               const int32_t repeatTime, const int32_t mask,
                                                               const int32_t dstRepStride, const int32_t srcBlkStride,
                                                               const int32_t srcRepStride) {
  const char* api = "BlockReduceSum";
  sim::vec::ReduceRepeats<T>(
      sim::vec::ReduceKind::kBlock, api, dst.SimAddr(), dst.GetLength(),
      sim::vec::ReduceSrc(src, srcBlkStride, srcRepStride, api),
      sim::vec::PlanReduceContinuous(api, sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatTime,
      dstRepStride);
}

template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> PairReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                              const int32_t repeatTime, const uint64_t mask[],
                                                              const int32_t dstRepStride, const int32_t srcBlkStride,
                                                              const int32_t srcRepStride) {
  const char* api = "PairReduceSum";
  sim::vec::ReduceRepeats<T>(sim::vec::ReduceKind::kPair, api, dst.SimAddr(), dst.GetLength(),
                             sim::vec::ReduceSrc(src, srcBlkStride, srcRepStride, api),
                             sim::vec::PlanReduceBitwise(api, sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask),
                             repeatTime, dstRepStride);
}
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> PairReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                              const int32_t repeatTime, const int32_t mask,
                                                              const int32_t dstRepStride, const int32_t srcBlkStride,
                                                              const int32_t srcRepStride) {
  const char* api = "PairReduceSum";
  sim::vec::ReduceRepeats<T>(
      sim::vec::ReduceKind::kPair, api, dst.SimAddr(), dst.GetLength(),
      sim::vec::ReduceSrc(src, srcBlkStride, srcRepStride, api),
      sim::vec::PlanReduceContinuous(api, sim::vec::LanesFor(sizeof(T)), mask, repeatTime, isSetMask), repeatTime,
      dstRepStride);
}

// Count form: dst[0] = sum of src[0, count). sharedTmpBuffer is not used on A2/A3 (any size); on the training
// series it holds max(1, count / lanes) partial sums (2 when count has a tail past the full repeats).
template <typename T, bool isSetMask = true>
inline std::enable_if_t<sim::vec::kIsFloat<T>> ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                          const LocalTensor<T>& sharedTmpBuffer, const int32_t count) {
  if (count < 0) sim::Fail("ReduceSum", "count %d is negative", count);
  uint32_t lanes = sim::vec::LanesFor(sizeof(T));
  sim::vec::LanePlan plan = isSetMask ? sim::vec::PlanCount(lanes, static_cast<uint64_t>(count))
                                      : sim::vec::PlanRegister(lanes, 1);
  sim::vec::ReduceSumCount<T>(dst.SimAddr(), dst.GetLength(), sim::vec::MakeOperand("src", src),
                              sharedTmpBuffer.SimAddr(), sharedTmpBuffer.GetLength(), plan,
                              static_cast<uint64_t>(count), isSetMask);
}
// High-dim forms: repeatTime repeats of srcRepStride blocks; the repeat sums go through sharedTmpBuffer
// (repeatTime elements).
template <typename T>
inline std::enable_if_t<sim::vec::kIsFloat<T>> ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                          const LocalTensor<T>& sharedTmpBuffer, const uint64_t mask[],
                                                          const int32_t repeatTime, const int32_t srcRepStride) {
  sim::vec::ReduceSumHighDim<T>(
      dst.SimAddr(), dst.GetLength(), sim::vec::ReduceSrc(src, 1, srcRepStride, "ReduceSum"), sharedTmpBuffer.SimAddr(),
      sharedTmpBuffer.GetLength(),
      sim::vec::PlanReduceBitwise("ReduceSum", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, true));
}
template <typename T>
inline std::enable_if_t<sim::vec::kIsFloat<T>> ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                          const LocalTensor<T>& sharedTmpBuffer, const int32_t mask,
                                                          const int32_t repeatTime, const int32_t srcRepStride) {
  sim::vec::ReduceSumHighDim<T>(
      dst.SimAddr(), dst.GetLength(), sim::vec::ReduceSrc(src, 1, srcRepStride, "ReduceSum"), sharedTmpBuffer.SimAddr(),
      sharedTmpBuffer.GetLength(),
      sim::vec::PlanReduceContinuous("ReduceSum", sim::vec::LanesFor(sizeof(T)), mask, repeatTime, true));
}

}  // namespace AscendC
