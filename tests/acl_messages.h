// What the tests of error messages share: the recent error text and a pointer as %p prints it.
#pragma once
#include <cstdio>
#include <string>

#include "acl/acl_base.h"

namespace acl_test {

inline std::string Msg() { return aclGetRecentErrMsg(); }

inline std::string Hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%p", p);
  return buf;
}

}  // namespace acl_test
