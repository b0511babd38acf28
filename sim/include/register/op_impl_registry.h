// gert::OpImplRegisterV2 and the IMPL_OP_* macros (register/op_impl_registry.h in CANN): register
// an operator type's host functions — InferShape, InferDataType, Tiling and TilingParse. OP_ADD
// registers the functions an OpDef names the same way. The simulator keeps them in one registry
// per process; its aclnn layer and graph checks call them through sim::host::Runner.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/kernel_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "exe_graph/runtime/tiling_parse_context.h"
#include "graph/compiler_def.h"
#include "graph/types.h"

namespace gert {

using UINT32 = uint32_t;

class OpImplRegisterV2 {
 public:
  using InferShapeKernelFunc = UINT32 (*)(InferShapeContext*);
  using TilingKernelFunc = UINT32 (*)(TilingContext*);
  using InferDataTypeKernelFunc = UINT32 (*)(InferDataTypeContext*);
  using KernelFunc = UINT32 (*)(KernelContext* context);
  using TilingParseFunc = UINT32 (*)(TilingParseContext* context);
  using CompileInfoCreatorFunc = void* (*)();
  using CompileInfoDeleterFunc = void (*)(void*);

  explicit OpImplRegisterV2(const ge::char_t* op_type);
  OpImplRegisterV2(const OpImplRegisterV2& register_data);
  OpImplRegisterV2(OpImplRegisterV2&& register_data) noexcept;
  OpImplRegisterV2& operator=(const OpImplRegisterV2&) = delete;
  ~OpImplRegisterV2();

  // A null function leaves what is registered for the type as it is.
  OpImplRegisterV2& InferShape(InferShapeKernelFunc infer_shape_func);
  OpImplRegisterV2& InferDataType(InferDataTypeKernelFunc infer_datatype_func);
  OpImplRegisterV2& Tiling(TilingKernelFunc tiling_func, size_t max_tiling_data_size = 2048);
  template <typename T>
  OpImplRegisterV2& TilingParse(KernelFunc const tiling_parse_func) {
    return TilingParse(tiling_parse_func, CreateCompileInfo<T>, DeleteCompileInfo<T>);
  }
  template <typename T>
  OpImplRegisterV2& TilingParse(TilingParseFunc const tiling_parse_func) {
    return TilingParse(reinterpret_cast<KernelFunc>(tiling_parse_func), CreateCompileInfo<T>, DeleteCompileInfo<T>);
  }
  OpImplRegisterV2& TilingParse(KernelFunc tiling_parse_func, CompileInfoCreatorFunc creator_func,
                                CompileInfoDeleterFunc deleter_func);

 private:
  template <typename T>
  static void* CreateCompileInfo() {
    return new T;
  }
  template <typename T>
  static void DeleteCompileInfo(void* const obj) {
    delete reinterpret_cast<T*>(obj);
  }
  std::string op_type_;
};

}  // namespace gert

#define IMPL_OP_COUNTER(op_type, name, counter) \
  static gert::OpImplRegisterV2 VAR_UNUSED name##counter = gert::OpImplRegisterV2(#op_type)
#define IMPL_OP_COUNTER_NUMBER(op_type, name, counter) IMPL_OP_COUNTER(op_type, name, counter)
#define IMPL_OP(op_type) IMPL_OP_COUNTER_NUMBER(op_type, op_impl_register_##op_type, __COUNTER__)
#define IMPL_OP_DEFAULT() IMPL_OP(DefaultImpl)

#define IMPL_OP_INFERSHAPE(op_type) \
  gert::OpImplRegisterV2 VAR_UNUSED op_impl_register_infershape_##op_type = gert::OpImplRegisterV2(#op_type)
#define IMPL_OP_OPTILING(op_type) \
  gert::OpImplRegisterV2 VAR_UNUSED op_impl_register_optiling_##op_type = gert::OpImplRegisterV2(#op_type)
