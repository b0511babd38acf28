// GE's data type and format enums (graph/types.h in CANN), with CANN's values, and their names.
#pragma once
#include <cstdint>

#include "graph/ge_error_codes.h"

namespace ge {

using char_t = char;

enum DataType {
  DT_FLOAT = 0,
  DT_FLOAT16 = 1,
  DT_INT8 = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 6,
  DT_UINT16 = 7,
  DT_UINT32 = 8,
  DT_INT64 = 9,
  DT_UINT64 = 10,
  DT_DOUBLE = 11,
  DT_BOOL = 12,
  DT_STRING = 13,
  DT_COMPLEX64 = 16,
  DT_COMPLEX128 = 17,
  DT_BF16 = 27,
  DT_UNDEFINED = 28,
};

enum Format {
  FORMAT_NCHW = 0,
  FORMAT_NHWC = 1,
  FORMAT_ND = 2,
  FORMAT_NC1HWC0 = 3,
  FORMAT_FRACTAL_Z = 4,
  FORMAT_NC1HWC0_C04 = 12,
  FORMAT_HWCN = 16,
  FORMAT_NDHWC = 27,
  FORMAT_FRACTAL_NZ = 29,
  FORMAT_NCDHW = 30,
  FORMAT_NDC1HWC0 = 32,
  FORMAT_NC = 35,
  FORMAT_RESERVED = 40,
  FORMAT_NCL = 47,
};

// "DT_FLOAT", "FORMAT_ND", ...; "DT_<n>" / "FORMAT_<n>" for values without a name here.
const char* DataTypeName(DataType dt);
const char* FormatName(Format f);

}  // namespace ge
