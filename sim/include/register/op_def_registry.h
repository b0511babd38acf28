// The OpDef API of CANN custom operators (register/op_def.h, register/op_def_registry.h):
//
//   namespace ops {
//   class GroupNormGrad : public OpDef {
//    public:
//     explicit GroupNormGrad(const char* name) : OpDef(name) {
//       this->Input("dy").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
//       this->Attr("num_groups").AttrType(REQUIRED).Int();
//       this->SetInferShape(ge::InferShapeGroupNormGrad).SetInferDataType(ge::InferDataTypeGroupNormGrad);
//       this->AICore().SetTiling(optiling::TilingGroupNormGrad).AddConfig("ascend910b");
//     }
//   };
//   OP_ADD(GroupNormGrad);
//   }  // namespace ops
//
// The signatures are CANN's: SetInferShape takes a UINT32 (*)(gert::InferShapeContext*), SetTiling
// a UINT32 (*)(gert::TilingContext*). OP_ADD records the definition for the simulator (see
// simhost/op_records.h) and registers the named functions as gert::OpImplRegisterV2 does in CANN.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/types.h"
#include "register/op_impl_registry.h"
#include "simhost/op_def_info.h"

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };

class OpDef;

// A handle on one input or output of an OpDef (by index: the OpDef's lists grow while it is built).
class OpParamDef {
 public:
  OpParamDef(std::vector<sim::host::ParamDefInfo>* list, size_t index) : list_(list), index_(index) {}
  OpParamDef& ParamType(Option param_type);
  OpParamDef& DataType(std::vector<ge::DataType> types);
  OpParamDef& Format(std::vector<ge::Format> formats);
  OpParamDef& UnknownShapeFormat(std::vector<ge::Format> formats);
  OpParamDef& ValueDepend(Option value_depend);
  OpParamDef& IgnoreContiguous(void);
  OpParamDef& AutoContiguous();

 private:
  sim::host::ParamDefInfo& info() { return (*list_)[index_]; }
  std::vector<sim::host::ParamDefInfo>* list_;
  size_t index_;
};

class OpAttrDef {
 public:
  OpAttrDef(std::vector<sim::host::AttrDefInfo>* list, size_t index) : list_(list), index_(index) {}
  OpAttrDef& AttrType(Option attr_type);
  OpAttrDef& Bool(void);
  OpAttrDef& Bool(bool value);
  OpAttrDef& Float(void);
  OpAttrDef& Float(float value);
  OpAttrDef& Int(void);
  OpAttrDef& Int(int64_t value);
  OpAttrDef& String(void);
  OpAttrDef& String(const char* value);
  OpAttrDef& ListBool(void);
  OpAttrDef& ListBool(std::vector<bool> value);
  OpAttrDef& ListFloat(void);
  OpAttrDef& ListFloat(std::vector<float> value);
  OpAttrDef& ListInt(void);
  OpAttrDef& ListInt(std::vector<int64_t> value);

 private:
  OpAttrDef& Set(const char* type, sim::host::AttrValue value, bool hasDefault);
  sim::host::AttrDefInfo& info() { return (*list_)[index_]; }
  std::vector<sim::host::AttrDefInfo>* list_;
  size_t index_;
};

class OpAICoreConfig {
 public:
  OpAICoreConfig& DynamicCompileStaticFlag(bool flag);
  OpAICoreConfig& DynamicFormatFlag(bool flag);
  OpAICoreConfig& DynamicRankSupportFlag(bool flag);
  OpAICoreConfig& DynamicShapeSupportFlag(bool flag);
  OpAICoreConfig& NeedCheckSupportFlag(bool flag);
  OpAICoreConfig& PrecisionReduceFlag(bool flag);
};

class OpAICoreDef {
 public:
  OpAICoreDef& SetTiling(gert::OpImplRegisterV2::TilingKernelFunc func);
  gert::OpImplRegisterV2::TilingKernelFunc& GetTiling(void);
  OpAICoreDef& AddConfig(const char* soc);
  OpAICoreDef& AddConfig(const char* soc, OpAICoreConfig& aicore_config);

 private:
  friend class OpDef;
  explicit OpAICoreDef(sim::host::OpDefInfo* info) : info_(info) {}
  sim::host::OpDefInfo* info_;
  gert::OpImplRegisterV2::TilingKernelFunc tiling_ = nullptr;
};

class OpDef {
 public:
  explicit OpDef(const char* type);
  virtual ~OpDef() = default;
  OpDef(const OpDef&) = delete;
  OpDef& operator=(const OpDef&) = delete;

  OpParamDef& Input(const char* name);
  OpParamDef& Output(const char* name);
  OpAttrDef& Attr(const char* name);
  OpDef& SetInferShape(gert::OpImplRegisterV2::InferShapeKernelFunc func);
  OpDef& SetInferDataType(gert::OpImplRegisterV2::InferDataTypeKernelFunc func);
  gert::OpImplRegisterV2::InferShapeKernelFunc& GetInferShape(void);
  gert::OpImplRegisterV2::InferDataTypeKernelFunc& GetInferDataType(void);
  OpAICoreDef& AICore(void);

 private:
  friend int sim_host_add_op_def(OpDef& def);
  sim::host::OpDefInfo info_;
  std::vector<std::unique_ptr<OpParamDef>> paramDefs_;  // handles returned by Input/Output
  std::vector<std::unique_ptr<OpAttrDef>> attrDefs_;
  gert::OpImplRegisterV2::InferShapeKernelFunc inferShape_ = nullptr;
  gert::OpImplRegisterV2::InferDataTypeKernelFunc inferDataType_ = nullptr;
  OpAICoreDef aicore_{&info_};
};

// OP_ADD's work: records the definition and registers the functions it names.
int sim_host_add_op_def(OpDef& def);

}  // namespace ops

#define OP_ADD(opType, ...)                                                 \
  static int g_##opType##_added [[maybe_unused]] = [](const char* name) {  \
    opType op(name);                                                        \
    return ::ops::sim_host_add_op_def(op);                                  \
  }(#opType)
