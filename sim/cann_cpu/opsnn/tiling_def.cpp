// The non-inline part of CANN's tiling-data classes (metadef register/tilingdata_base.h: BEGIN_TILING_DATA_DEF
// derives from optiling::TilingDef), which ops-nn's host tiling links and CANN ships compiled. Written from the
// header's contract: a class's fields are laid out in declaration order, each at a multiple of its own size
// (CheckAlignAndGenPlaceHolder pads), set_<field> writes into the class's data buffer (InitData allocates it,
// SetDataPtr points it, and a nested struct's buffer, into the parent's), SaveToBuffer copies that buffer out.
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "register/tilingdata_base.h"

namespace optiling {

void TilingDef::SaveToBuffer(void* pdata, size_t capacity) {
  // A class whose buffer was pointed elsewhere (SetDataPtr) already wrote its fields there.
  if (inited_data_ptr || data_ptr_ == nullptr) return;
  std::memcpy(pdata, data_ptr_, data_size_ <= capacity ? data_size_ : capacity);
}

std::vector<FieldInfo> TilingDef::GetFieldInfo() const { return field_info_; }

const char* TilingDef::GetTilingClassName() const { return class_name_; }

size_t TilingDef::GetDataSize() const { return data_size_; }

void TilingDef::SetDataPtr(void* dataPtr) {
  if (!inited_data_ptr) delete[] data_ptr_;
  inited_data_ptr = true;
  data_ptr_ = static_cast<uint8_t*>(dataPtr);
  for (auto& [sub, offset] : saveBufferPtr) static_cast<TilingDef*>(sub)->SetDataPtr(data_ptr_ + offset);
}

void TilingDef::CheckAlignAndGenPlaceHolder(const char* name, size_t typeSize) {
  if (typeSize == 0 || data_size_ % typeSize == 0) return;
  const size_t pad = typeSize - data_size_ % typeSize;
  field_info_.emplace_back(FieldInfo("uint8_t", name, pad));
  data_size_ += pad;
}

void TilingDef::InitData() {
  data_ptr_ = new uint8_t[data_size_ > 0 ? data_size_ : 1]();
  for (auto& [sub, offset] : saveBufferPtr) static_cast<TilingDef*>(sub)->SetDataPtr(data_ptr_ + offset);
}

void TilingDef::GeLogError(const std::string& str) const { std::fprintf(stderr, "tiling data: %s\n", str.c_str()); }

// The registry of tiling-data classes per op type (REGISTER_TILING_DATA_CLASS); kept, not consulted.
namespace {
std::map<std::string, TilingDataConstructor>& Classes() {
  static std::map<std::string, TilingDataConstructor> classes;
  return classes;
}
}  // namespace

CTilingDataClassFactory& CTilingDataClassFactory::GetInstance() {
  static CTilingDataClassFactory instance;
  return instance;
}

void CTilingDataClassFactory::RegisterTilingData(const char* op_type, const TilingDataConstructor constructor) {
  Classes().emplace(op_type, constructor);
}

std::shared_ptr<TilingDef> CTilingDataClassFactory::CreateTilingDataInstance(const char* op_type) {
  const auto it = Classes().find(op_type);
  return it == Classes().end() || it->second == nullptr ? nullptr : it->second();
}

}  // namespace optiling
