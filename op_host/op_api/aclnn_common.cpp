// The aclnn layer shared by every operator: error text, tensor descriptions, and the executor
// that gathers strided inputs, zero-fills, launches kernels on the simulator and scatters
// strided outputs. Gathers, scatters and zero fills are host-side steps: they are not kernel
// launches, so they appear in neither sim::RunLog() nor the modeled kernel traffic.
#include "aclnn_common.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <set>

#include "ascendc/core.h"
#include "ascendc/launch.h"
#include "ascendc/soc.h"
#include "host_failure.h"
#include "level2_support.h"
#include "normgrad_sim.h"
#include "platform/platform_infos_def.h"
#include "simhost/acl_handles.h"
#include "simhost/c_boundary.h"
#include "simhost/cann_frontend.h"
#include "simhost/op_records.h"
#include "soc_features_of.h"

namespace normgrad {
namespace {

constexpr uint64_t kWorkspaceAlign = 512;

uint64_t AlignUp(uint64_t v) { return (v + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign; }

uint8_t* Resolve(const DevPtr& p, uint8_t* ws) {
  if (p.late) return Resolve(*p.late, ws);
  if (p.direct != nullptr) return static_cast<uint8_t*>(p.direct);
  if (p.wsOffset >= 0 && ws != nullptr) return ws + p.wsOffset;
  return nullptr;
}

bool IsContiguous(const TensorDesc& t) {
  if (t.numel == 0) return true;
  if (t.offset != 0) return false;
  int64_t expected = 1;
  for (size_t d = t.shape.size(); d-- > 0;) {
    if (t.shape[d] != 1 && t.strides[d] != expected) return false;  // size-1 dims may have any stride
    expected *= t.shape[d];
  }
  return true;
}

// A zero stride on a dim of size > 1: the view repeats elements (an expanded, broadcast tensor).
bool IsBroadcast(const TensorDesc& t) {
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (t.shape[d] > 1 && t.strides[d] == 0) return true;
  }
  return false;
}

// A device buffer holding the tiling bytes for one launch (kernels read tiling from GM).
class DeviceTiling {
 public:
  explicit DeviceTiling(const std::vector<uint8_t>& bytes) {
    size_t n = bytes.empty() ? 32 : bytes.size();
    data_ = static_cast<uint8_t*>(std::aligned_alloc(kWorkspaceAlign, AlignUp(n)));
    if (data_ == nullptr) throw std::bad_alloc();
    std::memset(data_, 0, n);
    if (!bytes.empty()) std::memcpy(data_, bytes.data(), bytes.size());
    try {
      sim::gm::Register(data_, n);
    } catch (...) {  // no destructor runs for a constructor that throws
      std::free(data_);
      throw;
    }
  }
  ~DeviceTiling() {
    sim::gm::Unregister(data_);
    std::free(data_);
  }
  DeviceTiling(const DeviceTiling&) = delete;
  DeviceTiling& operator=(const DeviceTiling&) = delete;
  uint8_t* data() const { return data_; }

