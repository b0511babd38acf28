// gert::OpImplRegisterV2: the per-type registry of host functions (InferShape, InferDataType,
// Tiling, TilingParse) that IMPL_OP_* and OP_ADD fill.
#include <map>
#include <mutex>

#include "register/op_impl_registry.h"
#include "simhost/op_records.h"

namespace sim::host {
namespace {

struct ImplRegistry {
  std::mutex mutex;
  std::map<std::string, OpImplFuncs> impls;
};
ImplRegistry& Impls() {
  static ImplRegistry r;  // function-local: registration runs during static initialization
  return r;
}

template <typename F>
void Update(const std::string& type, F change) {
  ImplRegistry& r = Impls();
  std::lock_guard<std::mutex> lock(r.mutex);
  change(r.impls[type]);
}

}  // namespace

const OpImplFuncs* FindOpImpl(const std::string& type) {
  ImplRegistry& r = Impls();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.impls.find(type);
  return it == r.impls.end() ? nullptr : &it->second;
}

}  // namespace sim::host

namespace gert {

OpImplRegisterV2::OpImplRegisterV2(const ge::char_t* op_type) : op_type_(op_type == nullptr ? "" : op_type) {}
OpImplRegisterV2::OpImplRegisterV2(const OpImplRegisterV2& register_data) = default;
OpImplRegisterV2::OpImplRegisterV2(OpImplRegisterV2&& register_data) noexcept = default;
OpImplRegisterV2::~OpImplRegisterV2() = default;

OpImplRegisterV2& OpImplRegisterV2::InferShape(InferShapeKernelFunc infer_shape_func) {
  if (infer_shape_func != nullptr) {
    sim::host::Update(op_type_, [&](sim::host::OpImplFuncs& f) { f.inferShape = infer_shape_func; });
  }
  return *this;
}

OpImplRegisterV2& OpImplRegisterV2::InferDataType(InferDataTypeKernelFunc infer_datatype_func) {
  if (infer_datatype_func != nullptr) {
    sim::host::Update(op_type_, [&](sim::host::OpImplFuncs& f) { f.inferDataType = infer_datatype_func; });
  }
  return *this;
}

OpImplRegisterV2& OpImplRegisterV2::Tiling(TilingKernelFunc tiling_func, size_t max_tiling_data_size) {
  if (tiling_func != nullptr) {
    sim::host::Update(op_type_, [&](sim::host::OpImplFuncs& f) {
      f.tiling = tiling_func;
      f.maxTilingDataSize = max_tiling_data_size;
    });
  }
  return *this;
}

OpImplRegisterV2& OpImplRegisterV2::TilingParse(KernelFunc tiling_parse_func, CompileInfoCreatorFunc creator_func,
                                                CompileInfoDeleterFunc deleter_func) {
  sim::host::Update(op_type_, [&](sim::host::OpImplFuncs& f) {
    f.tilingParse = tiling_parse_func;
    f.createCompileInfo = creator_func;
    f.deleteCompileInfo = deleter_func;
  });
  return *this;
}

}  // namespace gert
