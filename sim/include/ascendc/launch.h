// Multi-core launch: runs a kernel body on blockDim simulated cores and reports errors and counters.
#pragma once
