// The simulator's opdev surface, part 2 (sim/include/opdev): L2_DFX_PHASE_1/2, UniqueExecutor,
// CommonOpExecutorRun, the executor's own tensors (AllocTensor and the results of the level-0 view
// operators), the level-0 operators Contiguous, Reshape, ViewCopy and ZerosLike, and the AI-core
// launcher, all mapped onto the simulator's aclOpExecutor (op_host/op_api/aclnn_common.h): gathers
// and zero fills before the kernels, the launches, copies into strided outputs after them.
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "aclnn_common.h"
#include "level0/normgrad_level0.h"
#include "level2_support.h"
#include "opdev/make_op_executor.h"
#include "opdev/op_dfx.h"
#include "opdev/op_executor.h"
#include "opdev_kernels.h"
#include "simhost/acl_handles.h"
#include "simhost/c_boundary.h"
#include "simhost/op_records.h"

using normgrad::DevPtr;
using normgrad::Error;
using normgrad::TensorDesc;

namespace {

thread_local std::string g_phase1Api;  // the API whose GetWorkspaceSize runs on this thread
thread_local std::string g_phase2Api;  // the API whose execute phase runs on this thread
thread_local std::map<const aclTensor*, std::string> g_phase1Names;  // its tensor arguments' names

// "DFX_IN(a, b, c)" -> {"a", "b", "c"}.
std::vector<std::string> DfxNames(const char* text) {
  std::string s = text;
  const size_t open = s.find('('), close = s.rfind(')');
  std::vector<std::string> names;
  if (open == std::string::npos || close == std::string::npos || close < open) return names;
  std::string cur;
  for (size_t i = open + 1; i <= close; ++i) {
    if (i == close || s[i] == ',') {
      const size_t b = cur.find_first_not_of(' '), e = cur.find_last_not_of(' ');
      names.push_back(b == std::string::npos ? "" : cur.substr(b, e - b + 1));
      cur.clear();
    } else {
      cur += s[i];
    }
  }
  return names;
}

// Checks every handle argument and records the tensors' names for the executor (its messages at
// the execute phase name them).
aclnnStatus CheckHandles(const char* api, const char* namesText, const normgrad_sim::DfxArg* args, size_t count) {
  const std::vector<std::string> names = DfxNames(namesText);
  for (size_t i = 0; i < count; ++i) {
    const normgrad_sim::DfxArg& a = args[i];
    if (a.handle == nullptr) continue;
    const char* name = i < names.size() ? names[i].c_str() : "an argument";
    if (a.kind == 0) g_phase1Names[static_cast<const aclTensor*>(a.handle)] = name;
    aclnnStatus st = ACL_SUCCESS;
    if (a.kind == 0) {
      TensorDesc d;
      st = normgrad::Describe(api, name, static_cast<const aclTensor*>(a.handle), &d);
    } else if (a.kind == 1) {
      std::vector<int64_t> v;
      st = normgrad::IntArrayValues(api, name, static_cast<const aclIntArray*>(a.handle), &v);
    } else if (a.kind == 2) {
      std::vector<bool> v;
      st = normgrad::BoolArrayValues(api, name, static_cast<const aclBoolArray*>(a.handle), &v);
    }
    if (st != ACL_SUCCESS) return st;
  }
  return ACL_SUCCESS;
}

// The description of a tensor the executor does not own (a caller's); throws if it is not live.
TensorDesc CallerTensor(const aclOpExecutor* e, const aclTensor* t) {
  TensorDesc d;
  if (normgrad::Describe(e->api.c_str(), e->ArgumentName(t), t, &d) != ACL_SUCCESS) {
    throw std::invalid_argument("a level-0 operator was given a tensor that is not live");
  }
  return d;
}

std::vector<int64_t> DimsOf(const gert::Shape& s) {
  std::vector<int64_t> d(s.GetDimNum());
  for (size_t i = 0; i < d.size(); ++i) d[i] = s.GetDim(i);
  return d;
}

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

TensorDesc ContiguousDesc(std::vector<int64_t> shape, aclDataType dtype) {
  TensorDesc d;
  d.name = "an executor tensor";
  d.strides = ContiguousStrides(shape);
  d.numel = 1;
  for (int64_t s : shape) d.numel *= s;
  d.shape = std::move(shape);
  d.dtype = dtype;
  return d;
}

uint64_t BytesOf(const TensorDesc& d) { return static_cast<uint64_t>(d.numel) * normgrad::DtypeBytes(d.dtype); }

// The contiguous device image of t for a launch or a reshape: an executor tensor's buffer, or a
// caller's tensor through the executor's gather (the tensor itself when contiguous).
DevPtr ImageOf(aclOpExecutor* e, const aclTensor* t, TensorDesc* desc) {
  if (const aclOpExecutor::OwnTensor* own = e->FindOwn(t)) {
    *desc = own->desc;
    return own->ptr;
  }
  *desc = CallerTensor(e, t);
  return e->ContiguousInput(*desc);
}

}  // namespace

