// The simulator's opdev surface, part 1 (sim/include/opdev): the methods of aclTensor, aclBoolArray
// and aclIntArray over the handle table, OP_LOGE, the attribute values of OP_ATTR, and the platform.
#include <cstdarg>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "ascendc/soc.h"
#include "normgrad_sim.h"
#include "opdev/common_types.h"
#include "opdev/op_arg_def.h"
#include "opdev/op_log.h"
#include "opdev/platform.h"
#include "simhost/acl_handles.h"

namespace {

normgrad_sim::TensorInfo Info(const aclTensor* t) {
  normgrad_sim::TensorInfo info;
  std::string why = normgrad_sim::FindTensor(t, &info);
  if (!why.empty()) throw std::invalid_argument("an aclTensor method on a handle that " + why);
  return info;
}

}  // namespace

op::Shape aclTensor::GetViewShape() const {
  op::Shape s;
  for (int64_t d : Info(this).viewDims) s.AppendDim(d);
  return s;
}
op::Strides aclTensor::GetViewStrides() const { return Info(this).strides; }
int64_t aclTensor::GetViewOffset() const { return Info(this).offset; }
op::DataType aclTensor::GetDataType() const { return static_cast<op::DataType>(Info(this).dataType); }
op::Format aclTensor::GetViewFormat() const {
  const aclFormat f = Info(this).format;
  return f == ACL_FORMAT_UNDEFINED ? ge::FORMAT_RESERVED : static_cast<op::Format>(f);  // ge::Format has no -1
}
void* aclTensor::GetStorageAddr() const { return Info(this).data; }
int64_t aclTensor::Numel() const {
  int64_t n = 1;
  for (int64_t d : Info(this).viewDims) {
    if (__builtin_mul_overflow(n, d, &n)) return -1;
  }
  return n;
}

namespace normgrad_sim {

std::vector<bool> BoolArrayOf(const aclBoolArray* a) {
  std::vector<bool> v;
  std::string why = FindBoolArray(a, &v);
  if (!why.empty()) throw std::invalid_argument("an aclBoolArray " + why);
  return v;
}

std::vector<int64_t> IntArrayOf(const aclIntArray* a) {
  std::vector<int64_t> v;
  std::string why = FindIntArray(a, &v);
  if (!why.empty()) throw std::invalid_argument("an aclIntArray " + why);
  return v;
}

void OpLogError(int32_t code, const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  normgradSimSetRecentErrMsg(buf);
}

}  // namespace normgrad_sim

uint64_t aclBoolArray::Size() const { return normgrad_sim::BoolArrayOf(this).size(); }
bool aclBoolArray::operator[](uint64_t i) const { return normgrad_sim::BoolArrayOf(this).at(i); }
uint64_t aclIntArray::Size() const { return normgrad_sim::IntArrayOf(this).size(); }
int64_t aclIntArray::operator[](uint64_t i) const { return normgrad_sim::IntArrayOf(this).at(i); }

namespace op {

SocVersion PlatformInfo::GetSocVersion() const {
  const std::string family = sim::CurrentSoc().family;
  if (family == "ascend910") return SocVersion::ASCEND910;
  if (family == "ascend910_93") return SocVersion::ASCEND910_93;
  if (family == "ascend910b") return SocVersion::ASCEND910B;
  if (family == "ascend310p") return SocVersion::ASCEND310P;
  if (family == "ascend950") return SocVersion::ASCEND950;
  return SocVersion::RESERVED_VERSION;
}

const std::string& PlatformInfo::GetSocLongVersion() const {
  thread_local std::string name;  // CANN returns a reference; the profile may change between calls
  name = sim::CurrentSoc().name;
  return name;
}

const PlatformInfo& GetCurrentPlatformInfo() {
  static const PlatformInfo info;
  return info;
}

}  // namespace op
