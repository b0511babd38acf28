// Compiles every graph prototype into the library (as CANN's op_proto library does), so the
// registry behind normgradGraphOpsJson lists them all.
#include "batch_norm_elemt_grad_proto.h"
#include "group_norm_grad_proto.h"
#include "layer_norm_grad_proto.h"
