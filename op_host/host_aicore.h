// NORMGRAD_HOST_AICORE marks a function that both the host tiling and the kernels call (the
// constexpr UB layouts, KernelDtypeBytes). CANN's device compiler needs such a function marked
// [host, aicore] (asc-devkit's __host_aicore__); host compilers, CANN's CPU-debug mode and the
// simulator need nothing. Device-compiler behaviour is not verified here (no bisheng on this
// machine; cann-check compiles with g++).
#pragma once

#ifndef NORMGRAD_HOST_AICORE
#if defined(__host_aicore__)
#define NORMGRAD_HOST_AICORE __host_aicore__
#elif defined(__CCE_AICORE__) && !defined(__CCE_KT_TEST__)
// The device compiler before kernel_operator.h defined __host_aicore__ (include order).
#define NORMGRAD_HOST_AICORE [host, aicore]
#else
#define NORMGRAD_HOST_AICORE
#endif
#endif
