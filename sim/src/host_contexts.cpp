// The gert contexts over one call's node, and sim::host::Runner, which builds the node from the
// OpDef and the caller's tensors and attributes and calls the registered host functions.
#include <cstring>
#include <memory>

#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "exe_graph/runtime/tiling_parse_context.h"
#include "simhost/node.h"
#include "simhost/op_records.h"
#include "simhost/op_runner.h"

namespace gert {
namespace {

const sim::host::NodeTensor* Present(const sim::host::Node* n, size_t index) {
  return index < n->presentInputs.size() ? &n->inputs[n->presentInputs[index]] : nullptr;
}
const sim::host::NodeTensor* Optional(const sim::host::Node* n, size_t irIndex) {
  return irIndex < n->inputs.size() && n->inputs[irIndex].present ? &n->inputs[irIndex] : nullptr;
}

}  // namespace

const CompileTimeTensorDesc* ExtendedKernelContext::GetInputDesc(const size_t index) const {
  const sim::host::NodeTensor* t = Present(node_, index);
  return t == nullptr ? nullptr : &t->desc;
}
const CompileTimeTensorDesc* ExtendedKernelContext::GetOptionalInputDesc(const size_t ir_index) const {
  const sim::host::NodeTensor* t = Optional(node_, ir_index);
  return t == nullptr ? nullptr : &t->desc;
}
const CompileTimeTensorDesc* ExtendedKernelContext::GetRequiredInputDesc(const size_t ir_index) const {
  return GetOptionalInputDesc(ir_index);
}
const CompileTimeTensorDesc* ExtendedKernelContext::GetOutputDesc(const size_t index) const {
  return index < node_->outputs.size() ? &node_->outputs[index].desc : nullptr;
}
size_t ExtendedKernelContext::GetComputeNodeInputNum() const { return node_->presentInputs.size(); }
size_t ExtendedKernelContext::GetComputeNodeOutputNum() const { return node_->outputs.size(); }
const RuntimeAttrs* ExtendedKernelContext::GetAttrs() const { return &node_->attrs; }
const ge::char_t* ExtendedKernelContext::GetNodeType() const { return node_->type.c_str(); }
const ge::char_t* ExtendedKernelContext::GetNodeName() const { return node_->name.c_str(); }

const Shape* InferShapeContext::GetInputShape(const size_t index) const {
  const sim::host::NodeTensor* t = Present(node_, index);
  return t == nullptr ? nullptr : &t->shape.GetOriginShape();
}
const Shape* InferShapeContext::GetOptionalInputShape(const size_t ir_index) const {
  const sim::host::NodeTensor* t = Optional(node_, ir_index);
  return t == nullptr ? nullptr : &t->shape.GetOriginShape();
}
const Shape* InferShapeContext::GetRequiredInputShape(const size_t ir_index) const {
  return GetOptionalInputShape(ir_index);
}
Shape* InferShapeContext::GetOutputShape(const size_t index) {
  return index < output_num_ ? &outputs_[index] : nullptr;
}

ge::DataType InferDataTypeContext::GetInputDataType(const size_t index) const {
  const sim::host::NodeTensor* t = Present(node_, index);
  return t == nullptr ? ge::DT_UNDEFINED : t->desc.GetDataType();
}
ge::DataType InferDataTypeContext::GetOptionalInputDataType(const size_t ir_index) const {
  const sim::host::NodeTensor* t = Optional(node_, ir_index);
  return t == nullptr ? ge::DT_UNDEFINED : t->desc.GetDataType();
}
ge::DataType InferDataTypeContext::GetRequiredInputDataType(const size_t ir_index) const {
  return GetOptionalInputDataType(ir_index);
}
ge::DataType InferDataTypeContext::GetOutputDataType(const size_t index) const {
  return index < output_num_ ? outputs_[index] : ge::DT_UNDEFINED;
}
ge::graphStatus InferDataTypeContext::SetOutputDataType(const size_t index, const ge::DataType datatype) {
  if (index >= output_num_) return ge::GRAPH_FAILED;
  outputs_[index] = datatype;
  return ge::GRAPH_SUCCESS;
}

const StorageShape* TilingContext::GetInputShape(const size_t index) const {
  const sim::host::NodeTensor* t = Present(node_, index);
  return t == nullptr ? nullptr : &t->shape;
}
const StorageShape* TilingContext::GetOptionalInputShape(const size_t ir_index) const {
  const sim::host::NodeTensor* t = Optional(node_, ir_index);
  return t == nullptr ? nullptr : &t->shape;
}
const StorageShape* TilingContext::GetRequiredInputShape(const size_t ir_index) const {
  return GetOptionalInputShape(ir_index);
}
const StorageShape* TilingContext::GetOutputShape(const size_t index) const {
  return index < node_->outputs.size() ? &node_->outputs[index].shape : nullptr;
}
const void* TilingContext::GetCompileInfo() const { return out_->compileInfo; }
ge::graphStatus TilingContext::SetTilingKey(const uint64_t tiling_key) {
  out_->tilingKey = tiling_key;
  return ge::GRAPH_SUCCESS;
}
uint64_t TilingContext::GetTilingKey() const { return out_->tilingKey; }
ge::graphStatus TilingContext::SetBlockDim(const uint32_t block_dim) {
  out_->blockDim = block_dim;
  return ge::GRAPH_SUCCESS;
}
uint32_t TilingContext::GetBlockDim() const { return out_->blockDim; }
ge::graphStatus TilingContext::SetScheduleMode(const uint32_t schedule_mode) {
  out_->scheduleMode = schedule_mode;
  return ge::GRAPH_SUCCESS;
}
uint32_t TilingContext::GetScheduleMode() const { return out_->scheduleMode; }
TilingData* TilingContext::GetRawTilingData() { return &out_->data; }
size_t* TilingContext::GetWorkspaceSizes(const size_t workspace_count) {
  out_->workspaces.assign(workspace_count, 0);
  return out_->workspaces.data();
}
size_t TilingContext::GetWorkspaceNum() const { return out_->workspaces.size(); }
fe::PlatFormInfos* TilingContext::GetPlatformInfo() const { return out_->platform; }

}  // namespace gert

