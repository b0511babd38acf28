// The one place the kernels ask which architecture they are compiled for (docs/hardware-rules.md).
//
// NORMGRAD_BLOCK_COPY_ARCH is 1 on the architectures without bfloat16, DataCopyPad and the hardware
// SyncAll (and its cross-core flags and MIX kernel types): the Atlas training series (dav-c100,
// __NPU_ARCH__ 1001) and the Atlas inference series (dav-m200, 2002, asc-devkit
// impl/basic_api/dav_m200: a bfloat16 Cast has no overload, DataCopyPad is marked unsupported,
// SyncAll() reports "Hardware SyncAll" unsupported; only the soft SyncAll over GM and UB workspaces
// exists). There the tilings select the whole-block copies and the soft SyncAll, and the kernels
// leave the other paths out of the build. The simulator defines no __NPU_ARCH__ and builds every
// path; its SoC profile fails the missing features at run time.
#pragma once

#if defined(__NPU_ARCH__) && (__NPU_ARCH__ == 1001 || __NPU_ARCH__ == 2002)
#define NORMGRAD_BLOCK_COPY_ARCH 1
#else
#define NORMGRAD_BLOCK_COPY_ARCH 0
#endif
