// Element-wise vector instructions (count and mask/repeat/stride forms), Duplicate, Axpy, Brcb.
#pragma once