namespace sim::host {

void AttrStore::Append(gert::RuntimeAttrs* attrs, const AttrValue& value) {
  using Kind = gert::RuntimeAttrs::Kind;
  gert::RuntimeAttrs::Entry e;
  auto fill = [](gert::ContinuousVector* v, const void* data, size_t count, size_t bytes) {
    v->bytes_.assign(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + bytes);
    v->size_ = count;
  };
  if (const int64_t* i = std::get_if<int64_t>(&value)) {
    e.kind = Kind::kInt;
    e.i = *i;
  } else if (const float* f = std::get_if<float>(&value)) {
    e.kind = Kind::kFloat;
    e.f = *f;
  } else if (const bool* b = std::get_if<bool>(&value)) {
    e.kind = Kind::kBool;
    e.b = *b;
  } else if (const std::string* s = std::get_if<std::string>(&value)) {
    e.kind = Kind::kString;
    e.s = *s;
  } else if (const auto* li = std::get_if<std::vector<int64_t>>(&value)) {
    e.kind = Kind::kListInt;
    fill(&e.listInt, li->data(), li->size(), li->size() * sizeof(int64_t));
  } else if (const auto* lf = std::get_if<std::vector<float>>(&value)) {
    e.kind = Kind::kListFloat;
    fill(&e.listFloat, lf->data(), lf->size(), lf->size() * sizeof(float));
  } else if (const auto* lb = std::get_if<std::vector<bool>>(&value)) {
    e.kind = Kind::kListBool;
    std::vector<uint8_t> bytes(lb->begin(), lb->end());
    fill(&e.listBool, bytes.data(), bytes.size(), bytes.size());
  }
  attrs->entries_.push_back(std::move(e));
}

namespace {

const char* AttrTypeOf(const AttrValue& v) {
  static const char* const kNames[] = {"Int", "Float", "Bool", "String", "ListInt", "ListFloat", "ListBool"};
  return kNames[v.index()];
}

void Describe(NodeTensor* t, const TensorArg& a) {
  t->present = a.present;
  for (int64_t d : a.shape) {
    t->shape.MutableOriginShape().AppendDim(d);
    t->shape.MutableStorageShape().AppendDim(d);
  }
  t->desc.SetDataType(a.dtype);
}

// The node of one call, checked against the OpDef; nullptr with *error set when it does not fit.
std::unique_ptr<Node> BuildNode(const std::string& opType, const std::vector<TensorArg>& inputs,
                                const std::vector<TensorArg>* outputs, const NamedAttrs& attrs, std::string* error) {
  const OpDefInfo* def = FindOpDef(opType);
  if (def == nullptr) {
    *error = "no OpDef is registered for " + opType;
    return nullptr;
  }
  if (inputs.size() != def->inputs.size()) {
    *error = opType + ": " + std::to_string(inputs.size()) + " inputs given, the OpDef has " +
             std::to_string(def->inputs.size());
    return nullptr;
  }
  auto node = std::make_unique<Node>();
  node->type = opType;
  node->name = opType;
  node->inputs.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].present && def->inputs[i].paramType != 1) {
      *error = opType + ": required input " + def->inputs[i].name + " is absent";
      return nullptr;
    }
    Describe(&node->inputs[i], inputs[i]);
    if (inputs[i].present) node->presentInputs.push_back(i);
  }
  if (outputs != nullptr) {
    if (outputs->size() != def->outputs.size()) {
      *error = opType + ": " + std::to_string(outputs->size()) + " outputs given, the OpDef has " +
               std::to_string(def->outputs.size());
      return nullptr;
    }
    node->outputs.resize(outputs->size());
    for (size_t i = 0; i < outputs->size(); ++i) Describe(&node->outputs[i], (*outputs)[i]);
  } else {
    node->outputs.resize(def->outputs.size());
  }
  for (const auto& [name, value] : attrs) {
    bool known = false;
    for (const AttrDefInfo& a : def->attrs) known = known || a.name == name;
    if (!known) {
      *error = opType + " has no attribute " + name;
      return nullptr;
    }
  }
  for (const AttrDefInfo& a : def->attrs) {
    auto it = attrs.find(a.name);
    if (it == attrs.end() && !a.hasDefault) {
      *error = opType + ": attribute " + a.name + " (" + a.type + ") is required";
      return nullptr;
    }
    const AttrValue& v = it == attrs.end() ? a.defaultValue : it->second;
    if (a.type != AttrTypeOf(v)) {
      *error = opType + ": attribute " + a.name + " is " + a.type + ", given " + AttrTypeOf(v);
      return nullptr;
    }
    AttrStore::Append(&node->attrs, v);
  }
  return node;
}

