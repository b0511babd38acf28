// Model internals shared by the source files (not part of the library's interface).
#pragma once
#include <cstdint>

#include "normgrad_isa/model.h"

namespace normgrad {
namespace isa {

// Tells the atomic listener about the current atomic mode.
void NotifyAtomic();

}  // namespace isa
}  // namespace normgrad
