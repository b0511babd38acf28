// A client written against CANN includes only CANN's public headers and uses the standard types
// those headers bring in (<cstdint>, <cstdlib> from aclnn_base.h/acl_meta.h, <stdint.h>,
// <stddef.h>, <stdbool.h> from acl_rt.h, <array> from aclnn_group_norm_backward.h). The file
// compiling is the test: nothing else is included before the client code.
#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_layer_norm_backward.h"

namespace client {

std::array<bool, 3> OutputMask() { return {true, false, true}; }
int64_t Elements(int64_t n, int64_t c) { return n * c; }
size_t Bytes(int64_t elems) { return static_cast<size_t>(elems) * sizeof(float); }
void* HostBuffer(size_t bytes) { return std::malloc(bytes); }

}  // namespace client

#include <gtest/gtest.h>

TEST(CannHeaderClient, UsesTheStandardTypesTheHeadersBringIn) {
  std::array<bool, 3> mask = client::OutputMask();
  aclBoolArray* outputMask = aclCreateBoolArray(mask.data(), mask.size());
  ASSERT_NE(outputMask, nullptr);
  void* host = client::HostBuffer(client::Bytes(client::Elements(2, 3)));
  ASSERT_NE(host, nullptr);
  std::free(host);
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  // A null gradOut is rejected as a null pointer, before anything else is looked at.
  EXPECT_EQ(aclnnGroupNormBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, nullptr, nullptr, 2, 3, 1, 1, outputMask,
                                                   nullptr, nullptr, nullptr, &workspaceSize, &executor),
            161001);
  aclDestroyBoolArray(outputMask);
}
