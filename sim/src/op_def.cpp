// The OpDef API (register/op_def_registry.h) and the simulator's records of every OP_ADD: the
// definitions, their consistency checks and their JSON for the C API.
#include <map>
#include <mutex>

#include "json_text.h"
#include "named_registry.h"
#include "register/op_def_registry.h"
#include "simhost/op_records.h"

using normgrad_sim::JsonArray;
using normgrad_sim::JsonBool;
using normgrad_sim::JsonNumber;
using normgrad_sim::JsonString;

namespace sim::host {

int AddOpDef(const OpDefInfo& info);
std::string AttrValueJson(const AttrValue& v);

namespace {

using DefRegistry = NamedRegistry<OpDefInfo>;
DefRegistry& Defs() {
  static DefRegistry r;  // function-local: OP_ADD runs during static initialization
  return r;
}

const char* OptionName(int o) {
  switch (o) {
    case ops::OPTIONAL: return "optional";
    case ops::REQUIRED: return "required";
    case ops::DYNAMIC: return "dynamic";
    default: return "?";
  }
}

bool SameParams(const std::vector<ParamDefInfo>& a, const std::vector<ParamDefInfo>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].paramType != b[i].paramType || a[i].dtypes != b[i].dtypes ||
        a[i].formats != b[i].formats) {
      return false;
    }
  }
  return true;
}

bool SameDef(const OpDefInfo& a, const OpDefInfo& b) {
  if (!SameParams(a.inputs, b.inputs) || !SameParams(a.outputs, b.outputs) || a.socs != b.socs) return false;
  if (a.attrs.size() != b.attrs.size()) return false;
  for (size_t i = 0; i < a.attrs.size(); ++i) {
    if (a.attrs[i].name != b.attrs[i].name || a.attrs[i].type != b.attrs[i].type ||
        a.attrs[i].attrType != b.attrs[i].attrType || a.attrs[i].defaultJson != b.attrs[i].defaultJson) {
      return false;
    }
  }
  return true;
}

template <typename T, typename F>
std::string ListJson(const std::vector<T>& v, F item) {
  std::vector<std::string> items;
  for (const T& x : v) items.push_back(item(x));
  return JsonArray(items);
}

}  // namespace


// The JSON text of an attribute value (defaults in RegisteredOpDefsJson).
std::string AttrValueJson(const AttrValue& v) {
  struct Visitor {
    std::string operator()(int64_t x) const { return std::to_string(x); }
    std::string operator()(float x) const { return JsonNumber(x); }
    std::string operator()(bool x) const { return JsonBool(x); }
    std::string operator()(const std::string& x) const { return JsonString(x); }
    std::string operator()(const std::vector<int64_t>& x) const {
      return ListJson(x, [](int64_t e) { return std::to_string(e); });
    }
    std::string operator()(const std::vector<float>& x) const {
      return ListJson(x, [](float e) { return JsonNumber(e); });
    }
    std::string operator()(const std::vector<bool>& x) const {
      std::vector<std::string> items;
      for (bool e : x) items.push_back(JsonBool(e));
      return JsonArray(items);
    }
  };
  return std::visit(Visitor{}, v);
}

int AddOpDef(const OpDefInfo& info) {
  DefRegistry& r = Defs();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.AddLocked(info, SameDef, "OP_ADD");
  return 0;
}

const std::vector<OpDefInfo>& RegisteredOpDefs() { return Defs().items; }

const OpDefInfo* FindOpDef(const std::string& name) { return Defs().Find(name); }

std::vector<std::string> OpDefProblems(const OpDefInfo& info) {
  std::vector<std::string> problems;
  const std::string op = info.name + ": ";
  size_t combos = 0;
  std::string first;
  std::map<std::string, int> names;
  auto check = [&](const std::vector<ParamDefInfo>& params, const char* what) {
    for (const ParamDefInfo& p : params) {
      if (++names[p.name] == 2) problems.push_back(op + "the name " + p.name + " is used twice");
      if (p.dtypes.empty()) {
        problems.push_back(op + what + " " + p.name + " has no DataType list");
        continue;
      }
      if (first.empty()) {
        first = p.name;
        combos = p.dtypes.size();
      } else if (p.dtypes.size() != combos) {
        problems.push_back(op + what + " " + p.name + " lists " + std::to_string(p.dtypes.size()) +
                           " data types, but " + first + " lists " + std::to_string(combos));
      }
      if (p.formats.size() != p.dtypes.size()) {
        problems.push_back(op + what + " " + p.name + " lists " + std::to_string(p.formats.size()) + " formats for " +
                           std::to_string(p.dtypes.size()) + " data types");
      }
    }
  };
  check(info.inputs, "input");
  check(info.outputs, "output");
  for (const AttrDefInfo& a : info.attrs) {
    if (++names[a.name] == 2) problems.push_back(op + "the name " + a.name + " is used twice");
    if (a.type.empty()) problems.push_back(op + "attr " + a.name + " has no type (call Int(), Bool(), ...)");
    if (a.attrType == ops::REQUIRED && a.hasDefault) problems.push_back(op + "required attr " + a.name + " has a default");
    if (a.attrType == ops::OPTIONAL && !a.hasDefault && !a.type.empty()) {
      problems.push_back(op + "optional attr " + a.name + " has no default");
    }
  }
  if (info.socs.empty()) problems.push_back(op + "no AICore().AddConfig(<soc>)");
  return problems;
}

