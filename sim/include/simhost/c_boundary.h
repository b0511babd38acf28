// The C boundary of the library: every extern "C" function (aclCreate*/aclDestroy*/aclGet*, aclrt*,
// aclnn*, normgradSim*) runs its body through CBoundary, so that no C++ exception (std::bad_alloc
// from a container, a simulator fault outside a launch, a bug) ever reaches a C caller, where it
// would abort the process. The exception becomes the function's error value, with
// "<api>: out of host memory (std::bad_alloc)" or "<api>: internal error: <what>" as the text
// aclGetRecentErrMsg() returns.
#pragma once
#include <exception>
#include <new>

namespace sim::host {

// Records "<api>: <what>" (what = nullptr: "<api>: <kind>"; else "<api>: <kind>: <what>") for
// aclGetRecentErrMsg() on this thread; allocates nothing, never throws.
void RecordCBoundaryFailure(const char* api, const char* kind, const char* what) noexcept;

template <typename R, typename Body>
R CBoundary(const char* api, R failed, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    RecordCBoundaryFailure(api, "out of host memory (std::bad_alloc)", nullptr);
  } catch (const std::exception& e) {
    RecordCBoundaryFailure(api, "internal error", e.what());
  } catch (...) {
    RecordCBoundaryFailure(api, "internal error", "an exception that is no std::exception");
  }
  return failed;
}

}  // namespace sim::host
