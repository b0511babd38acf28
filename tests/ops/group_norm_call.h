// A valid GroupNorm backward call on zeros (N = 2, C = 4, HxW = 3, group = 2), for tests of the
// aclnn calling protocol rather than of the numbers: its tensors, mask and workspace.
#pragma once
#include <gtest/gtest.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "schema_test_util.h"

namespace schema_test {

struct GroupNormCall {
  ZeroTensor dy{{2, 4, 3}, ACL_FLOAT}, x{{2, 4, 3}, ACL_FLOAT}, dx{{2, 4, 3}, ACL_FLOAT};
  ZeroTensor mean{{2, 2}, ACL_FLOAT}, rstd{{2, 2}, ACL_FLOAT}, gamma{{4}, ACL_FLOAT};
  ZeroTensor dgamma{{4}, ACL_FLOAT}, dbeta{{4}, ACL_FLOAT};
  bool mask[3] = {true, true, true};
  aclBoolArray* maskArr = aclCreateBoolArray(mask, 3);
  uint64_t wsBytes = 0;
  void* ws = nullptr;
  ~GroupNormCall() {
    if (ws != nullptr) aclrtFree(ws);
    aclDestroyBoolArray(maskArr);
  }
  // The first phase as it is called, whatever it returns.
  aclnnStatus GetWorkspaceSize(aclOpExecutor** exec) {
    return aclnnGroupNormBackwardGetWorkspaceSize(dy.tensor, x.tensor, mean.tensor, rstd.tensor, gamma.tensor, 2, 4, 3,
                                                  2, maskArr, dx.tensor, dgamma.tensor, dbeta.tensor, &wsBytes, exec);
  }
  // The first phase, which must succeed, and the workspace it asks for.
  aclOpExecutor* Prepare() {
    aclOpExecutor* exec = nullptr;
    EXPECT_EQ(GetWorkspaceSize(&exec), ACL_SUCCESS) << aclGetRecentErrMsg();
    if (wsBytes > 0 && ws == nullptr) aclrtMalloc(&ws, wsBytes, ACL_MEM_MALLOC_HUGE_FIRST);
    return exec;
  }
};

}  // namespace schema_test
