#include "host_failure.h"

#include <cstdio>

namespace normgrad {
namespace {
thread_local std::string t_lastFailure;
}  // namespace

ge::graphStatus HostFailure(const char* opType, const std::string& why) {
  t_lastFailure = std::string(opType) + ": " + why;
#ifndef NORMGRAD_SIMULATOR  // the simulator's aclnn layer reports it in its own message
  std::fprintf(stderr, "[ERROR] normgrad %s\n", t_lastFailure.c_str());
#endif
  return ge::GRAPH_FAILED;
}

const std::string& LastHostFailure() { return t_lastFailure; }

void ClearHostFailure() { t_lastFailure.clear(); }

}  // namespace normgrad