std::string Failed(const std::string& opType, const char* what) {
  return opType + ": the registered " + what + " function returned a failure status";
}

}  // namespace

bool Runner::InferShape(const std::string& opType, const std::vector<TensorArg>& inputs, const NamedAttrs& attrs,
                        std::vector<std::vector<int64_t>>* outputShapes, std::string* error) {
  std::unique_ptr<Node> node = BuildNode(opType, inputs, nullptr, attrs, error);
  if (node == nullptr) return false;
  const OpImplFuncs* impl = FindOpImpl(opType);
  if (impl == nullptr || impl->inferShape == nullptr) {
    *error = "no InferShape function is registered for " + opType;
    return false;
  }
  std::vector<gert::Shape> shapes(node->outputs.size());
  gert::InferShapeContext ctx(node.get(), shapes.data(), shapes.size());
  if (impl->inferShape(&ctx) != ge::GRAPH_SUCCESS) {
    *error = Failed(opType, "InferShape");
    return false;
  }
  outputShapes->clear();
  for (const gert::Shape& s : shapes) {
    std::vector<int64_t> dims;
    for (size_t i = 0; i < s.GetDimNum(); ++i) dims.push_back(s.GetDim(i));
    outputShapes->push_back(dims);
  }
  return true;
}

bool Runner::InferDataType(const std::string& opType, const std::vector<TensorArg>& inputs, const NamedAttrs& attrs,
                           std::vector<ge::DataType>* outputTypes, std::string* error) {
  std::unique_ptr<Node> node = BuildNode(opType, inputs, nullptr, attrs, error);
  if (node == nullptr) return false;
  const OpImplFuncs* impl = FindOpImpl(opType);
  if (impl == nullptr || impl->inferDataType == nullptr) {
    *error = "no InferDataType function is registered for " + opType;
    return false;
  }
  std::vector<ge::DataType> types(node->outputs.size(), ge::DT_UNDEFINED);
  gert::InferDataTypeContext ctx(node.get(), types.data(), types.size());
  if (impl->inferDataType(&ctx) != ge::GRAPH_SUCCESS) {
    *error = Failed(opType, "InferDataType");
    return false;
  }
  *outputTypes = types;
  return true;
}

