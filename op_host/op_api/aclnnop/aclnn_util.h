// ACLNN_API, the visibility of the aclnn entry points; beside the operator headers that include it
// as "aclnn_util.h", as in CANN's aclnnop directory.
#pragma once

#define ACLNN_API __attribute__((visibility("default")))
