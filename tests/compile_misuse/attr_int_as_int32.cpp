// RuntimeAttrs::GetInt returns const int64_t*; reading it through an int32_t pointer is an error.
// expect-error: cannot convert|invalid conversion
#include <cstdint>

#include "exe_graph/runtime/runtime_attrs.h"

const int32_t* Groups(const gert::RuntimeAttrs* attrs) { return attrs->GetInt(0); }
