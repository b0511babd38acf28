// The simulator's view of the registered operators: every OP_ADD definition, its consistency
// problems, and the host functions registered per operator type (by an OpDef or IMPL_OP_*).
// Simulator-only (not a CANN header): tests and the C API read it; host code never includes it.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "register/op_impl_registry.h"
#include "simhost/op_def_info.h"

namespace sim::host {

const std::vector<OpDefInfo>& RegisteredOpDefs();
const OpDefInfo* FindOpDef(const std::string& name);
// Per-op consistency problems: DataType/Format lists of different lengths across params,
// a param without DataType, no AICore().AddConfig, duplicate names; and registry conflicts.
std::vector<std::string> OpDefProblems(const OpDefInfo& info);
const std::vector<std::string>& OpDefRegistryProblems();
std::string RegisteredOpDefsJson();

struct OpImplFuncs {
  gert::OpImplRegisterV2::InferShapeKernelFunc inferShape = nullptr;
  gert::OpImplRegisterV2::InferDataTypeKernelFunc inferDataType = nullptr;
  gert::OpImplRegisterV2::TilingKernelFunc tiling = nullptr;
  size_t maxTilingDataSize = 2048;
  gert::OpImplRegisterV2::KernelFunc tilingParse = nullptr;
  gert::OpImplRegisterV2::CompileInfoCreatorFunc createCompileInfo = nullptr;
  gert::OpImplRegisterV2::CompileInfoDeleterFunc deleteCompileInfo = nullptr;
};
// The functions registered for an operator type, or nullptr when none are.
const OpImplFuncs* FindOpImpl(const std::string& type);

}  // namespace sim::host
