// The OpDef registration API of CANN custom operators (ascendc-api.md §9), recording each
// operator's inputs, outputs, attributes, shape inference, tiling and SoCs so they can be checked
// against the aclnn layer and the graph prototype without CANN:
//
//   namespace ops {
//   class GroupNormGrad : public OpDef {
//    public:
//     explicit GroupNormGrad(const char* name) : OpDef(name) {
//       this->Input("dy").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
//       this->Output("dx").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
//       this->Attr("num_groups").AttrType(REQUIRED).Int();
//       this->Attr("dx_is_require").AttrType(OPTIONAL).Bool(true);
//       this->SetInferShape(GroupNormGradInferShape);   // an ops::InferShapeFunc (below)
//       this->AICore().SetTiling(GroupNormGradTiling);  // any callable: recorded as present
//       this->AICore().AddConfig("ascend910b");
//     }
//   };
//   OP_ADD(GroupNormGrad);
//   }  // namespace ops
//
// Shape inference without gert: an InferShapeFunc maps the input shapes (in Input order; an absent
// optional input is {}) and the attribute values to the output shapes (in Output order), and
// throws std::invalid_argument with a message for inputs it rejects. Register it on the OpDef with
// SetInferShape, or by name with RegisterInferShape; run it with ops::InferShape.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "graph/types.h"

namespace ops {

enum Option { OPTIONAL = 0, REQUIRED = 1, DYNAMIC = 2 };

using AttrValue = std::variant<int64_t, float, bool, std::string, std::vector<int64_t>, std::vector<float>,
                               std::vector<bool>>;
using Attrs = std::map<std::string, AttrValue>;
using Shapes = std::vector<std::vector<int64_t>>;
using InferShapeFunc = Shapes (*)(const Shapes& inputs, const Attrs& attrs);

struct ParamDefInfo {
  std::string name;
  Option paramType = REQUIRED;
  std::vector<ge::DataType> dtypes;  // positional combinations across all params
  std::vector<ge::Format> formats;
};

struct AttrDefInfo {
  std::string name;
  Option attrType = OPTIONAL;
  std::string type;         // "Int", "Float", "Bool", "String", "ListInt", "ListFloat", "ListBool"
  bool hasDefault = false;
  std::string defaultJson;  // "" when no default
};

struct OpDefInfo {
  std::string name;
  std::vector<ParamDefInfo> inputs;
  std::vector<ParamDefInfo> outputs;
  std::vector<AttrDefInfo> attrs;
  InferShapeFunc inferShape = nullptr;
  bool hasInferShape = false;  // also true for an infer-shape of another signature (gert)
  bool hasTiling = false;
  std::vector<std::string> socs;  // AICore().AddConfig order
};

// A handle on one input or output of an OpDef (by index: the OpDef's lists grow while it is built).
class OpParamDef {
 public:
  OpParamDef(std::vector<ParamDefInfo>* list, size_t index) : list_(list), index_(index) {}
  OpParamDef& ParamType(Option type);
  OpParamDef& DataType(std::vector<ge::DataType> types);
  OpParamDef& Format(std::vector<ge::Format> formats);
  OpParamDef& UnknownShapeFormat(std::vector<ge::Format> formats) { return *this; }
  OpParamDef& AutoContiguous() { return *this; }
  OpParamDef& IgnoreContiguous() { return *this; }
  OpParamDef& ValueDepend(Option) { return *this; }

 private:
  ParamDefInfo& info() { return (*list_)[index_]; }
  std::vector<ParamDefInfo>* list_;
  size_t index_;
};

class OpAttrDef {
 public:
  OpAttrDef(std::vector<AttrDefInfo>* list, size_t index) : list_(list), index_(index) {}
  OpAttrDef& AttrType(Option type);
  OpAttrDef& Bool();
  OpAttrDef& Bool(bool v);
  OpAttrDef& Float();
  OpAttrDef& Float(float v);
  OpAttrDef& Int();
  OpAttrDef& Int(int64_t v);
  OpAttrDef& String();
  OpAttrDef& String(const char* v);
  OpAttrDef& ListBool();
  OpAttrDef& ListBool(std::vector<bool> v);
  OpAttrDef& ListFloat();
  OpAttrDef& ListFloat(std::vector<float> v);
  OpAttrDef& ListInt();
  OpAttrDef& ListInt(std::vector<int64_t> v);
  OpAttrDef& Comment(const char*) { return *this; }

