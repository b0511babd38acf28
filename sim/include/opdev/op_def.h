// opdev/op_def.h (CANN nnopbase): included by level-0 code; what it uses is in op_arg_def.h.
#pragma once
#include "opdev/op_arg_def.h"