const std::vector<std::string>& OpDefRegistryProblems() { return Defs().problems; }

std::string RegisteredOpDefsJson() {
  DefRegistry& r = Defs();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto params = [](const std::vector<ParamDefInfo>& ps) {
    return ListJson(ps, [](const ParamDefInfo& p) {
      return "{\"name\": " + JsonString(p.name) + ", \"paramType\": " + JsonString(OptionName(p.paramType)) +
             ", \"dtypes\": " + ListJson(p.dtypes, [](ge::DataType t) { return JsonString(ge::DataTypeName(t)); }) +
             ", \"formats\": " + ListJson(p.formats, [](ge::Format f) { return JsonString(ge::FormatName(f)); }) + "}";
    });
  };
  return ListJson(r.items, [&](const OpDefInfo& d) {
    std::string attrs = ListJson(d.attrs, [](const AttrDefInfo& a) {
      return "{\"name\": " + JsonString(a.name) + ", \"type\": " + JsonString(a.type) +
             ", \"required\": " + JsonBool(a.attrType == ops::REQUIRED) +
             ", \"default\": " + (a.hasDefault ? a.defaultJson : "null") + "}";
    });
    std::vector<std::string> problems = OpDefProblems(d);
    const OpImplFuncs* impl = FindOpImpl(d.name);
    return "{\"name\": " + JsonString(d.name) + ", \"inputs\": " + params(d.inputs) + ", \"outputs\": " +
           params(d.outputs) + ", \"attrs\": " + attrs + ", \"hasInferShape\": " + JsonBool(impl != nullptr && impl->inferShape != nullptr) +
           ", \"hasTiling\": " + JsonBool(impl != nullptr && impl->tiling != nullptr) +
           ", \"socs\": " + ListJson(d.socs, [](const std::string& s) { return JsonString(s); }) +
           ", \"problems\": " + ListJson(problems, [](const std::string& s) { return JsonString(s); }) + "}";
  });
}

}  // namespace sim::host

