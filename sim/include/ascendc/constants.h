// Named hardware constants of the Ascend C API (kernel_utils_constants.h), arch 2201 values.
#pragma once
#include <cstdint>

namespace AscendC {

constexpr uint16_t ONE_BLK_SIZE = 32;
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr uint32_t DEFAULT_BLK_NUM = 8;
constexpr uint32_t DEFAULT_BLK_STRIDE = 1;
constexpr uint8_t DEFAULT_REPEAT_STRIDE = 8;
constexpr uint8_t HALF_DEFAULT_REPEAT_STRIDE = 4;
constexpr uint32_t MAX_REPEAT_TIMES = 255;
constexpr uint64_t FULL_MASK = 0xffffffffffffffffull;
constexpr uint16_t DEFAULT_DATA_COPY_NBURST = 1;
constexpr uint16_t DEFAULT_DATA_COPY_STRIDE = 0;
constexpr uint32_t ONE_BLK_FLOAT_NUM = 8;
constexpr uint32_t ONE_BLK_HALF_NUM = 16;
constexpr uint32_t ONE_REPEAT_FLOAT_SIZE = 64;
constexpr uint32_t ONE_REPEAT_HALF_SIZE = 128;
constexpr uint32_t B32_DATA_NUM_PER_REPEAT = 64;
constexpr uint32_t B16_DATA_NUM_PER_REPEAT = 128;
constexpr uint32_t BRCB_BROADCAST_NUMBER = 8;
constexpr uint32_t TOTAL_UB_SIZE = 192 * 1024;
constexpr uint32_t TMP_UB_OFFSET = 184 * 1024;
constexpr uint32_t QBUF_MAX_LEN = 64;
constexpr uint32_t QUE_MAX_EVENT = 8;
constexpr uint64_t MASK_PLACEHOLDER = 0;
constexpr uint64_t RESERVED_WORKSPACE = 16ull * 1024 * 1024;

}  // namespace AscendC
