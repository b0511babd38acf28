// Simulator internals: the vector unit's arithmetic. float is IEEE single; half results are
// the exact result rounded once to half (RNE) and then saturated as in the A2/A3 default mode
// (inf -> +-65504, NaN -> 0); int16/int32 wrap. Also the rounding primitive Cast builds on.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ascendc/dtype.h"
#include "normgrad_isa/model.h"
#include "normgrad_isa/numerics.h"

namespace sim {
namespace vec {

// Types each API family accepts on A2/A3 (docs/hardware-rules.md §4, §6). bfloat16_t is storage only.
template <class T>
constexpr bool kIsArith = std::is_same<T, int16_t>::value || std::is_same<T, half>::value ||
                          std::is_same<T, int32_t>::value || std::is_same<T, float>::value;
template <class T>
constexpr bool kIsFloat = std::is_same<T, half>::value || std::is_same<T, float>::value;
template <class T>
constexpr bool kIsFill = std::is_same<T, int16_t>::value || std::is_same<T, uint16_t>::value ||
                         std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value ||
                         std::is_same<T, int32_t>::value || std::is_same<T, uint32_t>::value ||
                         std::is_same<T, float>::value;

// The bit-level arithmetic is shared with the instruction-level model (sim/isa): one definition.
using normgrad::isa::num::FloatToHalfSatBits;
using normgrad::isa::num::HalfBitsToFloat;

inline half HalfSat(float f) { return half::FromBits(FloatToHalfSatBits(f)); }
inline float Widen(half h) { return HalfBitsToFloat(h.bits); }

// double -> half RNE with saturation, straight from the double bits (one rounding).
inline half HalfSatD(double d) { return half::FromBits(normgrad::isa::num::HalfSatDBits(d)); }

// Binary operations: F on float (IEEE single), I on int64 of the int operands (then wrapped); kInstr
// and kIsa name the instruction the API issues (ascendc/isa_issue.h).
struct OpAdd {
  static constexpr const char* kInstr = "vadd";
  static constexpr normgrad::isa::BinOp kIsa = normgrad::isa::BinOp::kAdd;
  static float F(float a, float b) { return a + b; }
  static int64_t I(int64_t a, int64_t b) { return a + b; }
};
struct OpSub {
  static constexpr const char* kInstr = "vsub";
  static constexpr normgrad::isa::BinOp kIsa = normgrad::isa::BinOp::kSub;
  static float F(float a, float b) { return a - b; }
  static int64_t I(int64_t a, int64_t b) { return a - b; }
};
struct OpMul {
  static constexpr const char* kInstr = "vmul";
  static constexpr normgrad::isa::BinOp kIsa = normgrad::isa::BinOp::kMul;
  static float F(float a, float b) { return a * b; }
  static int64_t I(int64_t a, int64_t b) { return a * b; }
};
struct OpDiv {
  static constexpr const char* kInstr = "vdiv";
  static constexpr normgrad::isa::BinOp kIsa = normgrad::isa::BinOp::kDiv;
  static float F(float a, float b) { return a / b; }
};
// NaN in either operand gives NaN (the hardware rule is undocumented).
struct OpMax {
  static constexpr const char* kInstr = "vmax";
  static constexpr normgrad::isa::BinOp kIsa = normgrad::isa::BinOp::kMax;
  static float F(float a, float b) { return (a > b || a != a) ? a : b; }
  static int64_t I(int64_t a, int64_t b) { return a > b ? a : b; }
};
struct OpMin {
  static constexpr const char* kInstr = "vmin";
  static constexpr normgrad::isa::BinOp kIsa = normgrad::isa::BinOp::kMin;
  static float F(float a, float b) { return (a < b || a != a) ? a : b; }
  static int64_t I(int64_t a, int64_t b) { return a < b ? a : b; }
};

template <class Op>
inline float Apply2(float a, float b) { return Op::F(a, b); }
template <class Op>
inline half Apply2(half a, half b) { return HalfSat(Op::F(Widen(a), Widen(b))); }
template <class Op>
inline int32_t Apply2(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(Op::I(a, b)));
}
template <class Op>
inline int16_t Apply2(int16_t a, int16_t b) {
  return static_cast<int16_t>(static_cast<uint16_t>(Op::I(a, b)));
}

// Unary operations, evaluated in double and rounded once to the result type (shared with the
// instruction-level model).
using normgrad::isa::num::OpAbs;
using normgrad::isa::num::OpExp;
using normgrad::isa::num::OpLn;
using normgrad::isa::num::OpReciprocal;
using normgrad::isa::num::OpRsqrt;
using normgrad::isa::num::OpSqrt;

template <class Op>
inline float Apply1(float a) { return normgrad::isa::num::Unary1F32<Op>(a); }
template <class Op>
inline half Apply1(half a) { return half::FromBits(normgrad::isa::num::Unary1HalfBits<Op>(a.bits)); }

// Rounding directions of Cast (RoundMode without NONE, which resolves to one of these), and the
// rounding primitives, shared with the instruction-level model.
using normgrad::isa::num::Rounding;
using normgrad::isa::num::RoundIntegral;
using normgrad::isa::num::RoundToPrecision;

}  // namespace vec
}  // namespace sim
