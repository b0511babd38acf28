// Cross-core GM race detection. Every core records the GM bytes it reads and writes (DMA copies,
// atomic adds, fills, scalar GetValue/SetValue) with the vector clock it held at the time; the
// inter-core syncs (SyncAll, CrossCoreSetFlag/WaitFlag, IBSet/IBWait, NotifyNextBlock/
// WaitPreBlock) order the clocks. After the launch, two accesses of different cores to
// overlapping bytes, at least one a write, that no sync orders, are a race, unless both are
// atomic adds (they commute). The check runs after the cores joined, over the recorded accesses
// sorted by address, so its verdict and message do not depend on how the host scheduled threads.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ascendc/core.h"

namespace sim {

// Whether launches detect races. kEnvironment (the initial mode) reads NORMGRAD_SIM_RACES (0/1)
// at each launch; on by default.
enum class RaceMode { kEnvironment, kOff, kOn };
void SetRaceDetection(RaceMode mode);
bool RaceDetectionEnabled();

namespace race {

enum Kind : uint8_t { kRead = 0, kWrite, kAtomic };

// A growable byte buffer in its own anonymous mapping: growing remaps the pages instead of copying
// them (std::vector's reallocation held the old and new buffers at once, and the freed ones stayed
// in malloc's per-thread arenas: about twice the bytes stored, for every core of a launch), and
// only the bytes written are resident.
class ShadowBytes {
 public:
  ShadowBytes() = default;
  ShadowBytes(ShadowBytes&& o) noexcept;
  ShadowBytes& operator=(ShadowBytes&& o) noexcept;
  ShadowBytes(const ShadowBytes&) = delete;
  ShadowBytes& operator=(const ShadowBytes&) = delete;
  ~ShadowBytes();
  // Appends n bytes (uninitialised when src is null) and returns where they start.
  uint8_t* Append(const uint8_t* src, uint64_t n);
  void Clear() { size_ = 0; }
  uint64_t size() const { return size_; }
  uint64_t capacity() const { return capacity_; }
  uint8_t* data() const { return data_; }

 private:
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  uint64_t capacity_ = 0;  // mapped bytes
};

// The GM accesses of one core during one launch.
class Recorder {
 public:
  struct Access {
    uintptr_t begin;     // first byte of the first row
    uint64_t rows;       // rows of rowBytes, pitch bytes apart (rows == 1: one contiguous run)
    uint64_t rowBytes;
    uint64_t pitch;
    uint32_t segment;    // index into segments(): the clock the core held
    Kind kind;
    const char* api;
    uint64_t shadow;     // writes and atomic adds: offset of their bytes in the shadow, else kNoShadow
    uintptr_t End() const { return begin + (rows - 1) * pitch + rowBytes; }
  };

  // Starts recording for core `core` of a launch with the given initial clock.
  void Reset(int core, const std::vector<uint32_t>& clock);
  static constexpr uint64_t kNoShadow = ~0ull;
  // `data` (may be null) holds the bytes a write stores or an atomic adds, row i at data + i *
  // dataPitch: two cores storing the same bytes leave the same memory in either order, and adding
  // zeros leaves memory unchanged, so neither is a race.
  void Add(Kind kind, const char* api, const void* gm, uint64_t rows, uint64_t rowBytes, uint64_t pitch,
           const uint8_t* data = nullptr, uint64_t dataPitch = 0);
  // The core's clock changed (a sync): later accesses carry the new one.
  void NewSegment(const std::vector<uint32_t>& clock);

  int core() const { return core_; }
  const std::vector<Access>& accesses() const { return accesses_; }
  const std::vector<std::vector<uint32_t>>& segments() const { return segments_; }
  // The stored bytes of access x at GM address a (inside one of its rows).
  uint64_t KeptBytes() const { return shadow_.capacity() + accesses_.capacity() * sizeof(Access); }
  const uint8_t* ShadowAt(const Access& x, uintptr_t a) const {
    uint64_t row = (a - x.begin) / x.pitch;
    return shadow_.data() + x.shadow + row * x.rowBytes + (a - x.begin - row * x.pitch);
  }

 private:
  int core_ = 0;
  std::vector<Access> accesses_;
  std::vector<std::vector<uint32_t>> segments_;
  ShadowBytes shadow_;
};

// Recorders reused across launches: their buffers keep their capacity, so a launch that stores
// hundreds of MB does not page-fault fresh shadow memory in every call. Take returns a reset-able
// recorder; Return keeps it while the pool's buffers stay under a bound.
Recorder TakeRecorder();
void ReturnRecorder(Recorder&& r);

// The first race among the cores' accesses ("core 0: DataCopy: cross-core GM race ..."), or "".
std::string FindRace(const std::vector<const Recorder*>& cores);

// Hooks for the simulator's instruction implementations; no-ops when detection is off.
inline void GmAccess(Kind kind, const char* api, const void* gm, uint64_t rows, uint64_t rowBytes, uint64_t pitch,
                     const uint8_t* data = nullptr, uint64_t dataPitch = 0) {
  if (Recorder* r = Core().races) r->Add(kind, api, gm, rows, rowBytes, pitch, data, dataPitch);
}

}  // namespace race
}  // namespace sim
