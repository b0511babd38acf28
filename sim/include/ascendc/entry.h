// Kernel entry: device keywords, GM_ADDR, tiling-data macros, TILING_KEY_IS, core identity, workspace.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ascendc/core.h"

// Device keywords are empty in CPU-debug builds, as in CANN's CPU mode: functions that differ
// only by them collide, exactly as they do there.
#ifndef __global__
#define __global__
#endif
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t*
#endif

// Kernel types (KERNEL_TASK_TYPE_DEFAULT). Global on the device; also visible through AscendC.
enum KernelMetaType {
  KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIV_1_0, KERNEL_TYPE_MIX_AIC_1_0,
  KERNEL_TYPE_MIX_AIC_1_1, KERNEL_TYPE_MIX_AIC_1_2, KERNEL_TYPE_AICORE, KERNEL_TYPE_VECTORCORE,
  KERNEL_TYPE_MIX_AICORE, KERNEL_TYPE_MIX_VECTOR_CORE, KERNEL_TYPE_MAX
};

// The tiling key of the running kernel. Per host thread: sim::Launch hands the launching
// thread's value to every core, so concurrent launches from different threads do not mix.
extern thread_local uint64_t g_tilingKey;

namespace sim {
// Records the kernel type of this launch; fails for types whose cores the simulator lacks.
void SetKernelType(int type);
void SetKernelTypeForKey(uint64_t key, int type);
// Copies the tiling struct from GM (range-checked against the allocation registry).
void LoadTiling(void* dst, const uint8_t* src, size_t bytes, const char* api);
const char* KernelTypeName(int type);
}  // namespace sim

#define TILING_KEY_VAR g_tilingKey
#define TILING_KEY_IS(k) (g_tilingKey == static_cast<uint64_t>(k))

#define KERNEL_TASK_TYPE_DEFAULT(type) ::sim::SetKernelType(type)
#define KERNEL_TASK_TYPE(key, type) ::sim::SetKernelTypeForKey((key), (type))

// Registers the plain-struct TilingData that GET_TILING_DATA declares (kernel body or file scope).
#define REGISTER_TILING_DEFAULT(Struct) using NormgradDefaultTilingData_ = Struct
#define GET_TILING_DATA(var, tilingPtr)     \
  NormgradDefaultTilingData_ var;           \
  ::sim::LoadTiling(&var, (tilingPtr), sizeof(var), "GET_TILING_DATA")
#define GET_TILING_DATA_WITH_STRUCT(Struct, var, tilingPtr) \
  Struct var;                                               \
  ::sim::LoadTiling(&var, (tilingPtr), sizeof(var), "GET_TILING_DATA_WITH_STRUCT")
#define GET_TILING_DATA_MEMBER(Struct, member, var, tilingPtr)                                 \
  decltype(Struct::member) var;                                                                \
  ::sim::LoadTiling(&var, reinterpret_cast<const uint8_t*>(tilingPtr) + offsetof(Struct, member), \
                    sizeof(var), "GET_TILING_DATA_MEMBER")

namespace AscendC {

using ::KernelMetaType;

inline int64_t GetBlockIdx() { return sim::Core().blockIdx; }
inline int64_t GetBlockNum() { return sim::Core().blockNum; }
// The simulator runs vector cores only, one per block (AIV_ONLY / MIX_AIV_1_0).
inline int64_t GetTaskRatio() {
  sim::Core();
  return 1;
}
inline int64_t GetSubBlockIdx() {
  sim::Core();
  return 0;
}
inline int64_t GetSubBlockNum() {
  sim::Core();
  return 1;
}
constexpr int16_t GetDataBlockSizeInBytes() { return 32; }

// CPU-debug semantics: the user workspace is the pointer the kernel received.
GM_ADDR GetUserWorkspace(GM_ADDR workspace);

}  // namespace AscendC
