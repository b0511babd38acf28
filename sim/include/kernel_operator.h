// Ascend C on the CPU: the umbrella header kernels include, as on the device.
#pragma once

#ifndef ASCENDC_CPU_DEBUG
#define ASCENDC_CPU_DEBUG 1
#endif

#include "ascendc/constants.h"
#include "ascendc/dtype.h"
#include "ascendc/tensor.h"
#include "ascendc/entry.h"
#include "ascendc/sync.h"
#include "ascendc/cross_core_sync.h"
#include "ascendc/pipe.h"
#include "ascendc/copy.h"
#include "ascendc/mask.h"
#include "ascendc/vector.h"
#include "ascendc/cast.h"
#include "ascendc/reduce.h"