bool Runner::Tiling(const std::string& opType, const std::vector<TensorArg>& inputs,
                    const std::vector<TensorArg>& outputs, const NamedAttrs& attrs, const SocProfile& soc,
                    TilingResult* result, std::string* error) {
  std::unique_ptr<Node> node = BuildNode(opType, inputs, &outputs, attrs, error);
  if (node == nullptr) return false;
  const OpImplFuncs* impl = FindOpImpl(opType);
  if (impl == nullptr || impl->tiling == nullptr) {
    *error = "no Tiling function is registered for " + opType;
    return false;
  }
  fe::PlatFormInfos platform(&soc);
  // TilingParse runs once per operator and chip in CANN; here once per call (it is cheap).
  std::unique_ptr<void, void (*)(void*)> compileInfo(nullptr, [](void*) {});
  if (impl->createCompileInfo != nullptr) {
    compileInfo = std::unique_ptr<void, void (*)(void*)>(impl->createCompileInfo(), impl->deleteCompileInfo);
  }
  if (impl->tilingParse != nullptr) {
    gert::TilingParseContext parse(compileInfo.get(), &platform);
    auto parseFunc = reinterpret_cast<gert::OpImplRegisterV2::TilingParseFunc>(impl->tilingParse);
    if (parseFunc(&parse) != ge::GRAPH_SUCCESS) {
      *error = Failed(opType, "TilingParse");
      return false;
    }
  }
  TilingOutputs out;
  out.data.bytes_.assign(impl->maxTilingDataSize, 0);
  out.compileInfo = compileInfo.get();
  out.platform = &platform;
  gert::TilingContext ctx(node.get(), &out);
  if (impl->tiling(&ctx) != ge::GRAPH_SUCCESS) {
    *error = Failed(opType, "Tiling");
    return false;
  }
  result->tilingKey = out.tilingKey;
  result->blockDim = out.blockDim;
  result->scheduleMode = out.scheduleMode;
  if (out.data.GetDataSize() > out.data.GetCapacity()) {
    *error = opType + ": the tiling function set " + std::to_string(out.data.GetDataSize()) +
             " bytes of tiling data, over the registered capacity of " + std::to_string(out.data.GetCapacity());
    return false;
  }
  result->tilingData.assign(out.data.bytes_.begin(), out.data.bytes_.begin() + out.data.GetDataSize());
  result->workspaces = out.workspaces;
  return true;
}

}  // namespace sim::host