 private:
  uint8_t* data_ = nullptr;
};

}  // namespace

aclnnStatus Error(aclnnStatus status, const char* api, const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  std::string msg = std::string(api) + ": " + buf;
  normgradSimSetRecentErrMsg(msg.c_str());
  return status;
}

aclnnStatus Describe(const char* api, const char* name, const aclTensor* t, TensorDesc* out) {
  if (t == nullptr) return Error(kStatusNullptr, api, "%s is null", name);
  normgrad_sim::TensorInfo info;
  std::string why = normgrad_sim::FindTensor(t, &info);
  if (!why.empty()) return Error(kStatusInvalid, api, "%s %s", name, why.c_str());
  TensorDesc d;
  d.name = name;
  d.shape = std::move(info.viewDims);
  d.strides = std::move(info.strides);
  d.offset = info.offset;
  d.dtype = info.dataType;
  d.format = info.format;
  d.data = info.data;
  d.storageSerial = info.storageSerial;
  d.numel = 1;
  for (int64_t s : d.shape) d.numel *= s;
  d.contiguous = IsContiguous(d);
  if (aclnnStatus st = CheckStorage(api, d, "")) return st;
  *out = std::move(d);
  return ACL_SUCCESS;
}

aclnnStatus CheckStorage(const char* api, const TensorDesc& t, const char* suffix) {
  std::string why = normgrad_sim::StorageProblem(t.data, t.storageSerial);
  if (why.empty()) return ACL_SUCCESS;
  return Error(kStatusInvalid, api, "%s's %s%s", t.name, why.c_str(), suffix);
}

size_t DtypeBytes(aclDataType dtype) { return l2::DtypeBytes(static_cast<ge::DataType>(dtype)); }

const char* DtypeName(aclDataType dtype) { return l2::DtypeName(static_cast<ge::DataType>(dtype)); }

sim::host::TensorArg TensorArgOf(const std::vector<int64_t>& shape, aclDataType dtype) {
  sim::host::TensorArg t;
  t.shape = shape;
  t.dtype = static_cast<ge::DataType>(dtype);
  return t;
}

std::string RegisteredTiling(const char* opType, const std::vector<sim::host::TensorArg>& inputs,
                             const std::vector<sim::host::TensorArg>& outputs, const sim::host::NamedAttrs& attrs,
                             sim::host::TilingResult* result) {
  ClearHostFailure();
  std::string error;
  if (sim::host::Runner::Tiling(opType, inputs, outputs, attrs, sim::CurrentSoc(), result, &error)) return "";
  // The tiling function's own reason names the shape's problem; the runner's says which call failed.
  const std::string& reason = LastHostFailure();
  const std::string prefix = std::string(opType) + ": ";
  if (reason.empty()) return error;
  return reason.compare(0, prefix.size(), prefix) == 0 ? reason.substr(prefix.size()) : reason;
}

aclnnStatus IntArrayValues(const char* api, const char* name, const aclIntArray* array, std::vector<int64_t>* out) {
  if (array == nullptr) return Error(kStatusNullptr, api, "%s is null", name);
  std::string why = normgrad_sim::FindIntArray(array, out);
  return why.empty() ? ACL_SUCCESS : Error(kStatusInvalid, api, "%s %s", name, why.c_str());
}

aclnnStatus BoolArrayValues(const char* api, const char* name, const aclBoolArray* array, std::vector<bool>* out) {
  if (array == nullptr) return Error(kStatusNullptr, api, "%s is null", name);
  std::string why = normgrad_sim::FindBoolArray(array, out);
  return why.empty() ? ACL_SUCCESS : Error(kStatusInvalid, api, "%s %s", name, why.c_str());
}

CallSoc CurrentCallSoc() {
  const sim::SocProfile& soc = sim::CurrentSoc();
  fe::PlatFormInfos platform(&soc);
  return CallSoc{SocFeaturesOf(&platform), soc.name, soc.family};
}

namespace {

aclnnStatus RunOnce(const char* api, void* workspace, uint64_t workspaceSize, aclOpExecutor* executor) {
  if (executor == nullptr) {
    return Error(kStatusNullptr, api, "executor is null; call %sGetWorkspaceSize first and pass the executor it returned",
                 api);
  }
  // CANN's executors run once: the execute phase frees them. A second run of the same pointer
  // would read freed memory, so only a registered (live) executor is run.
  // Claimed atomically, so that two threads running one executor cannot both free it.
  aclnnStatus workspaceStatus = ACL_SUCCESS;
  switch (aclOpExecutor::ClaimFor(executor, api, workspace, workspaceSize, &workspaceStatus)) {
    case aclOpExecutor::kNotLive:
      return Error(kStatusInvalid, api,
                   "executor %p is not a live executor: an executor runs once (this one already ran, or did not "
                   "come from %sGetWorkspaceSize); call %sGetWorkspaceSize again",
                   static_cast<void*>(executor), api, api);
    case aclOpExecutor::kOtherApi:
      return Error(kStatusInvalid, api, "executor %p was made by %sGetWorkspaceSize, not %sGetWorkspaceSize",
                   static_cast<void*>(executor), executor->api.c_str(), api);
    case aclOpExecutor::kBadWorkspace:
      delete executor;  // spent, as CANN's executors are by any execute call; a retry is kNotLive
      return workspaceStatus;
    case aclOpExecutor::kClaimed:
      break;
  }
  std::unique_ptr<aclOpExecutor> owned(executor);  // one execution per executor, as in CANN
  sim::ClearRunLog();
  return owned->Run(workspace, workspaceSize);
}

}  // namespace

aclnnStatus RunExecutor(const char* api, void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                        aclrtStream stream) noexcept {
  return sim::host::CBoundary(api, kStatusInner, [&] { return RunOnce(api, workspace, workspaceSize, executor); });
}

}  // namespace normgrad

