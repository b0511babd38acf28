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
