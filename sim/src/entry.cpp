// Kernel entry helpers: tiling-key global, kernel type, tiling load, user workspace.
#include "ascendc/entry.h"

#include "core_runtime.h"

thread_local uint64_t g_tilingKey = 0;

namespace sim {

const char* KernelTypeName(int type) {
  static const char* const kNames[] = {
      "KERNEL_TYPE_AIV_ONLY", "KERNEL_TYPE_AIC_ONLY", "KERNEL_TYPE_MIX_AIV_1_0", "KERNEL_TYPE_MIX_AIC_1_0",
      "KERNEL_TYPE_MIX_AIC_1_1", "KERNEL_TYPE_MIX_AIC_1_2", "KERNEL_TYPE_AICORE", "KERNEL_TYPE_VECTORCORE",
      "KERNEL_TYPE_MIX_AICORE", "KERNEL_TYPE_MIX_VECTOR_CORE"};
  if (type < 0) return "undeclared (no KERNEL_TASK_TYPE_DEFAULT)";
  return type < KERNEL_TYPE_MAX ? kNames[type] : "?";
}

namespace {
void SetType(const char* api, int type, bool byKey) {
  CoreRuntime& rt = Runtime();
  if (type < 0 || type >= KERNEL_TYPE_MAX) Fail(api, "kernel type %d does not exist", type);
  switch (type) {
    case KERNEL_TYPE_AIC_ONLY: case KERNEL_TYPE_MIX_AIC_1_0: case KERNEL_TYPE_MIX_AIC_1_1:
    case KERNEL_TYPE_MIX_AIC_1_2: case KERNEL_TYPE_AICORE: case KERNEL_TYPE_MIX_AICORE:
      Fail(api, "%s runs cube cores, which the simulator does not model (vector kernels: AIV_ONLY or MIX_AIV_1_0)",
           KernelTypeName(type));
    default:
      break;
  }
  // KERNEL_TASK_TYPE for the running key wins over the default, whatever their order.
  if (byKey || !rt.kernelTypeByKey) rt.kernelType = type;
  rt.kernelTypeByKey = rt.kernelTypeByKey || byKey;
}
}  // namespace

void SetKernelType(int type) { SetType("KERNEL_TASK_TYPE_DEFAULT", type, false); }

void SetKernelTypeForKey(uint64_t key, int type) {
  if (g_tilingKey == key) SetType("KERNEL_TASK_TYPE", type, true);
}

void LoadTiling(void* dst, const uint8_t* src, size_t bytes, const char* api) {
  if (src == nullptr) Fail(api, "the tiling pointer is null");
  gm::CheckRange(api, src, bytes, false);
  std::memcpy(dst, src, bytes);
}

}  // namespace sim

namespace AscendC {

GM_ADDR GetUserWorkspace(GM_ADDR workspace) {
  if (workspace == nullptr) sim::Fail("GetUserWorkspace", "the workspace pointer is null");
  return workspace;
}

}  // namespace AscendC