using normgrad::DevPtr;
using normgrad::Error;
using normgrad::TensorDesc;

namespace {
std::mutex g_liveMutex;
std::set<const aclOpExecutor*> g_live;  // executors made and not yet run (or deleted)
}  // namespace

aclOpExecutor::aclOpExecutor() {
  std::lock_guard<std::mutex> lock(g_liveMutex);
  g_live.insert(this);
}

aclOpExecutor::~aclOpExecutor() {
  for (void* view : views_) sim::gm::UnregisterView(view);
  for (const auto& own : own_) normgrad_sim::RemoveTensor(own.first);
  std::lock_guard<std::mutex> lock(g_liveMutex);
  g_live.erase(this);
}

aclOpExecutor::Claim aclOpExecutor::ClaimFor(aclOpExecutor* e, const char* api, void* workspace,
                                              uint64_t workspaceSize, aclnnStatus* status) {
  std::lock_guard<std::mutex> lock(g_liveMutex);
  auto it = g_live.find(e);
  if (it == g_live.end()) return kNotLive;
  if (e->api != api) return kOtherApi;
  *status = e->CheckWorkspace(workspace, workspaceSize);
  g_live.erase(it);
  return *status != ACL_SUCCESS ? kBadWorkspace : kClaimed;
}

DevPtr aclOpExecutor::ContiguousInput(const TensorDesc& t) {
  tensors_.push_back(t);
  if (t.contiguous) return DevPtr{t.data, -1};
  const size_t elem = normgrad::DtypeBytes(t.dtype);
  if (normgrad::IsBroadcast(t)) {
    sim::gm::StridedSource src;
    src.storage = static_cast<const uint8_t*>(t.data);
    src.shape = t.shape;
    src.strides = t.strides;
    src.offset = t.offset;
    src.elemBytes = static_cast<uint32_t>(elem);
    if (void* view = sim::gm::RegisterView(src)) {
      views_.push_back(view);
      return DevPtr{view, -1};
    }  // no address space for it: gathered into the workspace below
  }
  DevPtr dst = ReserveWorkspace(static_cast<uint64_t>(t.numel) * elem);
  pre_.push_back({[t, elem, dst](uint8_t* ws) {
    const uint8_t* src = static_cast<const uint8_t*>(t.data);
    uint8_t* out = normgrad::Resolve(dst, ws);
    normgrad::ForEachElement(t, [&](int64_t s, int64_t l) { std::memcpy(out + l * elem, src + s * elem, elem); });
    return static_cast<aclnnStatus>(ACL_SUCCESS);
  }});
  return dst;
}

DevPtr aclOpExecutor::ContiguousOutput(const TensorDesc& t) {
  if (t.contiguous) {
    tensors_.push_back(t);
    return DevPtr{t.data, -1};
  }
  DevPtr src = ReserveWorkspace(static_cast<uint64_t>(t.numel) * normgrad::DtypeBytes(t.dtype));
  AddCopyToOutput(src, t);
  return src;
}

void aclOpExecutor::AddCopyToOutput(DevPtr src, const TensorDesc& t) {
  tensors_.push_back(t);
  const size_t elem = normgrad::DtypeBytes(t.dtype);
  post_.push_back({[t, elem, src](uint8_t* ws) {
    uint8_t* dst = static_cast<uint8_t*>(t.data);
    const uint8_t* in = normgrad::Resolve(src, ws);
    normgrad::ForEachElement(t, [&](int64_t s, int64_t l) { std::memcpy(dst + s * elem, in + l * elem, elem); });
    return static_cast<aclnnStatus>(ACL_SUCCESS);
  }});
}

DevPtr aclOpExecutor::ReserveWorkspace(uint64_t bytes, bool zeroed) {
  DevPtr p{nullptr, static_cast<int64_t>(workspaceBytes_)};
  workspaceBytes_ += normgrad::AlignUp(bytes);
  if (zeroed && bytes > 0) AddZeroFill(p, bytes);
  return p;
}

void aclOpExecutor::AddZeroFill(DevPtr dst, uint64_t bytes) {
  if (bytes == 0) return;
  pre_.push_back({[dst, bytes](uint8_t* ws) {
    std::memset(normgrad::Resolve(dst, ws), 0, bytes);
    return static_cast<aclnnStatus>(ACL_SUCCESS);
  }});
}

