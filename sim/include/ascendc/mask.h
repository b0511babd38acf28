// The vector mask register: SetVectorMask, SetMaskCount/SetMaskNorm, ResetMask.
#pragma once
