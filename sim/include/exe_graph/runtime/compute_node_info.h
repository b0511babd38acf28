// gert::CompileTimeTensorDesc (exe_graph/runtime/compute_node_info.h in CANN): a tensor's data
// type and formats as the graph knows them before it runs.
#pragma once
#include "graph/types.h"

namespace gert {

class CompileTimeTensorDesc {
 public:
  ge::DataType GetDataType() const { return data_type_; }
  ge::Format GetOriginFormat() const { return origin_format_; }
  ge::Format GetStorageFormat() const { return storage_format_; }
  void SetDataType(const ge::DataType data_type) { data_type_ = data_type; }
  void SetStorageFormat(const ge::Format format) { storage_format_ = format; }
  void SetOriginFormat(const ge::Format format) { origin_format_ = format; }

 private:
  ge::DataType data_type_ = ge::DT_UNDEFINED;
  ge::Format origin_format_ = ge::FORMAT_ND;
  ge::Format storage_format_ = ge::FORMAT_ND;
};

}  // namespace gert
