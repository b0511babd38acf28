// The cost model: turns per-core work counters into modeled device time for a SoC profile.
#pragma once
