// The simulator's side of the aclnn layer (simulator-only host code): error statuses with messages,
// tensor descriptions, and the executor that the workspace-size phase builds and the execute phase
// runs. The level-2 API files (aclnn_*_backward.cpp) do not include it: they are written over CANN's
// opdev surface, which the simulator maps onto this executor (sim/include/opdev, sim/src/opdev_*).
//
// Data flow of one operator call:
//   aclnnXxxGetWorkspaceSize: L2_DFX_PHASE_1 (live handles) -> the level-2 checks -> CREATE_EXECUTOR
//     -> l0op::Contiguous / Reshape / ZerosLike (gathers, zero fills, views) -> the level-0 launch
//     (ADD_TO_LAUNCHER_LIST_AICORE: registered tiling, AddKernel) -> l0op::ViewCopy (the result
//     placed in the output, or copied there) -> *workspaceSize = executor->GetWorkspaceSize().
//   aclnnXxx: CommonOpExecutorRun -> RunExecutor(...) resolves device addresses against the user's
//     workspace, gathers strided inputs, launches the kernels, scatters strided outputs, frees the executor.
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "exe_graph/runtime/shape.h"
#include "graph/types.h"
#include "shape_string.h"
#include "soc_features.h"
#include "simhost/op_runner.h"

namespace normgrad {

constexpr aclnnStatus kStatusNullptr = 161001;  // ACLNN_ERR_PARAM_NULLPTR
constexpr aclnnStatus kStatusInvalid = 161002;  // ACLNN_ERR_PARAM_INVALID
constexpr aclnnStatus kStatusInner = 561000;    // ACLNN_ERR_INNER: a kernel failed at run time

// Records "<api>: <message>" as the text aclGetRecentErrMsg() returns, and returns status.
aclnnStatus Error(aclnnStatus status, const char* api, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

// A tensor argument as the kernels see it.
struct TensorDesc {
  const char* name = "";         // the argument's name, for messages (a string literal)
  std::vector<int64_t> shape;    // view shape
  std::vector<int64_t> strides;  // view strides, elements
  int64_t offset = 0;            // view offset, elements
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_ND;
  void* data = nullptr;          // device address of element 0 of the storage
  int64_t numel = 0;             // product of shape (1 for a 0-d tensor)
  bool contiguous = true;        // row-major strides and offset 0
  uint64_t storageSerial = 0;    // the device allocation the storage was made on (0: empty storage)
};
// The description of tensor argument `name` of api: ACL_SUCCESS, or 161001 for null, 161002
// naming it when the handle is not a live aclTensor (destroyed, another kind, never made) or its
// storage was freed (aclrtFree) since aclCreateTensor, reallocated at the same address or not.
aclnnStatus Describe(const char* api, const char* name, const aclTensor* t, TensorDesc* out);
// kStatusInvalid naming the tensor when its storage is no longer the allocation it was made on
// (suffix ends the message).
aclnnStatus CheckStorage(const char* api, const TensorDesc& t, const char* suffix);
size_t DtypeBytes(aclDataType dtype);  // 0 for a type normgrad does not handle
const char* DtypeName(aclDataType dtype);
// A tensor as the registered host functions see it (shape, data type); aclDataType and
// ge::DataType share their codes.
sim::host::TensorArg TensorArgOf(const std::vector<int64_t>& shape, aclDataType dtype);
// Tiles one launch of opType with its registered tiling function, as CANN's runtime does (inputs
// and outputs in OpDef order, attributes by name). Returns "" with *result filled, else why not:
// the tiling function's recorded reason.
std::string RegisteredTiling(const char* opType, const std::vector<sim::host::TensorArg>& inputs,
                             const std::vector<sim::host::TensorArg>& outputs, const sim::host::NamedAttrs& attrs,
                             sim::host::TilingResult* result);
// Calls f(storageIndex, linearIndex) for every element of the view, in row-major order.
template <typename F>
void ForEachElement(const TensorDesc& t, F f) {
  if (t.numel == 0) return;
  const size_t rank = t.shape.size();
  std::vector<int64_t> idx(rank, 0);
  int64_t storage = t.offset;
  for (int64_t linear = 0; linear < t.numel; ++linear) {
    f(storage, linear);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < t.shape[d]) {
        storage += t.strides[d];
        break;
      }
      storage -= (t.shape[d] - 1) * t.strides[d];
      idx[d] = 0;
    }
  }
}
// The chip the call runs on as the tilings see it (SocFeaturesOf over the simulator's
// PlatformAscendC of the current SoC profile: the one platform seam) and its name, for argument
// checks and messages.
struct CallSoc {
  SocFeatures features;
  const char* name;    // the profile: a family ("ascend910b") or a chip ("Ascend910B3")
  const char* family;  // its family, the name an OpDef's AddConfig lists
};
CallSoc CurrentCallSoc();
// The values of array argument `name` of api: ACL_SUCCESS, or 161001 for null, 161002 naming it
// when the handle is not a live array of that kind.
aclnnStatus IntArrayValues(const char* api, const char* name, const aclIntArray* array, std::vector<int64_t>* out);
aclnnStatus BoolArrayValues(const char* api, const char* name, const aclBoolArray* array, std::vector<bool>* out);