namespace ops {

using sim::host::AttrValue;

OpParamDef& OpParamDef::ParamType(Option param_type) {
  info().paramType = param_type;
  return *this;
}
OpParamDef& OpParamDef::DataType(std::vector<ge::DataType> types) {
  info().dtypes = std::move(types);
  return *this;
}
OpParamDef& OpParamDef::Format(std::vector<ge::Format> formats) {
  info().formats = std::move(formats);
  return *this;
}
OpParamDef& OpParamDef::UnknownShapeFormat(std::vector<ge::Format>) { return *this; }
OpParamDef& OpParamDef::ValueDepend(Option) { return *this; }
OpParamDef& OpParamDef::IgnoreContiguous(void) { return *this; }
OpParamDef& OpParamDef::AutoContiguous() { return *this; }

OpAttrDef& OpAttrDef::AttrType(Option attr_type) {
  info().attrType = attr_type;
  return *this;
}

OpAttrDef& OpAttrDef::Set(const char* type, AttrValue value, bool hasDefault) {
  sim::host::AttrDefInfo& a = info();
  a.type = type;
  a.hasDefault = hasDefault;
  a.defaultValue = std::move(value);
  a.defaultJson = hasDefault ? sim::host::AttrValueJson(a.defaultValue) : "";
  return *this;
}

OpAttrDef& OpAttrDef::Bool(void) { return Set("Bool", false, false); }
OpAttrDef& OpAttrDef::Bool(bool value) { return Set("Bool", value, true); }
OpAttrDef& OpAttrDef::Float(void) { return Set("Float", 0.0f, false); }
OpAttrDef& OpAttrDef::Float(float value) { return Set("Float", value, true); }
OpAttrDef& OpAttrDef::Int(void) { return Set("Int", int64_t{0}, false); }
OpAttrDef& OpAttrDef::Int(int64_t value) { return Set("Int", value, true); }
OpAttrDef& OpAttrDef::String(void) { return Set("String", std::string(), false); }
OpAttrDef& OpAttrDef::String(const char* value) { return Set("String", std::string(value), true); }
OpAttrDef& OpAttrDef::ListBool(void) { return Set("ListBool", std::vector<bool>(), false); }
OpAttrDef& OpAttrDef::ListBool(std::vector<bool> value) { return Set("ListBool", std::move(value), true); }
OpAttrDef& OpAttrDef::ListFloat(void) { return Set("ListFloat", std::vector<float>(), false); }
OpAttrDef& OpAttrDef::ListFloat(std::vector<float> value) { return Set("ListFloat", std::move(value), true); }
OpAttrDef& OpAttrDef::ListInt(void) { return Set("ListInt", std::vector<int64_t>(), false); }
OpAttrDef& OpAttrDef::ListInt(std::vector<int64_t> value) { return Set("ListInt", std::move(value), true); }

OpAICoreConfig& OpAICoreConfig::DynamicCompileStaticFlag(bool) { return *this; }
OpAICoreConfig& OpAICoreConfig::DynamicFormatFlag(bool) { return *this; }
OpAICoreConfig& OpAICoreConfig::DynamicRankSupportFlag(bool) { return *this; }
OpAICoreConfig& OpAICoreConfig::DynamicShapeSupportFlag(bool) { return *this; }
OpAICoreConfig& OpAICoreConfig::NeedCheckSupportFlag(bool) { return *this; }
OpAICoreConfig& OpAICoreConfig::PrecisionReduceFlag(bool) { return *this; }

OpAICoreDef& OpAICoreDef::SetTiling(gert::OpImplRegisterV2::TilingKernelFunc func) {
  tiling_ = func;
  return *this;
}
gert::OpImplRegisterV2::TilingKernelFunc& OpAICoreDef::GetTiling(void) { return tiling_; }
OpAICoreDef& OpAICoreDef::AddConfig(const char* soc) {
  info_->socs.push_back(soc);
  return *this;
}
OpAICoreDef& OpAICoreDef::AddConfig(const char* soc, OpAICoreConfig&) { return AddConfig(soc); }

OpDef::OpDef(const char* type) { info_.name = type; }

OpParamDef& OpDef::Input(const char* name) {
  info_.inputs.push_back({name, REQUIRED, {}, {}});
  paramDefs_.push_back(std::make_unique<OpParamDef>(&info_.inputs, info_.inputs.size() - 1));
  return *paramDefs_.back();
}

OpParamDef& OpDef::Output(const char* name) {
  info_.outputs.push_back({name, REQUIRED, {}, {}});
  paramDefs_.push_back(std::make_unique<OpParamDef>(&info_.outputs, info_.outputs.size() - 1));
  return *paramDefs_.back();
}

OpAttrDef& OpDef::Attr(const char* name) {
  sim::host::AttrDefInfo a;
  a.name = name;
  a.attrType = OPTIONAL;
  info_.attrs.push_back(a);
  attrDefs_.push_back(std::make_unique<OpAttrDef>(&info_.attrs, info_.attrs.size() - 1));
  return *attrDefs_.back();
}

OpDef& OpDef::SetInferShape(gert::OpImplRegisterV2::InferShapeKernelFunc func) {
  inferShape_ = func;
  return *this;
}
OpDef& OpDef::SetInferDataType(gert::OpImplRegisterV2::InferDataTypeKernelFunc func) {
  inferDataType_ = func;
  return *this;
}
gert::OpImplRegisterV2::InferShapeKernelFunc& OpDef::GetInferShape(void) { return inferShape_; }
gert::OpImplRegisterV2::InferDataTypeKernelFunc& OpDef::GetInferDataType(void) { return inferDataType_; }
OpAICoreDef& OpDef::AICore(void) { return aicore_; }

// As CANN's OP_ADD: the OpDef's functions are registered for its type like IMPL_OP_* would.
int sim_host_add_op_def(OpDef& def) {
  gert::OpImplRegisterV2 impl(def.info_.name.c_str());
  impl.InferShape(def.GetInferShape()).InferDataType(def.GetInferDataType());
  if (def.AICore().GetTiling() != nullptr) impl.Tiling(def.AICore().GetTiling());
  return sim::host::AddOpDef(def.info_);
}

}  // namespace ops
