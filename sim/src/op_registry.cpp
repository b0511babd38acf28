// The recorders behind graph/operator_reg.h (REG_OP) and register/op_def_registry.h (OpDef,
// OP_ADD): registries of operator schemas, their consistency checks, JSON for the C API, and
// shape inference by name.
#include <map>
#include <mutex>
#include <stdexcept>

#include "graph/operator_reg.h"
#include "json_text.h"
#include "named_registry.h"

using normgrad_sim::JsonArray;
using normgrad_sim::JsonBool;
using normgrad_sim::JsonNumber;
using normgrad_sim::JsonString;

namespace ge {
namespace {

using GraphRegistry = sim::NamedRegistry<OpSchema>;
GraphRegistry& Graph() {
  static GraphRegistry r;  // function-local: REG_OP runs during static initialization
  return r;
}

bool SameParams(const std::vector<OpParamSchema>& a, const std::vector<OpParamSchema>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].kind != b[i].kind || a[i].dtypes != b[i].dtypes) return false;
  }
  return true;
}

bool SameSchema(const OpSchema& a, const OpSchema& b) {
  if (a.name != b.name || !SameParams(a.inputs, b.inputs) || !SameParams(a.outputs, b.outputs)) return false;
  if (a.attrs.size() != b.attrs.size()) return false;
  for (size_t i = 0; i < a.attrs.size(); ++i) {
    const OpAttrSchema& x = a.attrs[i];
    const OpAttrSchema& y = b.attrs[i];
    if (x.name != y.name || x.type != y.type || x.required != y.required || x.defaultJson != y.defaultJson) return false;
  }
  return true;
}

const char* KindName(ParamKind k) {
  switch (k) {
    case ParamKind::kRequired: return "required";
    case ParamKind::kOptional: return "optional";
    case ParamKind::kDynamic: return "dynamic";
  }
  return "?";
}

std::string DtypesJson(const std::vector<DataType>& types) {
  std::vector<std::string> items;
  for (DataType t : types) items.push_back(JsonString(DataTypeName(t)));
  return JsonArray(items);
}

template <typename T, typename F>
std::string ListJson(const std::vector<T>& v, F item) {
  std::vector<std::string> items;
  for (const T& x : v) items.push_back(item(x));
  return JsonArray(items);
}

}  // namespace

const char* DataTypeName(DataType dt) {
  switch (dt) {
    case DT_FLOAT: return "DT_FLOAT";
    case DT_FLOAT16: return "DT_FLOAT16";
    case DT_INT8: return "DT_INT8";
    case DT_INT32: return "DT_INT32";
    case DT_UINT8: return "DT_UINT8";
    case DT_INT16: return "DT_INT16";
    case DT_UINT16: return "DT_UINT16";
    case DT_UINT32: return "DT_UINT32";
    case DT_INT64: return "DT_INT64";
    case DT_UINT64: return "DT_UINT64";
    case DT_DOUBLE: return "DT_DOUBLE";
    case DT_BOOL: return "DT_BOOL";
    case DT_STRING: return "DT_STRING";
    case DT_COMPLEX64: return "DT_COMPLEX64";
    case DT_COMPLEX128: return "DT_COMPLEX128";
    case DT_BF16: return "DT_BF16";
    case DT_UNDEFINED: return "DT_UNDEFINED";
  }
  static thread_local std::string other;
  other = "DT_" + std::to_string(static_cast<int>(dt));
  return other.c_str();
}

const char* FormatName(Format f) {
  switch (f) {
    case FORMAT_NCHW: return "FORMAT_NCHW";
    case FORMAT_NHWC: return "FORMAT_NHWC";
    case FORMAT_ND: return "FORMAT_ND";
    case FORMAT_NC1HWC0: return "FORMAT_NC1HWC0";
    case FORMAT_FRACTAL_Z: return "FORMAT_FRACTAL_Z";
    case FORMAT_NC1HWC0_C04: return "FORMAT_NC1HWC0_C04";
    case FORMAT_HWCN: return "FORMAT_HWCN";
    case FORMAT_NDHWC: return "FORMAT_NDHWC";
    case FORMAT_FRACTAL_NZ: return "FORMAT_FRACTAL_NZ";
    case FORMAT_NCDHW: return "FORMAT_NCDHW";
    case FORMAT_NDC1HWC0: return "FORMAT_NDC1HWC0";
    case FORMAT_NC: return "FORMAT_NC";
    case FORMAT_RESERVED: return "FORMAT_RESERVED";
    case FORMAT_NCL: return "FORMAT_NCL";
  }
  static thread_local std::string other;
  other = "FORMAT_" + std::to_string(static_cast<int>(f));
  return other.c_str();
}

TensorType TensorType::ALL() {
  return TensorType({DT_BOOL, DT_COMPLEX128, DT_COMPLEX64, DT_DOUBLE, DT_FLOAT, DT_FLOAT16, DT_INT16, DT_INT32,
                     DT_INT64, DT_INT8, DT_UINT16, DT_UINT32, DT_UINT64, DT_UINT8, DT_BF16});
}

