// gert::RuntimeAttrs (exe_graph/runtime/runtime_attrs.h in CANN): an operator's attribute values
// by index in OpDef order (optional attributes hold their default when the caller gave none).
// The simulator checks what CANN does not: asking for an attribute as another type than it has
// returns nullptr instead of reinterpreting its bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "exe_graph/runtime/continuous_vector.h"

namespace gert {

class RuntimeAttrs {
 public:
  template <typename T>
  const T* GetAttrPointer(size_t index) const {
    if (index >= entries_.size()) return nullptr;
    const Entry& e = entries_[index];
    if constexpr (std::is_same<T, int64_t>::value) {
      return e.kind == Kind::kInt ? &e.i : nullptr;
    } else if constexpr (std::is_same<T, float>::value) {
      return e.kind == Kind::kFloat ? &e.f : nullptr;
    } else if constexpr (std::is_same<T, bool>::value) {
      return e.kind == Kind::kBool ? &e.b : nullptr;
    } else if constexpr (std::is_same<T, char>::value) {
      return e.kind == Kind::kString ? e.s.c_str() : nullptr;
    } else if constexpr (std::is_same<T, TypedContinuousVector<int64_t>>::value) {
      return e.kind == Kind::kListInt ? &e.listInt : nullptr;
    } else if constexpr (std::is_same<T, TypedContinuousVector<float>>::value) {
      return e.kind == Kind::kListFloat ? &e.listFloat : nullptr;
    } else if constexpr (std::is_same<T, ContinuousVector>::value) {
      if (e.kind == Kind::kListInt) return &e.listInt;
      if (e.kind == Kind::kListFloat) return &e.listFloat;
      return e.kind == Kind::kListBool ? &e.listBool : nullptr;
    } else {
      return nullptr;
    }
  }
  const int64_t* GetInt(const size_t index) const { return GetAttrPointer<int64_t>(index); }
  const TypedContinuousVector<int64_t>* GetListInt(const size_t index) const {
    return GetAttrPointer<TypedContinuousVector<int64_t>>(index);
  }
  const char* GetStr(const size_t index) const { return GetAttrPointer<char>(index); }
  const float* GetFloat(const size_t index) const { return GetAttrPointer<float>(index); }
  const bool* GetBool(const size_t index) const { return GetAttrPointer<bool>(index); }
  const TypedContinuousVector<float>* GetListFloat(const size_t index) const {
    return GetAttrPointer<TypedContinuousVector<float>>(index);
  }
  size_t GetAttrNum() const { return entries_.size(); }

 private:
  friend class sim::host::AttrStore;
  enum class Kind { kNone, kInt, kFloat, kBool, kString, kListInt, kListFloat, kListBool };
  struct Entry {
    Kind kind = Kind::kNone;
    int64_t i = 0;
    float f = 0.0f;
    bool b = false;
    std::string s;
    TypedContinuousVector<int64_t> listInt;
    TypedContinuousVector<float> listFloat;
    ContinuousVector listBool;  // one byte per element, as CANN stores a ListBool
  };
  std::vector<Entry> entries_;
};

}  // namespace gert
