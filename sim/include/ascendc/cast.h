// Cast between storage types with the documented round modes and the legal cast matrix.
#pragma once