// A device address known only at execute time (it may live in the user's workspace).
struct DevPtr {
  DevPtr() = default;
  DevPtr(void* d, int64_t ws) : direct(d), wsOffset(ws) {}
  void* direct = nullptr;        // a user tensor's own memory
  int64_t wsOffset = -1;         // >= 0: this offset in the workspace
  // Set: the address is this buffer's, placed after the pointer was taken (an executor tensor of
  // a level-2 plan: in an output by ViewCopy, else in the workspace by GetWorkspaceSize).
  std::shared_ptr<DevPtr> late;
  bool IsNull() const { return direct == nullptr && wsOffset < 0 && !late; }
};

// Kernel entry adapter: receives the resolved GM addresses in the order given to AddKernel,
// then the kernel workspace and the tiling, and calls the extern "C" kernel entry.
using KernelThunk = std::function<void(uint8_t* const* args, uint8_t* workspace, uint8_t* tiling)>;

}  // namespace normgrad

// The executor handle of the two-phase API (declared opaque in aclnn/acl_meta.h).
struct aclOpExecutor {
  // Every executor is registered while it lives, so that the execute phase can refuse a pointer
  // that is not one (already run and freed, or never returned by GetWorkspaceSize).
  aclOpExecutor();
  ~aclOpExecutor();
  aclOpExecutor(const aclOpExecutor&) = delete;
  aclOpExecutor& operator=(const aclOpExecutor&) = delete;
  // The execute phase's claim on e for api with this workspace: kClaimed (e is no longer
  // registered: the caller runs and deletes it), kBadWorkspace (*status says why; e is no longer
  // registered either: the caller deletes it unrun, as an execute call spends its executor),
  // kNotLive (not a live executor) or kOtherApi (made by another API; e stays live).
  enum Claim { kClaimed, kNotLive, kOtherApi, kBadWorkspace };
  static Claim ClaimFor(aclOpExecutor* e, const char* api, void* workspace, uint64_t workspaceSize,
                        aclnnStatus* status);
  // ACL_SUCCESS, or the status and message for a workspace smaller than asked, null, or not device memory.
  aclnnStatus CheckWorkspace(void* workspace, uint64_t workspaceSize) const;

  std::string api;  // "aclnnGroupNormBackward", for messages

