// Runs an ops-nn operator's own host tiling (its op_host/*_tiling.cpp, compiled unchanged against CANN's
// headers) the way CANN's runtime does before a launch: the functions IMPL_OP_OPTILING registered, called on
// a gert::TilingParseContext and a gert::TilingContext laid out as metadef's exe_graph/runtime headers define
// them (those accessors are inline: the contexts below are what they read). Also the few closed symbols that
// tiling code links: the registration (gert::OpImplRegisterV2), RuntimeAttrs::GetPointerByIndex, and
// platform_ascendc::PlatformAscendC's queries, answered from the SoC profile in the request.
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exe_graph/runtime/continuous_vector.h"
#include "exe_graph/runtime/kernel_run_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "exe_graph/runtime/tiling_parse_context.h"
#include "platform/soc_spec.h"
#include "register/op_impl_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling_request.h"

// --- registration (register/op_impl_registry.h) ------------------------------------------------------------
namespace gert {
class OpImplRegisterV2Impl {
 public:
  std::string opType;
};
}  // namespace gert

namespace {

struct Registered {
  gert::OpImplRegisterV2::TilingKernelFunc tiling = nullptr;
  gert::OpImplRegisterV2::KernelFunc tilingParse = nullptr;
  gert::OpImplRegisterV2::CompileInfoCreatorFunc createCompileInfo = nullptr;
  gert::OpImplRegisterV2::CompileInfoDeleterFunc deleteCompileInfo = nullptr;
};

std::map<std::string, Registered>& Registry() {
  static std::map<std::string, Registered> registry;
  return registry;
}

}  // namespace

namespace gert {
OpImplRegisterV2::OpImplRegisterV2(const ge::char_t* op_type) : impl_(new OpImplRegisterV2Impl{op_type}) {}
OpImplRegisterV2::OpImplRegisterV2(OpImplRegisterV2&& register_data) noexcept = default;
OpImplRegisterV2::OpImplRegisterV2(const OpImplRegisterV2& register_data)
    : impl_(new OpImplRegisterV2Impl(*register_data.impl_)) {}
OpImplRegisterV2::~OpImplRegisterV2() = default;

OpImplRegisterV2& OpImplRegisterV2::Tiling(TilingKernelFunc tiling_func, size_t max_tiling_data_size) {
  (void)max_tiling_data_size;
  Registry()[impl_->opType].tiling = tiling_func;
  return *this;
}

OpImplRegisterV2& OpImplRegisterV2::TilingParse(KernelFunc tiling_parse_func,
                                                CompileInfoCreatorFunc creator_func,
                                                CompileInfoDeleterFunc deleter_func) {
  Registered& r = Registry()[impl_->opType];
  r.tilingParse = tiling_parse_func;
  r.createCompileInfo = creator_func;
  r.deleteCompileInfo = deleter_func;
  return *this;
}

// Our layout of the attributes behind ComputeNodeInfo::GetAttrs(): the count, one offset per attribute
// (from the RuntimeAttrs object), then the values (int64, bool, float, or a NUL-terminated string).
const void* RuntimeAttrs::GetPointerByIndex(size_t index) const {
  const auto* words = reinterpret_cast<const size_t*>(this);
  if (index >= words[0]) return nullptr;
  return reinterpret_cast<const uint8_t*>(this) + words[1 + index];
}

size_t RuntimeAttrs::GetAttrNum() const { return reinterpret_cast<const size_t*>(this)[0]; }
}  // namespace gert

// --- the platform (tiling/platform/platform_ascendc.h) ----------------------------------------------------
// PlatformAscendC holds the fe::PlatFormInfos* its context hands out; here that pointer is a PlatformSpec.
namespace platform_ascendc {
namespace {
const normgrad::opsnn::PlatformSpec& Spec(fe::PlatFormInfos* info) {
  return *reinterpret_cast<const normgrad::opsnn::PlatformSpec*>(info);
}
}  // namespace

uint32_t PlatformAscendC::GetCoreNumAiv(void) const { return Spec(platformInfo_).aivCores; }
uint32_t PlatformAscendC::GetLibApiWorkSpaceSize(void) const { return Spec(platformInfo_).libApiWorkspaceBytes; }
void PlatformAscendC::GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const {
  size = memType == CoreMemType::UB ? Spec(platformInfo_).ubBytes : 0;
}
NpuArch PlatformAscendC::GetCurNpuArch(void) const { return static_cast<NpuArch>(Spec(platformInfo_).npuArch); }
}  // namespace platform_ascendc

