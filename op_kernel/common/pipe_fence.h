// Orders two pipes of one core around TBuf tensors, which (unlike TQue) carry no implicit events.
#pragma once
#include "kernel_operator.h"

namespace normgrad {

// Every instruction of the source pipe of E issued so far completes before the destination pipe
// of E issues its next one (e.g. MTE2_V after a DataCopyPad into a TBuf that Vector reads next).
template <AscendC::HardEvent E>
__aicore__ inline void PipeFence() {
  event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(E));
  AscendC::SetFlag<E>(id);
  AscendC::WaitFlag<E>(id);
}

}  // namespace normgrad
