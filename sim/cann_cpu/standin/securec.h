// securec.h stand-in: the bounded-copy functions of the bounds-checking C library (libboundscheck), which
// CANN ships in binary form and which CANN's open CPU-debug sources call (regfwk, acl_stub, kern_fwk.h).
// Only the functions those sources use; each checks its bounds and returns EOK or an error code.
#ifndef NORMGRAD_CANN_CPU_SECUREC_H
#define NORMGRAD_CANN_CPU_SECUREC_H
#include <stdarg.h>
#include <stddef.h>
// The real header (through securectype.h) brings these in; CANN's sources rely on it (strlen, strerror).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef EOK
#define EOK 0
#endif
#ifdef __cplusplus
extern "C" {
#endif
typedef int errno_t;
errno_t memset_s(void* dest, size_t destMax, int c, size_t count);
errno_t memcpy_s(void* dest, size_t destMax, const void* src, size_t count);
errno_t memmove_s(void* dest, size_t destMax, const void* src, size_t count);
errno_t strcpy_s(char* strDest, size_t destMax, const char* strSrc);
errno_t strncpy_s(char* strDest, size_t destMax, const char* strSrc, size_t count);
int sprintf_s(char* strDest, size_t destMax, const char* format, ...);
int snprintf_s(char* strDest, size_t destMax, size_t count, const char* format, ...);
int vsnprintf_s(char* strDest, size_t destMax, size_t count, const char* format, va_list argList);
#ifdef __cplusplus
}
#endif
#endif