TensorType TensorType::NumberType() {
  return TensorType({DT_COMPLEX128, DT_COMPLEX64, DT_DOUBLE, DT_FLOAT, DT_FLOAT16, DT_INT16, DT_INT32, DT_INT64,
                     DT_INT8, DT_UINT16, DT_UINT32, DT_UINT64, DT_UINT8, DT_BF16});
}

OpSchemaBuilder& OpSchemaBuilder::Input(const char* name, ParamKind kind, const TensorType& t) {
  schema_.inputs.push_back({name, kind, t.types()});
  return *this;
}

OpSchemaBuilder& OpSchemaBuilder::Output(const char* name, ParamKind kind, const TensorType& t) {
  schema_.outputs.push_back({name, kind, t.types()});
  return *this;
}

OpSchemaBuilder& OpSchemaBuilder::RequiredAttr(const char* name, const char* type) {
  schema_.attrs.push_back({name, type, true, ""});
  return *this;
}

OpSchemaBuilder& OpSchemaBuilder::AddAttr(const char* name, const char* type, std::string defaultJson) {
  schema_.attrs.push_back({name, type, false, std::move(defaultJson)});
  return *this;
}

OpSchemaBuilder& OpSchemaBuilder::Attr(const char* n, const char* t, const attr::Int& v) {
  return AddAttr(n, t, std::to_string(v.v));
}
OpSchemaBuilder& OpSchemaBuilder::Attr(const char* n, const char* t, const attr::Float& v) {
  return AddAttr(n, t, JsonNumber(v.v));
}
OpSchemaBuilder& OpSchemaBuilder::Attr(const char* n, const char* t, const attr::Bool& v) {
  return AddAttr(n, t, JsonBool(v.v));
}
OpSchemaBuilder& OpSchemaBuilder::Attr(const char* n, const char* t, const attr::String& v) {
  return AddAttr(n, t, JsonString(v.v));
}
OpSchemaBuilder& OpSchemaBuilder::Attr(const char* n, const char* t, const attr::Type& v) {
  return AddAttr(n, t, JsonString(DataTypeName(v.v)));
}
OpSchemaBuilder& OpSchemaBuilder::Attr(const char* n, const char* t, const attr::ListInt& v) {
  return AddAttr(n, t, ListJson(v.v, [](int64_t x) { return std::to_string(x); }));
}
OpSchemaBuilder& OpSchemaBuilder::Attr(const char* n, const char* t, const attr::ListFloat& v) {
  return AddAttr(n, t, ListJson(v.v, [](double x) { return JsonNumber(x); }));
}
OpSchemaBuilder& OpSchemaBuilder::Attr(const char* n, const char* t, const attr::ListBool& v) {
  std::vector<std::string> items;
  for (bool b : v.v) items.push_back(JsonBool(b));
  return AddAttr(n, t, JsonArray(items));
}
OpSchemaBuilder& OpSchemaBuilder::Attr(const char* n, const char* t, const attr::ListString& v) {
  return AddAttr(n, t, ListJson(v.v, [](const std::string& x) { return JsonString(x); }));
}
OpSchemaBuilder& OpSchemaBuilder::Attr(const char* n, const char* t, const attr::ListType& v) {
  return AddAttr(n, t, DtypesJson(v.v));
}

int OpSchemaBuilder::End(const char* name) {
  GraphRegistry& r = Graph();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (schema_.name != name) {
    r.problems.push_back("REG_OP(" + schema_.name + ") ends with OP_END_FACTORY_REG(" + name + ")");
  }
  r.AddLocked(schema_, SameSchema, "REG_OP");
  return 0;
}

const std::vector<OpSchema>& RegisteredOps() { return Graph().items; }

const OpSchema* FindRegisteredOp(const std::string& name) { return Graph().Find(name); }

const std::vector<std::string>& RegisteredOpProblems() { return Graph().problems; }

std::string RegisteredOpsJson() {
  GraphRegistry& r = Graph();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto params = [](const std::vector<OpParamSchema>& ps) {
    return ListJson(ps, [](const OpParamSchema& p) {
      return "{\"name\": " + JsonString(p.name) + ", \"kind\": " + JsonString(KindName(p.kind)) +
             ", \"dtypes\": " + DtypesJson(p.dtypes) + "}";
    });
  };
  return ListJson(r.items, [&](const OpSchema& s) {
    std::string attrs = ListJson(s.attrs, [](const OpAttrSchema& a) {
      return "{\"name\": " + JsonString(a.name) + ", \"type\": " + JsonString(a.type) +
             ", \"required\": " + JsonBool(a.required) + ", \"default\": " + (a.required ? "null" : a.defaultJson) + "}";
    });
    return "{\"name\": " + JsonString(s.name) + ", \"inputs\": " + params(s.inputs) +
           ", \"outputs\": " + params(s.outputs) + ", \"attrs\": " + attrs + "}";
  });
}

}  // namespace ge