namespace normgrad::opsnn {
namespace {

bool DataType(const std::string& name, ge::DataType* out) {
  static const std::map<std::string, ge::DataType> kTypes = {
      {"float32", ge::DT_FLOAT}, {"float16", ge::DT_FLOAT16}, {"bfloat16", ge::DT_BF16}};
  const auto it = kTypes.find(name);
  if (it == kTypes.end()) return false;
  *out = it->second;
  return true;
}

// Owns every buffer behind one kernel context (gert::KernelRunContext and what its values point to).
class ContextImage {
 public:
  // Adds a value slot: small values live in the slot itself (Chain's inplace rule), larger ones behind it.
  template <typename T>
  T* Add(const T& value) {
    auto slot = std::make_unique<AsyncAnyValue>();
    std::memset(slot.get(), 0, sizeof(AsyncAnyValue));
    T* where;
    if (sizeof(T) <= sizeof(void*)) {
      where = reinterpret_cast<T*>(slot->data.inplace);
    } else {
      owned_.emplace_back(new uint8_t[sizeof(T)]());
      where = reinterpret_cast<T*>(owned_.back().get());
      slot->data.pointer = where;
    }
    std::memcpy(static_cast<void*>(where), &value, sizeof(T));
    slots_.push_back(std::move(slot));
    return where;
  }
  // Keeps a buffer alive as long as the context.
  uint8_t* Own(size_t bytes) {
    owned_.emplace_back(new uint8_t[bytes]());
    return owned_.back().get();
  }
  uint8_t* Keep(std::unique_ptr<uint8_t[]> buffer) {
    owned_.push_back(std::move(buffer));
    return owned_.back().get();
  }
  // The context over the slots added so far: the first `inputs` are its inputs, the rest its outputs.
  KernelRunContext* Build(size_t inputs, const void* nodeInfo) {
    const size_t n = slots_.size();
    auto* run = reinterpret_cast<KernelRunContext*>(Own(sizeof(KernelRunContext) + n * sizeof(AsyncAnyValue*)));
    run->input_size = inputs;
    run->output_size = n - inputs;
    run->compute_node_info = nodeInfo;
    run->kernel_extend_info = nullptr;
    for (size_t i = 0; i < n; ++i) run->values[i] = slots_[i].get();
    run->output_start = &run->values[inputs];
    return run;
  }

