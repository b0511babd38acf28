// Cast rounding (every RoundMode bit-exact, with saturation) and the legal cast matrix per SoC
// (docs/hardware-rules.md §6).
#include "ascendc/cast.h"

#include <cmath>
#include <string>

namespace sim {
namespace vec {
namespace {

using AscendC::RoundMode;

constexpr uint32_t Bit(RoundMode m) { return 1u << static_cast<uint32_t>(m); }
constexpr uint32_t kNone = Bit(RoundMode::CAST_NONE);
constexpr uint32_t kOdd = Bit(RoundMode::CAST_ODD);
constexpr uint32_t kDirected = Bit(RoundMode::CAST_RINT) | Bit(RoundMode::CAST_FLOOR) | Bit(RoundMode::CAST_CEIL) |
                               Bit(RoundMode::CAST_ROUND) | Bit(RoundMode::CAST_TRUNC);

struct CastRule {
  TypeCode src, dst;
  uint32_t modes;
};

// A2/A3 (arch 2201), docs/hardware-rules.md §6. int32 -> half needs SetDeqScale and is left out.
const CastRule kRules2201[] = {
    {TypeCode::kHalf, TypeCode::kFloat, kNone},
    {TypeCode::kBf16, TypeCode::kFloat, kNone},
    {TypeCode::kFloat, TypeCode::kHalf, kDirected | kOdd | kNone},
    {TypeCode::kFloat, TypeCode::kBf16, kDirected},
    {TypeCode::kInt32, TypeCode::kFloat, kDirected | kNone},
    {TypeCode::kFloat, TypeCode::kInt32, kDirected},
    {TypeCode::kFloat, TypeCode::kInt16, kDirected},
    {TypeCode::kFloat, TypeCode::kInt64, kDirected},
    {TypeCode::kFloat, TypeCode::kFloat, kDirected},
    {TypeCode::kHalf, TypeCode::kInt32, kDirected},
    {TypeCode::kHalf, TypeCode::kInt16, kDirected},
    {TypeCode::kHalf, TypeCode::kInt8, kDirected | kNone},
    {TypeCode::kHalf, TypeCode::kUint8, kDirected | kNone},
    {TypeCode::kBf16, TypeCode::kInt32, kDirected},
    {TypeCode::kInt16, TypeCode::kHalf, kDirected | kNone},
    {TypeCode::kInt16, TypeCode::kFloat, kNone},
    {TypeCode::kInt8, TypeCode::kHalf, kNone},
    {TypeCode::kUint8, TypeCode::kHalf, kNone},
    {TypeCode::kInt32, TypeCode::kInt16, kNone},
    {TypeCode::kInt32, TypeCode::kInt64, kNone},
    {TypeCode::kInt64, TypeCode::kInt32, kNone},
    {TypeCode::kInt64, TypeCode::kFloat, kDirected},
};

// Atlas training (arch 1001): no bf16, float -> half only CAST_NONE / CAST_ODD. The rest of
// this table is the subset believed common to both archs (not verified against 1001 docs).
const CastRule kRules1001[] = {
    {TypeCode::kHalf, TypeCode::kFloat, kNone},
    {TypeCode::kFloat, TypeCode::kHalf, kOdd | kNone},
    {TypeCode::kInt32, TypeCode::kFloat, kNone},
    {TypeCode::kFloat, TypeCode::kInt32, kDirected},
    {TypeCode::kHalf, TypeCode::kInt32, kDirected},
    {TypeCode::kHalf, TypeCode::kInt8, kNone},
    {TypeCode::kHalf, TypeCode::kUint8, kNone},
    {TypeCode::kInt8, TypeCode::kHalf, kNone},
    {TypeCode::kUint8, TypeCode::kHalf, kNone},
};

const char* TypeName(TypeCode t) {
  switch (t) {
    case TypeCode::kHalf: return "half";
    case TypeCode::kBf16: return "bfloat16_t";
    case TypeCode::kFloat: return "float";
    case TypeCode::kInt8: return "int8_t";
    case TypeCode::kUint8: return "uint8_t";
    case TypeCode::kInt16: return "int16_t";
    case TypeCode::kInt32: return "int32_t";
    case TypeCode::kInt64: return "int64_t";
    default: return "an unsupported type";
  }
}

const char* ModeName(RoundMode m) {
  static const char* const kNames[] = {"CAST_NONE", "CAST_RINT",  "CAST_FLOOR", "CAST_CEIL",
                                       "CAST_ROUND", "CAST_TRUNC", "CAST_ODD",   "CAST_HYBRID"};
  unsigned i = static_cast<unsigned>(m);
  return i < 8 ? kNames[i] : "an unknown RoundMode";
}

std::string ModeList(uint32_t modes) {
  std::string s;
  for (unsigned i = 0; i < 8; ++i) {
    if (!(modes & (1u << i))) continue;
    if (!s.empty()) s += ", ";
    s += ModeName(static_cast<RoundMode>(i));
  }
  return s;
}

}  // namespace

float ToFloat(double x, Rounding r, bool integralResult) {
  if (integralResult) return static_cast<float>(RoundIntegral(x, r));
  return static_cast<float>(RoundToPrecision(x, 24, -126, r));
}

float Int64ToFloat(int64_t v, Rounding r) {
  bool negative = v < 0;
  uint64_t mag = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  int bits = mag == 0 ? 0 : 64 - __builtin_clzll(mag);
  if (bits <= 24) return static_cast<float>(v);
  int shift = bits - 24;
  uint64_t kept = mag >> shift;
  uint64_t rem = mag & ((1ull << shift) - 1);
  uint64_t halfway = 1ull << (shift - 1);
  // Directions are on the magnitude; floor and ceil swap for negative values.
  bool up = false;
  switch (r) {
    case Rounding::kEven: up = rem > halfway || (rem == halfway && (kept & 1u)); break;
    case Rounding::kAway: up = rem >= halfway; break;
    case Rounding::kTrunc: break;
    case Rounding::kFloor: up = negative && rem != 0; break;
    case Rounding::kCeil: up = !negative && rem != 0; break;
    case Rounding::kOdd: up = rem != 0 && !(kept & 1u); break;
  }
  double m = std::ldexp(static_cast<double>(kept + (up ? 1 : 0)), shift);  // exact: <= 25 bits
  return static_cast<float>(negative ? -m : m);
}

half ToHalf(double x, Rounding r) { return half::FromBits(normgrad::isa::num::ToHalfBits(x, r)); }

bfloat16_t ToBf16(double x, Rounding r) { return bfloat16_t::FromBits(normgrad::isa::num::ToBf16Bits(x, r)); }

int64_t ToInt(double x, Rounding r, int64_t lo, int64_t hi) {
  if (std::isnan(x)) return 0;
  double n = RoundIntegral(x, r);
  if (n <= static_cast<double>(lo)) return lo;
  if (n >= static_cast<double>(hi)) return hi;  // 2^63 for int64: the clamp is exact
  return static_cast<int64_t>(n);
}

Rounding ResolveCast(TypeCode dst, TypeCode src, RoundMode mode) {
  const SocProfile* soc = Core().soc;
  bool is2201 = soc->hasBf16;
  const CastRule* rules = is2201 ? kRules2201 : kRules1001;
  size_t n = is2201 ? sizeof(kRules2201) / sizeof(CastRule) : sizeof(kRules1001) / sizeof(CastRule);
  for (size_t i = 0; i < n; ++i) {
    if (rules[i].src != src || rules[i].dst != dst) continue;
    if (!(rules[i].modes & Bit(mode))) {
      Fail("Cast", "%s -> %s with %s is not supported on %s (allowed: %s)", TypeName(src), TypeName(dst),
           ModeName(mode), soc->name, ModeList(rules[i].modes).c_str());
    }
    switch (mode) {
      case RoundMode::CAST_FLOOR: return Rounding::kFloor;
      case RoundMode::CAST_CEIL: return Rounding::kCeil;
      case RoundMode::CAST_ROUND: return Rounding::kAway;
      case RoundMode::CAST_TRUNC: return Rounding::kTrunc;
      case RoundMode::CAST_ODD: return Rounding::kOdd;
      default: return Rounding::kEven;  // RINT, and NONE on a lossy pair
    }
  }
  if (src == TypeCode::kInt32 && dst == TypeCode::kHalf && is2201) {
    Fail("Cast", "int32_t -> half uses the SetDeqScale scale, which the simulator does not model");
  }
  Fail("Cast", "%s -> %s (%s) is not a supported conversion on %s", TypeName(src), TypeName(dst), ModeName(mode),
       soc->name);
}

}  // namespace vec
}  // namespace sim