 private:
  OpAttrDef& Set(const char* type, std::string defaultJson, bool hasDefault);
  AttrDefInfo& info() { return (*list_)[index_]; }
  std::vector<AttrDefInfo>* list_;
  size_t index_;
};

class OpAICoreConfig {
 public:
  OpAICoreConfig& DynamicCompileStaticFlag(bool) { return *this; }
  OpAICoreConfig& DynamicFormatFlag(bool) { return *this; }
  OpAICoreConfig& DynamicRankSupportFlag(bool) { return *this; }
  OpAICoreConfig& DynamicShapeSupportFlag(bool) { return *this; }
  OpAICoreConfig& NeedCheckSupportFlag(bool) { return *this; }
  OpAICoreConfig& PrecisionReduceFlag(bool) { return *this; }
};

class OpAICoreDef {
 public:
  explicit OpAICoreDef(OpDefInfo* info) : info_(info) {}
  template <typename F>
  OpAICoreDef& SetTiling(F) {
    info_->hasTiling = true;
    return *this;
  }
  template <typename F>
  OpAICoreDef& SetCheckSupport(F) { return *this; }
  OpAICoreDef& AddConfig(const char* soc);
  OpAICoreDef& AddConfig(const char* soc, OpAICoreConfig&) { return AddConfig(soc); }

 private:
  OpDefInfo* info_;
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
  OpDef& SetInferShape(InferShapeFunc f);
  template <typename F, typename = std::enable_if_t<!std::is_convertible<F, InferShapeFunc>::value>>
  OpDef& SetInferShape(F) {  // CANN's gert signature: recorded as present, not callable here
    info_.hasInferShape = true;
    return *this;
  }
  template <typename F>
  OpDef& SetInferDataType(F) { return *this; }
  OpAICoreDef& AICore() { return aicore_; }
  const OpDefInfo& Info() const { return info_; }

 private:
  OpDefInfo info_;
  std::vector<std::unique_ptr<OpParamDef>> paramDefs_;  // handles returned by Input/Output
  std::vector<std::unique_ptr<OpAttrDef>> attrDefs_;
  OpAICoreDef aicore_{&info_};
};

// Registry. OP_ADD builds the class once and records Info(); same-name re-registration with the
// same content is ignored, different content is listed in OpDefProblems().
int AddOpDef(const OpDefInfo& info);
const std::vector<OpDefInfo>& RegisteredOpDefs();
const OpDefInfo* FindOpDef(const std::string& name);
// Per-op consistency problems: DataType/Format lists of different lengths across params,
// a param without DataType, no AICore().AddConfig, duplicate names; and registry conflicts.
std::vector<std::string> OpDefProblems(const OpDefInfo& info);
const std::vector<std::string>& OpDefRegistryProblems();
std::string RegisteredOpDefsJson();

// Shape inference by operator name: the OpDef's SetInferShape function, else one registered with
// RegisterInferShape. Returns false with *error set when none exists or the function throws.
int RegisterInferShape(const std::string& op, InferShapeFunc f);
bool InferShape(const std::string& op, const Shapes& inputs, const Attrs& attrs, Shapes* outputs,
                std::string* error);

}  // namespace ops

#define OP_ADD(opType, ...)                                                \
  static const int g_ops_op_add_##opType [[maybe_unused]] = []() {         \
    opType def(#opType);                                                   \
    return ::ops::AddOpDef(def.Info());                                    \
  }()
