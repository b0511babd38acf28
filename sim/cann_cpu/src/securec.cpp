// The securec.h functions CANN's open CPU-debug sources call, with the library's contract: a null pointer, a
// zero or too small destination is an error (non-zero, or -1 for the printf family) and leaves an empty
// string where a string was asked for; nothing is written past destMax.
#include "securec.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

extern "C" {

errno_t memset_s(void* dest, size_t destMax, int c, size_t count) {
  if (dest == nullptr || destMax == 0) return EINVAL;
  if (count > destMax) {
    std::memset(dest, c, destMax);
    return ERANGE;
  }
  std::memset(dest, c, count);
  return EOK;
}

errno_t memcpy_s(void* dest, size_t destMax, const void* src, size_t count) {
  if (dest == nullptr || destMax == 0) return EINVAL;
  if (src == nullptr) return EINVAL;
  if (count > destMax) return ERANGE;
  std::memmove(dest, src, count);
  return EOK;
}

errno_t memmove_s(void* dest, size_t destMax, const void* src, size_t count) { return memcpy_s(dest, destMax, src, count); }

errno_t strncpy_s(char* strDest, size_t destMax, const char* strSrc, size_t count) {
  if (strDest == nullptr || destMax == 0) return EINVAL;
  if (strSrc == nullptr) {
    strDest[0] = '\0';
    return EINVAL;
  }
  const size_t n = strnlen(strSrc, count);
  if (n >= destMax) {
    strDest[0] = '\0';
    return ERANGE;
  }
  std::memcpy(strDest, strSrc, n);
  strDest[n] = '\0';
  return EOK;
}

errno_t strcpy_s(char* strDest, size_t destMax, const char* strSrc) {
  return strncpy_s(strDest, destMax, strSrc, destMax);
}

int vsnprintf_s(char* strDest, size_t destMax, size_t count, const char* format, va_list argList) {
  if (strDest == nullptr || destMax == 0 || format == nullptr) return -1;
  const size_t limit = count < destMax ? count + 1 : destMax;  // count characters plus the terminator
  const int n = std::vsnprintf(strDest, limit, format, argList);
  if (n < 0 || static_cast<size_t>(n) >= limit) {
    strDest[0] = '\0';
    return -1;
  }
  return n;
}

int snprintf_s(char* strDest, size_t destMax, size_t count, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  const int n = vsnprintf_s(strDest, destMax, count, format, ap);
  va_end(ap);
  return n;
}

int sprintf_s(char* strDest, size_t destMax, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  const int n = vsnprintf_s(strDest, destMax, destMax - 1, format, ap);
  va_end(ap);
  return n;
}

}  // extern "C"
