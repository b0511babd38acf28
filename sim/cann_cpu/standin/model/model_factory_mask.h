// model/model_factory_mask.h stand-in: how CANN's api_check reads the vector mask register back from the
// instruction model (closed in CANN). Here the model is normgrad's (sim/isa); the definitions are in
// sim/cann_cpu/src/closed_runtime.cpp. Mode: 0 normal (bit mask), 1 counter (low = element count).
#ifndef NORMGRAD_CANN_CPU_MODEL_FACTORY_MASK_H
#define NORMGRAD_CANN_CPU_MODEL_FACTORY_MASK_H
#include <cstdint>
uint64_t ModelFactoryGetMaskHigh();
uint64_t ModelFactoryGetMaskLow();
uint64_t ModelFactoryGetMaskMode();
#endif
