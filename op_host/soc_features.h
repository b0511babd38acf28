// The chip facts every tiling function reads. Host only; no CANN types, so the pure tilings and
// their tests use it without the platform API (soc_features_of.h fills it from CANN's).
#pragma once
#include <cstdint>

namespace normgrad {

// The one description of a chip the tilings plan for. The CANN tiling adapters fill it from
// PlatformAscendC (SocFeaturesOf, soc_features_of.h); tests build it with MakeSocFeatures. The
// feature flags are what differs between Atlas A2/A3 and the block-copy architectures, the training
// series (arch 1001) and the inference series (arch 2002), see docs/hardware-rules.md.
struct SocFeatures {
  // Not an aggregate, so a brace list like {48, 196608, true} cannot silently fill the fields in
  // declaration order: build one with MakeSocFeatures and set the flags by name.
  explicit SocFeatures() = default;

  uint32_t vectorCores = 0;        // cores a vector kernel may use
  uint32_t ubBytes = 0;            // Unified Buffer per core
  bool blockCopyArch = false;      // Atlas training (arch 1001) or inference series (2002)
  bool hasDataCopyPad = true;      // A2/A3; the block-copy architectures copy whole 32-byte blocks only
  bool hasHardSyncAll = true;      // A2/A3; the block-copy architectures have only the soft (workspace) SyncAll
  bool hasBrcb = true;             // A2/A3
  bool hasBf16 = true;             // A2/A3: bfloat16 data (converted to fp32 before arithmetic)
  uint64_t sysWorkspaceBytes = 0;  // reserved by the runtime ahead of the kernel's own workspace
};

// A chip of `vectorCores` cores and `ubBytes` of UB, with every A2/A3 feature or (a block-copy
// architecture: training or inference series) none. Brcb exists on the inference series' AI cores
// (docs/soc-profiles.md); the kernels do not use it there, so one path serves both series.
inline SocFeatures MakeSocFeatures(uint32_t vectorCores, uint32_t ubBytes, bool blockCopyArch) {
  SocFeatures f;
  f.vectorCores = vectorCores;
  f.ubBytes = ubBytes;
  f.blockCopyArch = blockCopyArch;
  f.hasDataCopyPad = f.hasHardSyncAll = f.hasBrcb = f.hasBf16 = !blockCopyArch;
  return f;
}

}  // namespace normgrad
