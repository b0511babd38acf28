// CANN declares GetTPipePtr() in the global namespace (kernel_common.h), not in AscendC.
// expect-error: GetTPipePtr.* is not a member of .*AscendC
#include "kernel_operator.h"

void UsePipe() { AscendC::GetTPipePtr(); }
