// The chip facts every tiling function reads. Host only; no CANN types, so the pure tilings and
// their tests use it without the platform API (soc_features_of.h fills it from CANN's).
#pragma once
#include <cstdint>

namespace normgrad {

// The top 8 KiB of the UB (TMP_UB_OFFSET to TOTAL_UB_SIZE) are the toolchain's scratch on Atlas
// A2/A3 and the block-copy architectures: no tiling plans buffers there (docs/hardware-rules.md §1). On
// Ascend 950 (arch 3510) the platform's ub_size, 248 KiB, already ends at TMP_UB_OFFSET, so nothing
// of it is reserved (SocFeaturesOf sets SocFeatures::ubReservedBytes to 0 there).
constexpr uint32_t kRuntimeReservedUbBytes = 8 * 1024;

// The one description of a chip the tilings plan for. The CANN tiling adapters fill it from
// PlatformAscendC (SocFeaturesOf, soc_features_of.h); tests build it with MakeSocFeatures. The
// feature flags are what differs between Atlas A2/A3 and the block-copy architectures, the training
// series (arch 1001) and the inference series (arch 2002), see docs/hardware-rules.md.
struct SocFeatures {
  // Not an aggregate, so a brace list like {48, 196608, true} cannot silently fill the fields in
  // declaration order: build one with MakeSocFeatures and set the flags by name.
  explicit SocFeatures() = default;

  uint32_t vectorCores = 0;        // cores a vector kernel may use
  uint32_t ubBytes = 0;            // Unified Buffer per core, as PlatformAscendC reports it
  uint32_t ubReservedBytes = kRuntimeReservedUbBytes;  // of those, the toolchain's (0 on Ascend 950)
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

// The UB a tiling may plan buffers in: what the platform reports less the toolchain's reserve.
inline uint32_t UsableUbBytes(const SocFeatures& soc) {
  return soc.ubBytes > soc.ubReservedBytes ? soc.ubBytes - soc.ubReservedBytes : 0;
}

}  // namespace normgrad