  // A contiguous device image of an input: the tensor itself when it is contiguous; for a
  // broadcast view (a zero stride on a dim of size > 1) a view region of the simulator
  // (sim::gm::RegisterView) that the kernels read as the image without it being stored, so an
  // expanded input costs no memory (on a device CANN materialises it in the workspace);
  // otherwise workspace that the execute phase fills by gathering the strided view first. Each
  // records the tensor for Run's storage check.
  normgrad::DevPtr ContiguousInput(const normgrad::TensorDesc& t);
  // A contiguous device image of an output: the tensor itself when contiguous, otherwise
  // workspace that the execute phase scatters into the strided view after the kernels ran.
  normgrad::DevPtr ContiguousOutput(const normgrad::TensorDesc& t);
  // Copies the contiguous image at src into the output view t after the kernels ran.
  void AddCopyToOutput(normgrad::DevPtr src, const normgrad::TensorDesc& t);
  // Reserves bytes of workspace (512-byte aligned, zero-initialised before the kernels run when
  // zeroed is true, for soft SyncAll flags and accumulators).
  normgrad::DevPtr ReserveWorkspace(uint64_t bytes, bool zeroed = false);
  // Fills bytes at dst with zero before the kernels (empty-tensor outputs such as dgamma at N = 0).
  void AddZeroFill(normgrad::DevPtr dst, uint64_t bytes);
  // Launches a kernel: args are resolved in order (a null DevPtr passes nullptr), the kernel gets
  // kernelWorkspaceBytes of its own workspace and a device copy of the tiling bytes.
  void AddKernel(const std::string& name, uint32_t blockDim, const void* tiling, size_t tilingBytes,
                 std::vector<normgrad::DevPtr> args, uint64_t kernelWorkspaceBytes,
                 normgrad::KernelThunk thunk);
  uint64_t WorkspaceBytes() const { return workspaceBytes_; }

  // CANN's opdev surface for level-2 plans (sim/src/opdev_executor.cpp). AllocTensor: a contiguous
  // tensor of the executor, its buffer placed late (DevPtr::late); GetWorkspaceSize places in the
  // workspace the buffers that a step reads and no ViewCopy placed in an output, and returns the
  // workspace bytes.
  // A buffer that no step reads (a kernel's output that the plan leaves out) gets no memory: the
  // kernel receives nullptr for it, so a kernel writing an output it was told not to compute faults.
  aclTensor* AllocTensor(const gert::Shape& shape, ge::DataType dataType, ge::Format format = ge::FORMAT_ND);
  uint64_t GetWorkspaceSize();
  void MarkRead(const normgrad::DevPtr& p);  // a step reads p: its AllocTensor buffer needs memory
  // A tensor of the executor: contiguous, at ptr. Its handle (in the handle table, so that the
  // aclTensor methods read it) is destroyed with the executor.
  struct OwnTensor {
    normgrad::TensorDesc desc;
    normgrad::DevPtr ptr;
  };
  aclTensor* AddOwnTensor(normgrad::TensorDesc desc, normgrad::DevPtr ptr);
  const OwnTensor* FindOwn(const aclTensor* t) const;
  // The name of a tensor argument of the API call that made the executor (L2_DFX_PHASE_1), for
  // messages; valid while the executor lives.
  const char* ArgumentName(const aclTensor* t) const {
    auto it = argNames_.find(t);
    return it == argNames_.end() ? "a tensor" : it->second.c_str();
  }
  std::map<const aclTensor*, std::string> argNames_;

  // Execute phase, on a workspace CheckWorkspace accepted: checks that every tensor's storage is
  // still the allocation it was made on (else kStatusInvalid naming it, and nothing runs), then
  // runs every step in order. Returns ACL_SUCCESS or an error status with the message recorded (a
  // kernel fault in the simulator becomes kStatusInner with its text).
  aclnnStatus Run(void* workspace, uint64_t workspaceSize);

  struct Step {
    std::function<aclnnStatus(uint8_t* ws)> run;
  };
  std::vector<Step> pre_;     // gathers, zero fills
  std::vector<Step> kernels_;
  std::vector<Step> post_;    // scatters of strided outputs
  std::vector<void*> views_;  // view regions of broadcast inputs, released with the executor
  std::vector<normgrad::TensorDesc> tensors_;  // every tensor the steps touch, for the storage check
  uint64_t workspaceBytes_ = 0;
  std::map<const aclTensor*, OwnTensor> own_;
  struct LateBuffer {
    std::shared_ptr<normgrad::DevPtr> at;
    uint64_t bytes;
    bool read;
  };
  std::vector<LateBuffer> late_;  // AllocTensor's buffers
};

namespace normgrad {
// The whole execute phase of an aclnn API: checks the arguments, runs and deletes the executor.
// No exception leaves it (simhost/c_boundary.h): one becomes kStatusInner with its text.
aclnnStatus RunExecutor(const char* api, void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                        aclrtStream stream) noexcept;
}  // namespace normgrad