namespace normgrad_sim {

aclnnStatus L2Phase1(const char* api, void* workspaceSize, void* executor, const char* inNames, const DfxArg* in,
                     size_t inCount, const char* outNames, const DfxArg* out, size_t outCount) noexcept {
  return sim::host::CBoundary<aclnnStatus>(api, ACLNN_ERR_INNER, [&]() -> aclnnStatus {
    g_phase1Api = api;
    g_phase1Names.clear();
    if (workspaceSize == nullptr) return Error(ACLNN_ERR_PARAM_NULLPTR, api, "workspaceSize is null");
    if (executor == nullptr) return Error(ACLNN_ERR_PARAM_NULLPTR, api, "executor is null");
    if (aclnnStatus st = CheckHandles(api, inNames, in, inCount)) return st;
    return CheckHandles(api, outNames, out, outCount);
  });
}

void L2Phase2(const char* api) noexcept {
  try {
    g_phase2Api = api;
  } catch (...) {  // std::bad_alloc: CommonOpExecutorRun reports the call without its name
  }
}

}  // namespace normgrad_sim

UniqueExecutor::UniqueExecutor(const char* funcName) : executor_(new aclOpExecutor()) {
  executor_->api = g_phase1Api.empty() ? funcName : g_phase1Api;
  executor_->argNames_ = g_phase1Names;
}

aclnnStatus CommonOpExecutorRun(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return normgrad::RunExecutor(g_phase2Api.c_str(), workspace, workspaceSize, executor, stream);
}

aclTensor* aclOpExecutor::AddOwnTensor(TensorDesc desc, DevPtr ptr) {
  normgrad_sim::TensorInfo info;
  info.viewDims = desc.shape;
  info.strides = desc.strides;
  info.dataType = desc.dtype;
  info.format = ACL_FORMAT_ND;
  info.storageDims = desc.shape;
  aclTensor* handle = normgrad_sim::AddTensor(api.c_str(), info);
  if (handle == nullptr) return nullptr;
  own_[handle] = OwnTensor{std::move(desc), std::move(ptr)};
  return handle;
}

const aclOpExecutor::OwnTensor* aclOpExecutor::FindOwn(const aclTensor* t) const {
  auto it = own_.find(t);
  return it == own_.end() ? nullptr : &it->second;
}

aclTensor* aclOpExecutor::AllocTensor(const gert::Shape& shape, ge::DataType dataType, ge::Format format) {
  TensorDesc d = ContiguousDesc(DimsOf(shape), static_cast<aclDataType>(dataType));
  auto at = std::make_shared<DevPtr>();
  late_.push_back(LateBuffer{at, BytesOf(d), false});
  DevPtr p;
  p.late = at;
  return AddOwnTensor(std::move(d), std::move(p));
}

uint64_t aclOpExecutor::GetWorkspaceSize() {
  for (LateBuffer& b : late_) {
    if (b.read && b.at->IsNull()) *b.at = ReserveWorkspace(b.bytes);
  }
  return workspaceBytes_;
}

void aclOpExecutor::MarkRead(const DevPtr& p) {
  if (!p.late) return;
  for (LateBuffer& b : late_) {
    if (b.at == p.late) b.read = true;
  }
}

namespace l0op {

const aclTensor* Contiguous(const aclTensor* x, aclOpExecutor* executor) {
  if (x == nullptr || executor->FindOwn(x) != nullptr) return x;
  TensorDesc d = CallerTensor(executor, x);
  if (d.contiguous) return x;  // as in CANN: a contiguous tensor is its own image
  DevPtr image = executor->ContiguousInput(d);
  return executor->AddOwnTensor(ContiguousDesc(d.shape, d.dtype), image);
}

const aclTensor* Reshape(const aclTensor* x, const op::Shape& shape, aclOpExecutor* executor) {
  TensorDesc d;
  DevPtr image = ImageOf(executor, x, &d);
  TensorDesc r = ContiguousDesc(DimsOf(shape), d.dtype);
  if (r.numel != d.numel) {
    Error(ACLNN_ERR_INNER_NULLPTR, executor->api.c_str(), "Reshape of %s to %s: the element counts differ",
          normgrad::ShapeString(d.shape).c_str(), normgrad::ShapeString(r.shape).c_str());
    return nullptr;
  }
  return executor->AddOwnTensor(std::move(r), image);
}

const aclTensor* ViewCopy(const aclTensor* x, const aclTensor* y, aclOpExecutor* executor) {
  TensorDesc src;
  DevPtr image = ImageOf(executor, x, &src);
  const TensorDesc dst = CallerTensor(executor, y);
  if (src.numel != dst.numel) return nullptr;
  // A buffer not yet placed becomes the output itself when the output is contiguous, as the
  // simulator's launches always did: no copy, no workspace. Not for an output shorter than one
  // 32-byte block on a SoC without DataCopyPad, whose kernels write whole blocks.
  const bool wholeBlocks = normgrad::CurrentCallSoc().features.hasDataCopyPad || BytesOf(dst) >= 32;
  if (image.late && image.late->IsNull() && dst.contiguous && wholeBlocks) {
    *image.late = DevPtr{dst.data, -1};
    executor->ContiguousOutput(dst);  // records the output for the execute phase's storage check
    return y;
  }
  executor->MarkRead(image);
  executor->AddCopyToOutput(image, dst);
  return y;
}

const aclTensor* ZerosLike(const aclTensor* x, aclOpExecutor* executor) {
  TensorDesc d;
  ImageOf(executor, x, &d);
  op::Shape shape;
  for (int64_t dim : d.shape) shape.AppendDim(dim);
  aclTensor* zeros = executor->AllocTensor(shape, static_cast<ge::DataType>(d.dtype));
  if (zeros == nullptr) return nullptr;
  executor->AddZeroFill(executor->FindOwn(zeros)->ptr, BytesOf(d));
  return zeros;
}

}  // namespace l0op
