// Kernel entry: device keywords, GM_ADDR, tiling-data macros, TILING_KEY_IS, core identity, workspace.
#pragma once
