// Compiler helpers of CANN's graph headers (graph/compiler_def.h).
#pragma once

#if defined(__GNUC__)
#define VAR_UNUSED __attribute__((unused))
#else
#define VAR_UNUSED
#endif
