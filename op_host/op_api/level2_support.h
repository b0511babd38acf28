// What the three level-2 aclnn files (aclnn_*_backward.cpp) share, written once over CANN's opdev
// surface so that the same source builds for the NPU (CANN's nnopbase) and for the simulator (its
// opdev headers, sim/include/opdev): failing with a status and a message naming the argument, a
// tensor's dims, element counts without overflow, dtype names, the SoC's bfloat16 support, and
// the C boundary.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "opdev/common_types.h"
#include "opdev/op_errno.h"
#include "opdev/op_log.h"
#include "opdev/platform.h"
#include "shape_string.h"

#ifdef NORMGRAD_SIMULATOR
#include "simhost/c_boundary.h"
// No C++ exception crosses the C boundary (simhost/c_boundary.h): one becomes 561000 with its text.
#define NORMGRAD_L2_BOUNDARY(api, ...) ::sim::host::CBoundary<aclnnStatus>(api, ACLNN_ERR_INNER, [&] __VA_ARGS__)
#else
#define NORMGRAD_L2_BOUNDARY(api, ...) ([&] __VA_ARGS__)()
#endif

// CANN compiles cust_opapi with -fvisibility=hidden; the API functions must stay visible.
#define NORMGRAD_L2_EXPORT __attribute__((visibility("default")))

