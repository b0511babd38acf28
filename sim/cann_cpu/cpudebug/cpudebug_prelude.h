// Force-included by `normgrad cpudebug cc` (python/normgrad/cpudebug.py) into every translation unit of a
// user's CPU-debug program, before its own first line: CANN's Ascend C (kernel_operator.h, as a kernel file
// includes it first) and then the instruction-level model's definitions of the intrinsic templates that
// cann-check's stub_fun.h declares, so whatever intrinsic argument list the program's kernels use is
// instantiated in the program itself (the libraries hold only those of the project's kernels).
#pragma once
#include "kernel_operator.h"
#include "normgrad_isa/intrinsics.h"
