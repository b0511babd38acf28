// opdev/op_log.h (CANN nnopbase), the part level-2 code uses: OP_LOGE records the message as the
// text aclGetRecentErrMsg() returns (CANN reports it there too); OP_LOGD is a debug log, dropped.
#pragma once
#include <cstdint>

#include "opdev/op_errno.h"

namespace normgrad_sim {
// Formats the message and records it for aclGetRecentErrMsg(); code is the status it goes with.
void OpLogError(int32_t code, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
}  // namespace normgrad_sim

#define OP_LOGE(errno, ...) ::normgrad_sim::OpLogError((errno), __VA_ARGS__)
#define OP_LOGD(...) \
  do {               \
  } while (false)