void aclOpExecutor::AddKernel(const std::string& name, uint32_t blockDim, const void* tiling, size_t tilingBytes,
                              std::vector<DevPtr> args, uint64_t kernelWorkspaceBytes, normgrad::KernelThunk thunk) {
  std::vector<uint8_t> tilingCopy(static_cast<const uint8_t*>(tiling), static_cast<const uint8_t*>(tiling) + tilingBytes);
  DevPtr kernelWs = kernelWorkspaceBytes > 0 ? ReserveWorkspace(kernelWorkspaceBytes) : DevPtr{};
  const std::string opApi = api;
  kernels_.push_back({[=](uint8_t* ws) -> aclnnStatus {
    std::vector<uint8_t*> resolved;
    resolved.reserve(args.size());
    for (const DevPtr& a : args) resolved.push_back(normgrad::Resolve(a, ws));
    uint8_t* kws = normgrad::Resolve(kernelWs, ws);
    // Soft SyncAll flags and accumulators in the kernel's workspace must start at zero.
    if (kws != nullptr) std::memset(kws, 0, kernelWorkspaceBytes);
    std::string frontEndError;
    if (sim::host::SelectedFrontEnd(&frontEndError) == sim::host::FrontEnd::kCann) {
      // Front end B: the same launch on CANN's Ascend C implementation (simhost/cann_frontend.h).
      const std::string why = sim::host::RunOnCannFrontEnd(name, blockDim, resolved, kws, tilingCopy);
      if (!why.empty()) {
        return Error(normgrad::kStatusInner, opApi.c_str(), "kernel %s failed on front end B with blockDim %u: %s",
                     name.c_str(), blockDim, why.c_str());
      }
      return static_cast<aclnnStatus>(ACL_SUCCESS);
    }
    if (!frontEndError.empty()) return Error(normgrad::kStatusInvalid, opApi.c_str(), "%s", frontEndError.c_str());
    normgrad::DeviceTiling deviceTiling(tilingCopy);
    sim::LaunchReport report = sim::Launch(name, static_cast<int>(blockDim), [&]() {
      thunk(resolved.data(), kws, deviceTiling.data());
    });
    if (!report.ok) {
      return Error(normgrad::kStatusInner, opApi.c_str(), "kernel %s failed on %s with blockDim %u: %s", name.c_str(),
                   report.soc != nullptr ? report.soc->name : "?", blockDim, report.error.c_str());
    }
    return static_cast<aclnnStatus>(ACL_SUCCESS);
  }});
}

aclnnStatus aclOpExecutor::CheckWorkspace(void* workspace, uint64_t workspaceSize) const {
  const char* name = api.c_str();
  if (workspaceSize < workspaceBytes_) {
    return Error(normgrad::kStatusInvalid, name,
                 "workspaceSize is %llu bytes, but GetWorkspaceSize asked for %llu",
                 static_cast<unsigned long long>(workspaceSize), static_cast<unsigned long long>(workspaceBytes_));
  }
  if (workspaceBytes_ > 0 && workspace == nullptr) {
    return Error(normgrad::kStatusNullptr, name, "workspace is null, but GetWorkspaceSize asked for %llu bytes",
                 static_cast<unsigned long long>(workspaceBytes_));
  }
  if (workspaceBytes_ > 0) {
    bool inDevice = true;
    try {
      sim::gm::CheckRange(name, workspace, workspaceBytes_, true);
    } catch (const sim::SimError&) {
      inDevice = false;
    }
    if (!inDevice) {
      return Error(normgrad::kStatusInvalid, name,
                   "workspace %p + %llu bytes is not inside one device allocation (use aclrtMalloc)", workspace,
                   static_cast<unsigned long long>(workspaceBytes_));
    }
  }
  return ACL_SUCCESS;
}

aclnnStatus aclOpExecutor::Run(void* workspace, uint64_t workspaceSize) {
  // A tensor's storage freed (and perhaps handed out again) since GetWorkspaceSize: the kernels
  // would read or write memory that is no longer the tensor's.
  for (const TensorDesc& t : tensors_) {
    if (aclnnStatus st = normgrad::CheckStorage(api.c_str(), t, " (nothing ran)")) return st;
  }
  uint8_t* ws = workspaceBytes_ > 0 ? static_cast<uint8_t*>(workspace) : nullptr;
  for (const std::vector<Step>* steps : {&pre_, &kernels_, &post_}) {
    for (const Step& s : *steps) {
      aclnnStatus status = s.run(ws);
      if (status != ACL_SUCCESS) return status;
    }
  }
  return ACL_SUCCESS;
}
