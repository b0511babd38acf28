// Front end A on the instruction-level model (sim/isa, normgrad_isa/model.h): after an API's own
// checks, its vector work is issued as the instructions CANN's implementation issues for it
// (asc-devkit impl/basic_api/dav_c220 and dav_c100), on the core's UB, and the model executes and
// counts them. One mask register (the model's), one set of lane semantics, one instruction count.
// Simulator internals, not Ascend C API.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ascendc/core.h"
#include "ascendc/dtype.h"
#include "normgrad_isa/model.h"
#include "normgrad_isa/numerics.h"

namespace sim {
namespace vec {

namespace isa = normgrad::isa;

// The model's element tag of a C++ element type.
template <class T>
constexpr isa::Elem ElemOf() {
  if constexpr (std::is_same<T, float>::value) return isa::Elem::kF32;
  if constexpr (std::is_same<T, half>::value) return isa::Elem::kF16;
  if constexpr (std::is_same<T, bfloat16_t>::value) return isa::Elem::kBf16;
  if constexpr (std::is_same<T, int32_t>::value) return isa::Elem::kS32;
  if constexpr (std::is_same<T, uint32_t>::value) return isa::Elem::kU32;
  if constexpr (std::is_same<T, int16_t>::value) return isa::Elem::kS16;
  if constexpr (std::is_same<T, uint16_t>::value) return isa::Elem::kU16;
  if constexpr (std::is_same<T, int8_t>::value) return isa::Elem::kS8;
  if constexpr (std::is_same<T, int64_t>::value) return isa::Elem::kS64;
  return isa::Elem::kU8;
}

// A scalar operand's bits, as the intrinsics take it.
template <class T>
uint64_t ScalarBits(const T& v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  return bits;
}

// The UB byte at address addr of the running core.
inline uint8_t* UbAt(uint32_t addr) { return Core().ub.data() + addr; }

// False on the Atlas training series (dav-c100): SocProfile::countFormCounterMode.
inline bool CountFormUsesCounterMode() { return Core().soc->countFormCounterMode; }
// The model's arch of core c: dav-c220 (Atlas A2/A3), else dav-c100 (the training series).
isa::Arch CoreArch(const CoreContext& c);

// The instructions of a count-form call of `count` elements whose widest operand has widestBytes:
// issue(repeat, firstElement) issues one instruction of `repeat` repeats whose operands start
// firstElement elements in (each operand's pointer advanced by firstElement * its element size).
//   dav-c220: set_mask_count, set_vector_mask(0, count), one instruction (its repeat field ignored),
//             set_mask_norm, set_vector_mask(-1, -1);
//   dav-c100: normal mode and the full mask, one instruction per 255 full repeats, one for the rest of
//             them, one under a mask for the tail lanes, then the full mask again.
template <class Issue>
void IssueCountForm(uint32_t widestBytes, uint64_t count, Issue&& issue) {
  if (CountFormUsesCounterMode()) {
    isa::SetMaskCount();
    isa::SetVectorMask(0, count);
    issue(uint64_t{1}, uint64_t{0});
    isa::SetMaskNorm();
    isa::SetVectorMask(~0ull, ~0ull);
    return;
  }
  constexpr uint64_t kMaxRepeat = 255;
  const uint64_t lanes = isa::num::kRepeatBytes / widestBytes, full = count / lanes, tail = count % lanes;
  isa::SetMaskNorm();
  isa::SetVectorMask(~0ull, ~0ull);
  for (uint64_t done = 0; done < full; done += kMaxRepeat) {
    issue(full - done < kMaxRepeat ? full - done : kMaxRepeat, done * lanes);
  }
  if (tail != 0) {
    uint64_t lo = 0, hi = 0;
    isa::num::LaneBits(tail, static_cast<uint32_t>(lanes), &lo, &hi);
    isa::SetVectorMask(hi, lo);
    issue(uint64_t{1}, full * lanes);
    isa::SetVectorMask(~0ull, ~0ull);
  }
}

// Repeat parameters of a dst/src0/src1 instruction (strides in 32-byte blocks).
inline isa::VecStrides Strides(uint64_t repeat, uint64_t dstBlk, uint64_t src0Blk, uint64_t src1Blk, uint64_t dstRep,
                               uint64_t src0Rep, uint64_t src1Rep) {
  return isa::VecStrides{repeat, dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep};
}

// Instructions bound to their operation and element type; the runners (vector_run.h) give them
// operands and repeat parameters. kModel marks a descriptor (vs. a lane function).
struct BinaryInstr {  // dst, src0, src1
  static constexpr bool kModel = true;
  const char* name;
  isa::BinOp op;
  isa::Elem type;
  void Issue(uint8_t* dst, const uint8_t* src0, const uint8_t* src1, const isa::VecStrides& s) const {
    isa::VecBinary(name, op, type, dst, src0, src1, s);
  }
};
struct ScalarInstr {  // dst, src, a scalar
  static constexpr bool kModel = true;
  const char* name;
  isa::ScalarOp op;
  isa::Elem type;
  uint64_t scalarBits;
  void Issue(uint8_t* dst, const uint8_t* src, const isa::VecStrides& s) const {
    isa::VecScalar(name, op, type, dst, src, scalarBits, s);
  }
};
struct UnaryInstr {  // dst, src
  static constexpr bool kModel = true;
  const char* name;
  isa::UnaryOp op;
  isa::Elem type;
  void Issue(uint8_t* dst, const uint8_t* src, const isa::VecStrides& s) const {
    isa::VecUnary(name, op, type, dst, src, s);
  }
};
struct ConvInstr {  // dst, src of another type
  static constexpr bool kModel = true;
  const char* name;
  isa::Elem to, from;
  isa::Round round;
  void Issue(uint8_t* dst, const uint8_t* src, const isa::VecStrides& s) const {
    isa::VecConv(name, to, from, round, dst, src, s);
  }
};

template <class F, class = void>
struct IsModelInstr : std::false_type {};
template <class F>
struct IsModelInstr<F, std::void_t<decltype(F::kModel)>> : std::true_type {};

// Installs the model's hooks for front end A (violations fail the kernel, counted vector
// instructions go to the core's CoreCounters, GM is read through gm::Read, which serves the views of
// strided and broadcast tensors) and resets the calling thread's model core onto ctx's UB, with the
// device's atomic stores (the DMA adds on dav-c100 too).
void BindModelCore(CoreContext& ctx);

}  // namespace vec
}  // namespace sim