// Logs "<api>: <message>" (OP_LOGE: readable with aclGetRecentErrMsg) and returns `status`.
#define NORMGRAD_L2_FAIL(status, api, fmt, ...)       \
  do {                                                \
    OP_LOGE(status, "%s: " fmt, api, ##__VA_ARGS__);  \
    return status;                                    \
  } while (false)

namespace normgrad {
namespace l2 {

constexpr size_t kMaxDims = 8;  // the pages: gradOut and input have at most 8 dimensions

inline std::vector<int64_t> Dims(const aclTensor* t) {
  const op::Shape s = t->GetViewShape();
  std::vector<int64_t> dims(s.GetDimNum());
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = s.GetDim(i);
  return dims;
}
inline std::string DimsOf(const aclTensor* t) { return ShapeString(Dims(t)); }

// Product of dims (1 for none); false when it overflows int64.
inline bool Numel(const std::vector<int64_t>& dims, int64_t* n) {
  *n = 1;
  for (int64_t d : dims) {
    if (__builtin_mul_overflow(*n, d, n)) return false;
  }
  return true;
}
inline int64_t Numel(const aclTensor* t) {
  int64_t n = 0;
  return Numel(Dims(t), &n) ? n : -1;
}

// The names messages use for dtypes ("float32", ...) and the element sizes of the ones normgrad
// handles (0 for others): one definition for both builds (the simulator's aclnn_common.h delegates).
inline const char* DtypeName(op::DataType dtype) {
  switch (dtype) {
    case ge::DT_FLOAT: return "float32";
    case ge::DT_FLOAT16: return "float16";
    case ge::DT_BF16: return "bfloat16";
    case ge::DT_INT32: return "int32";
    case ge::DT_INT64: return "int64";
    case ge::DT_INT8: return "int8";
    case ge::DT_UINT8: return "uint8";
    case ge::DT_BOOL: return "bool";
    case ge::DT_DOUBLE: return "float64";
    case ge::DT_INT16: return "int16";
    case ge::DT_UINT16: return "uint16";
    case ge::DT_UINT32: return "uint32";
    case ge::DT_UINT64: return "uint64";
    case ge::DT_UNDEFINED: return "undefined";
    default: return "unsupported";
  }
}
inline size_t DtypeBytes(op::DataType dtype) {
  switch (dtype) {
    case ge::DT_FLOAT: case ge::DT_INT32: return 4;
    case ge::DT_FLOAT16: case ge::DT_BF16: return 2;
    case ge::DT_INT64: return 8;
    case ge::DT_INT8: case ge::DT_UINT8: case ge::DT_BOOL: return 1;
    default: return 0;
  }
}

// The SoC families normgrad builds for, by the name their OpDefs' AddConfig uses.
inline const char* SocName(op::SocVersion soc) {
  switch (soc) {
    case op::SocVersion::ASCEND910: return "ascend910";
    case op::SocVersion::ASCEND910B: return "ascend910b";
    case op::SocVersion::ASCEND910_93: return "ascend910_93";
    case op::SocVersion::ASCEND310P: return "ascend310p";
    case op::SocVersion::ASCEND950: return "ascend950";
    default: return "this SoC";
  }
}
// bfloat16 exists on Atlas A2/A3 and Ascend 950, not on the training (ascend910) or inference
// (ascend310p) series.
inline bool HasBf16(op::SocVersion soc) {
  return soc != op::SocVersion::ASCEND910 && soc != op::SocVersion::ASCEND310P;
}
// float32 and float16 everywhere; bfloat16 where the SoC has it.
inline bool FloatDtypeOnSoc(op::DataType dtype, op::SocVersion soc) {
  return dtype == ge::DT_FLOAT || dtype == ge::DT_FLOAT16 || (dtype == ge::DT_BF16 && HasBf16(soc));
}

// The SoC the call runs on must be one of the operator's families (served_socs.h), any chip of it:
// else 161002 "SoC <chip> (<family>) is not served: this operator runs on <families> (<why>)".
template <size_t N>
aclnnStatus CheckSocServed(const char* api, const char* const (&socs)[N], const char* why) {
  const op::PlatformInfo& platform = op::GetCurrentPlatformInfo();
  const char* family = SocName(platform.GetSocVersion());
  std::string served;
  for (const char* soc : socs) {
    if (std::strcmp(soc, family) == 0) return ACLNN_SUCCESS;
    served += (served.empty() ? "" : ", ") + std::string(soc);
  }
  const std::string& chip = platform.GetSocLongVersion();
  const std::string which = chip == family ? chip : chip + " (" + family + ")";
  NORMGRAD_L2_FAIL(ACLNN_ERR_PARAM_INVALID, api, "SoC %s is not served: this operator runs on %s (%s)", which.c_str(),
                   served.c_str(), why);
}

// What the kernels need of the views beyond their shapes; each returns ACLNN_SUCCESS or 161002
// naming the argument(s).
// A tensor spans at most 2^40 bytes: a larger view (only possible with zero strides) would need
// more workspace than any device has.
aclnnStatus CheckSpan(const char* api, const char* name, const aclTensor* t);
// An output: CheckSpan, and no two of its elements share an address (the kernel's writes would collide).
aclnnStatus CheckOutputView(const char* api, const char* name, const aclTensor* t);
// No output's bytes meet another argument's: the kernels read the inputs while other cores write
// the outputs. tensors in argument order (t nullptr: absent or not requested), outputs from firstOutput on.
struct NamedArg {
  const char* name;
  const aclTensor* t;
};
aclnnStatus CheckDisjoint(const char* api, const std::vector<NamedArg>& tensors, size_t firstOutput);

// Steps of the executor plans (level2_plan_steps.cpp). Each fails with ACLNN_ERR_INNER_NULLPTR (or
// nullptr) when a level-0 operator does.
// A contiguous copy of t (t itself when contiguous) under shape (the same element count).
const aclTensor* ContiguousAs(const aclTensor* t, const op::Shape& shape, aclOpExecutor* executor);
// Zeros into out: a requested parameter gradient of an empty input (a sum over nothing).
aclnnStatus ZeroInto(aclTensor* out, aclOpExecutor* executor);
// result, an executor tensor with out's element count, reshaped to out's shape and copied into out
// (any strides).
aclnnStatus CopyInto(const aclTensor* result, aclTensor* out, aclOpExecutor* executor);

// aclnnBatchNormElemtBackward's counter is device data. The simulator checks its values in the
// execute phase before the kernel (each finite and >= 0, the total > 0; else 161002 naming the
// element); the NPU build has no host step that could read them and adds nothing (docs/npu.md).
aclnnStatus AddCounterCheck(const char* api, const aclTensor* counter, aclOpExecutor* executor);

}  // namespace l2
}  // namespace normgrad
