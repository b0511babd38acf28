// ACLNN_API, the visibility of the aclnn entry points (aclnnop/aclnn_util.h in CANN), which the
// operator headers include.
#pragma once

#define ACLNN_API __attribute__((visibility("default")))
