// The registry behind REG_OP (op_registry.cpp) and OP_ADD (op_def.cpp): items recorded by name
// during static initialization. The first registration of a name wins; a second one with other
// content is kept as a problem for the registry's checks to report.
#pragma once
#include <mutex>
#include <string>
#include <vector>

namespace sim {

template <typename T>
struct NamedRegistry {
  std::mutex mutex;
  std::vector<T> items;
  std::vector<std::string> problems;

  // Records item unless its name is taken (the caller holds mutex); `macro` names the
  // registration in the problem ("OP_ADD(Foo) is registered twice with different content").
  template <typename Same>
  void AddLocked(const T& item, Same same, const char* macro) {
    for (const T& x : items) {
      if (x.name != item.name) continue;
      if (!same(x, item)) {
        problems.push_back(std::string(macro) + "(" + item.name + ") is registered twice with different content");
      }
      return;
    }
    items.push_back(item);
  }

  const T* Find(const std::string& name) const {
    for (const T& x : items) {
      if (x.name == name) return &x;
    }
    return nullptr;
  }
};

}  // namespace sim
