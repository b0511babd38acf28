// GE's REG_OP grammar for graph prototypes, recording each operator's inputs, outputs and
// attributes (name, type, default) in declaration order so they can be checked against the
// aclnn layer without CANN. Write prototypes as with CANN, inside namespace ge:
//
//   namespace ge {
//   REG_OP(GroupNormGrad)
//       .INPUT(dy, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
//       .OPTIONAL_INPUT(gamma, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
//       .OUTPUT(dx, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
//       .REQUIRED_ATTR(num_groups, Int)
//       .ATTR(data_format, String, "NCHW")
//       .ATTR(dx_is_require, Bool, true)
//       .ATTR(output_mask, ListBool, {true, true, true})
//       .OP_END_FACTORY_REG(GroupNormGrad)
//   }  // namespace ge
//
// Query: ge::RegisteredOps() / ge::FindRegisteredOp("GroupNormGrad"), or normgradGraphOpsJson().
// Registering the same name twice with identical content is fine (headers are included by many
// files); different content keeps the first and lists the conflict in RegisteredOpProblems().
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "graph/types.h"

namespace ge {

class TensorType {
 public:
  TensorType() = default;
  TensorType(DataType dt) : types_{dt} {}  // NOLINT: GE allows TensorType(DT_FLOAT)
  TensorType(std::initializer_list<DataType> types) : types_(types) {}
  static TensorType ALL();
  static TensorType FloatingDataType() { return TensorType({DT_DOUBLE, DT_FLOAT, DT_FLOAT16}); }
  static TensorType IndexNumberType() { return TensorType({DT_INT32, DT_INT64}); }
  static TensorType NumberType();
  const std::vector<DataType>& types() const { return types_; }

 private:
  std::vector<DataType> types_;
};

// Attribute values as REG_OP's ATTR(name, Type, default) spells them; each knows its JSON form.
namespace attr {
struct Int { int64_t v; Int(int64_t x) : v(x) {} };                 // NOLINT
struct Float { double v; Float(double x) : v(x) {} };               // NOLINT
struct Bool { bool v; Bool(bool x) : v(x) {} };                     // NOLINT
struct String { std::string v; String(const char* x) : v(x) {} };   // NOLINT
struct Type { DataType v; Type(DataType x) : v(x) {} };             // NOLINT
struct ListInt { std::vector<int64_t> v; ListInt(std::initializer_list<int64_t> x) : v(x) {} };
struct ListFloat { std::vector<double> v; ListFloat(std::initializer_list<double> x) : v(x) {} };
struct ListBool { std::vector<bool> v; ListBool(std::initializer_list<bool> x) : v(x) {} };
struct ListString {
  std::vector<std::string> v;
  ListString(std::initializer_list<const char*> x) : v(x.begin(), x.end()) {}
};
struct ListType { std::vector<DataType> v; ListType(std::initializer_list<DataType> x) : v(x) {} };
}  // namespace attr

enum class ParamKind { kRequired, kOptional, kDynamic };

struct OpParamSchema {
  std::string name;
  ParamKind kind = ParamKind::kRequired;
  std::vector<DataType> dtypes;
};

struct OpAttrSchema {
  std::string name;
  std::string type;         // "Int", "Float", "Bool", "String", "Type", "ListInt", ...
  bool required = false;
  std::string defaultJson;  // the default as JSON ("0", "true", "\"NCHW\"", "[true, false]"); "" when required
};

struct OpSchema {
  std::string name;
  std::vector<OpParamSchema> inputs;
  std::vector<OpParamSchema> outputs;
  std::vector<OpAttrSchema> attrs;
};

// Builder behind the macros; kernels and tests use the macros, not this class.
class OpSchemaBuilder {
 public:
  explicit OpSchemaBuilder(const char* name) { schema_.name = name; }
  OpSchemaBuilder& Input(const char* name, ParamKind kind, const TensorType& t);
  OpSchemaBuilder& Output(const char* name, ParamKind kind, const TensorType& t);
  OpSchemaBuilder& RequiredAttr(const char* name, const char* type);
  OpSchemaBuilder& Attr(const char* name, const char* type, const attr::Int& v);
  OpSchemaBuilder& Attr(const char* name, const char* type, const attr::Float& v);
  OpSchemaBuilder& Attr(const char* name, const char* type, const attr::Bool& v);
  OpSchemaBuilder& Attr(const char* name, const char* type, const attr::String& v);
  OpSchemaBuilder& Attr(const char* name, const char* type, const attr::Type& v);
  OpSchemaBuilder& Attr(const char* name, const char* type, const attr::ListInt& v);
  OpSchemaBuilder& Attr(const char* name, const char* type, const attr::ListFloat& v);
  OpSchemaBuilder& Attr(const char* name, const char* type, const attr::ListBool& v);
  OpSchemaBuilder& Attr(const char* name, const char* type, const attr::ListString& v);
  OpSchemaBuilder& Attr(const char* name, const char* type, const attr::ListType& v);
  // Commits the schema to the registry; `name` must repeat REG_OP's name.
  int End(const char* name);

 private:
  OpSchemaBuilder& AddAttr(const char* name, const char* type, std::string defaultJson);
  OpSchema schema_;
  std::string problem_;
};

const std::vector<OpSchema>& RegisteredOps();
const OpSchema* FindRegisteredOp(const std::string& name);
// Conflicting re-registrations and REG_OP/OP_END_FACTORY_REG name mismatches.
const std::vector<std::string>& RegisteredOpProblems();
// The whole registry as normgradGraphOpsJson() returns it.
std::string RegisteredOpsJson();

}  // namespace ge

#define REG_OP(x) \
  static const int g_ge_reg_op_##x [[maybe_unused]] = ::ge::OpSchemaBuilder(#x)
#define INPUT(x, t) Input(#x, ::ge::ParamKind::kRequired, t)
#define OPTIONAL_INPUT(x, t) Input(#x, ::ge::ParamKind::kOptional, t)
#define DYNAMIC_INPUT(x, t) Input(#x, ::ge::ParamKind::kDynamic, t)
#define OUTPUT(x, t) Output(#x, ::ge::ParamKind::kRequired, t)
#define DYNAMIC_OUTPUT(x, t) Output(#x, ::ge::ParamKind::kDynamic, t)
#define REQUIRED_ATTR(x, Type) RequiredAttr(#x, #Type)
#define ATTR(x, Type, ...) Attr(#x, #Type, ::ge::attr::Type(__VA_ARGS__))
#define OP_END_FACTORY_REG(x) End(#x);