 private:
  std::vector<std::unique_ptr<AsyncAnyValue>> slots_;
  std::vector<std::unique_ptr<uint8_t[]>> owned_;
};

// The head of gert::ComputeNodeInfo (its private fields, in order), followed in memory by the anchors, the
// tensor descriptions, the attributes and the output anchors that its inline accessors compute offsets to.
struct NodeInfoHead {
  const char* nodeType;
  const char* nodeName;
  size_t irInputs, inputs, outputs, irOutputs, attrBytes;
  uint8_t reserved[24];
};
static_assert(sizeof(NodeInfoHead) + sizeof(uint64_t) == sizeof(gert::ComputeNodeInfo),
              "gert::ComputeNodeInfo's layout is not the one this file writes");

std::vector<uint8_t> AttrBlock(const std::vector<AttrSpec>& attrs) {
  std::vector<uint8_t> block((1 + attrs.size()) * sizeof(size_t));
  reinterpret_cast<size_t*>(block.data())[0] = attrs.size();
  for (size_t i = 0; i < attrs.size(); ++i) {
    block.resize((block.size() + 7) / 8 * 8);
    reinterpret_cast<size_t*>(block.data())[1 + i] = block.size();
    const AttrSpec& a = attrs[i];
    std::vector<uint8_t> bytes;
    switch (a.kind) {
      case AttrSpec::Kind::kInt: bytes.resize(8); std::memcpy(bytes.data(), &a.i, 8); break;
      case AttrSpec::Kind::kBool: bytes.assign(1, a.b ? 1 : 0); break;
      case AttrSpec::Kind::kFloat: bytes.resize(4); std::memcpy(bytes.data(), &a.f, 4); break;
      case AttrSpec::Kind::kString: bytes.assign(a.s.begin(), a.s.end()); bytes.push_back(0); break;
      case AttrSpec::Kind::kListBool: {  // a gert::ContinuousVector of bool, as CANN passes ListBool
        size_t total = 0;
        auto vec = gert::ContinuousVector::Create<bool>(a.bools.size(), total);
        auto* cv = reinterpret_cast<gert::ContinuousVector*>(vec.get());
        cv->SetSize(a.bools.size());
        std::memcpy(cv->MutableData(), a.bools.data(), a.bools.size());
        bytes.assign(vec.get(), vec.get() + total);
        break;
      }
    }
    block.insert(block.end(), bytes.begin(), bytes.end());
  }
  block.resize((block.size() + 7) / 8 * 8);
  return block;
}

const gert::ComputeNodeInfo* NodeInfo(ContextImage& image, const TilingRequest& r, std::string* error) {
  const std::vector<uint8_t> attrs = AttrBlock(r.attrs);
  const size_t in = r.inputs.size(), out = r.outputs.size();
  const size_t bytes = sizeof(NodeInfoHead) + sizeof(gert::AnchorInstanceInfo) * (in + out) +
                       sizeof(gert::CompileTimeTensorDesc) * (in + out) + attrs.size();
  uint8_t* p = image.Own(bytes);
  auto* head = reinterpret_cast<NodeInfoHead*>(p);
  head->nodeType = r.opType.c_str();
  head->nodeName = r.opType.c_str();
  head->irInputs = head->inputs = in;
  head->irOutputs = head->outputs = out;
  head->attrBytes = attrs.size();
  uint8_t* q = p + sizeof(NodeInfoHead);
  for (size_t i = 0; i < in; ++i, q += sizeof(gert::AnchorInstanceInfo)) {
    new (q) gert::AnchorInstanceInfo(static_cast<uint32_t>(i), 1);
  }
  for (size_t i = 0; i < in + out; ++i, q += sizeof(gert::CompileTimeTensorDesc)) {
    const TensorSpec& t = i < in ? r.inputs[i] : r.outputs[i - in];
    auto* desc = new (q) gert::CompileTimeTensorDesc();
    ge::DataType dt;
    if (!DataType(t.dtype, &dt)) {
      *error = "unknown dtype '" + t.dtype + "'";
      return nullptr;
    }
    desc->SetDataType(dt);
    desc->SetStorageFormat(ge::FORMAT_ND);
    desc->SetOriginFormat(ge::FORMAT_ND);
  }
  std::memcpy(q, attrs.data(), attrs.size());
  q += attrs.size();
  for (size_t i = 0; i < out; ++i, q += sizeof(gert::AnchorInstanceInfo)) {
    new (q) gert::AnchorInstanceInfo(static_cast<uint32_t>(i), 1);
  }
  return reinterpret_cast<const gert::ComputeNodeInfo*>(p);
}

gert::Tensor ShapeTensor(const TensorSpec& t) {
  gert::StorageShape shape;
  for (int64_t d : t.shape) {
    shape.MutableOriginShape().AppendDim(d);
    shape.MutableStorageShape().AppendDim(d);
  }
  ge::DataType dt = ge::DT_FLOAT;
  DataType(t.dtype, &dt);
  return gert::Tensor(shape, gert::StorageFormat(ge::FORMAT_ND, ge::FORMAT_ND, {}), dt);
}

}  // namespace

bool RunTiling(const TilingRequest& r, TilingResult* result, std::string* error) {
  const auto it = Registry().find(r.opType);
  if (it == Registry().end() || it->second.tiling == nullptr) {
    *error = "no tiling registered for " + r.opType + " (IMPL_OP_OPTILING)";
    return false;
  }
  const Registered& reg = it->second;
  ContextImage image;
  const gert::ComputeNodeInfo* node = NodeInfo(image, r, error);
  if (node == nullptr) return false;
  auto* platform = reinterpret_cast<fe::PlatFormInfos*>(const_cast<PlatformSpec*>(&r.platform));

  // TilingParse: inputs (compiled json, platform), output the compile info it fills.
  std::unique_ptr<void, gert::OpImplRegisterV2::CompileInfoDeleterFunc> compileInfo(
      reg.createCompileInfo != nullptr ? reg.createCompileInfo() : nullptr,
      reg.deleteCompileInfo != nullptr ? reg.deleteCompileInfo : [](void*) {});
  if (reg.tilingParse != nullptr) {
    ContextImage parse;
    parse.Add<const char*>("{}");
    parse.Add<fe::PlatFormInfos*>(platform);
    parse.Add<void*>(compileInfo.get());
    auto* ctx = reinterpret_cast<gert::KernelContext*>(parse.Build(2, node));
    if (reg.tilingParse(ctx) != ge::GRAPH_SUCCESS) {
      *error = r.opType + ": TilingParse failed";
      return false;
    }
  }

  // Tiling: inputs (each input's and output's shape, the compile info, the platform), outputs in
  // TilingContext::TilingOutputIndex order.
  for (const TensorSpec& t : r.inputs) image.Add(ShapeTensor(t));
  for (const TensorSpec& t : r.outputs) image.Add(ShapeTensor(t));
  image.Add<void*>(compileInfo.get());
  image.Add<fe::PlatFormInfos*>(platform);
  const size_t inputs = r.inputs.size() + r.outputs.size() + 2;
  constexpr size_t kTilingCapacity = 64 * 1024;
  auto* tilingData = reinterpret_cast<gert::TilingData*>(image.Keep(gert::TilingData::CreateCap(kTilingCapacity)));
  size_t wsBytes = 0;
  auto ws = gert::ContinuousVector::Create<size_t>(16, wsBytes);
  uint8_t* wsImage = image.Own(wsBytes);
  std::memcpy(wsImage, ws.get(), wsBytes);
  uint64_t* key = image.Add<uint64_t>(0);                                       // kOutputTilingKey
  uint32_t* blockDim = image.Add<uint32_t>(0);                                  // kOutputBlockDim
  image.Add<bool>(false);                                                       // kOutputAtomicCleanFlag
  image.Add<gert::TilingData*>(tilingData);                                     // kOutputTilingData
  image.Add<gert::TypedContinuousVector<size_t>*>(nullptr);                    // kOutputWorkspace (below)
  image.Add<int32_t>(0);                                                        // kOutputTilingCond
  uint32_t* scheduleMode = image.Add<uint32_t>(0);                              // kOutputScheduleMode
  image.Add<uint32_t>(0);                                                       // kOutputDynUBufSize
  image.Add<uint32_t>(0);                                                       // kOutputAicpuNumBlocks
  image.Add(gert::Dim3(1));                                                     // kOutputSimtBlockDim
  image.Add(gert::Dim3(1));                                                     // kOutputSimtGridDim
  KernelRunContext* run = image.Build(inputs, node);
  if (run->output_size != gert::TilingContext::kOutputNum) {
    *error = "internal: the tiling context has the wrong number of outputs";
    return false;
  }
  // The workspace vector is larger than a pointer: the slot holds a pointer to it.
  reinterpret_cast<AsyncAnyValue*>(run->values[inputs + gert::TilingContext::kOutputWorkspace])->data.pointer = wsImage;
  auto* ctx = reinterpret_cast<gert::TilingContext*>(run);
  if (reg.tiling(ctx) != ge::GRAPH_SUCCESS) {
    *error = r.opType + ": Tiling failed";
    return false;
  }
  result->tilingKey = *key;
  result->blockDim = *blockDim;
  result->scheduleMode = *scheduleMode;
  const auto* wsVec = reinterpret_cast<const gert::TypedContinuousVector<size_t>*>(wsImage);
  result->workspaceBytes.assign(wsVec->GetData(), wsVec->GetData() + wsVec->GetSize());
  const auto* bytes = static_cast<const uint8_t*>(tilingData->GetData());
  result->tilingData.assign(bytes, bytes + tilingData->GetDataSize());
  return true;
}

}  // namespace normgrad::opsnn
