// Pipe-hazard tracker (docs/hardware-rules.md §7). The simulator runs every instruction synchronously
// in program order, so a missing SetFlag/WaitFlag between pipes cannot corrupt data here; this
// tracker detects it instead. Per core it keeps a vector clock per pipe {V, MTE2, MTE3}, the
// last writer and readers of every 32-byte UB block, and the GM ranges the core's MTE3 wrote,
// and fails the kernel on an access that no happens-before edge orders after a conflicting one.
// PIPE_S accesses (GetValue/SetValue) are synchronised by the compiler's auto-sync and are not
// tracked; V->V needs nothing on A2/A3 (auto-sync).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ascendc/core.h"

namespace sim {

// Whether launches track hazards. kEnvironment (the initial mode) reads NORMGRAD_SIM_HAZARDS
// (0/1) at each launch and falls back to the built-in default.
enum class HazardMode { kEnvironment, kOff, kOn };
void SetHazardTracking(HazardMode mode);
// The setting the next launch will use.
bool HazardTrackingEnabled();

namespace hazard {

// The tracked pipes, indices into the clocks.
enum Pipe : int { kV = 0, kMte2, kMte3, kPipes };

class Tracker {
 public:
  explicit Tracker(uint32_t ubBytes);
  uint32_t UbBytes() const { return blockCount_ * 32; }
  // Back to the kernel-start state (every pipe idle, nothing accessed).
  void Reset();

  void UbRead(int pipe, const char* api, uint32_t addr, uint64_t bytes);
  void UbWrite(int pipe, const char* api, uint32_t addr, uint64_t bytes);
  // GM accesses are `rows` runs of rowBytes, pitch bytes apart (pitch >= rowBytes).
  void GmRead(const char* api, const void* gm, uint32_t rows, uint64_t rowBytes, uint64_t pitch);
  // ub (may be null) holds the bytes being stored, row i at ub + i * ubPitch.
  void GmWrite(const char* api, const void* gm, uint32_t rows, uint64_t rowBytes, uint64_t pitch, const uint8_t* ub,
               uint64_t ubPitch, bool atomic);
  // A LocalTensor GetValue/SetValue/operator(): the compiler's auto-sync makes the scalar pipe
  // wait for the pipes that last wrote (and, for a write, read) the block, and the scalar unit
  // issues every later instruction, so every pipe learns their stamps.
  void ScalarUb(uint32_t addr, bool write);
  void SetFlag(int event, int id);
  void WaitFlag(int event, int id);
  void PipeBarrier(int pipe);  // pipe_t value
  void FullBarrier();          // PipeBarrier<PIPE_ALL>, SyncAll

 private:
  struct Access {
    uint32_t stamp = 0;  // 0: none
    uint32_t instr = 0;  // the pipe's instruction number on this core, for messages
    const char* api = nullptr;
  };
  // What is known of one 32-byte UB block. Blocks are kept as runs of equal state (a vector
  // operand or a copy covers whole runs at once), so the cost of an access grows with the runs
  // it meets, not with its bytes.
  struct Block {
    int8_t writer = -1;
    Access write;
    Access read[kPipes];
    bool operator==(const Block& o) const;
  };
  struct Run {
    uint32_t first;  // its first block; it lasts up to the next run's first block
    Block state;
  };
  struct GmWriteRange {
    uintptr_t begin, end;  // bounding box
    uint64_t rows, rowBytes, pitch;
    Access write;
    bool atomic;
    // The first row of this range that intersects [a, b), or rows if none.
    uint64_t FirstRowHitting(uintptr_t a, uintptr_t b) const;
  };

  size_t Find(uint32_t block) const;  // index of the run holding `block`
  // Index of the run starting at block `at` (split off if needed); runs_.size() for at == blockCount_.
  size_t Split(uint32_t at);
  uint32_t RunEnd(size_t i) const { return i + 1 < runs_.size() ? runs_[i + 1].first : blockCount_; }
  // Merges equal neighbouring runs from the run before run `firstRun` (the one Split(first)
  // returned) through the one after block `last`.
  void Coalesce(size_t firstRun, uint32_t last);
  bool Known(int q, int p, uint32_t stamp) const { return stamp == 0 || stamp <= clock_[q][p]; }
  Access Now(int pipe, const char* api) const;
  [[noreturn]] void FailUb(int q, const char* api, const char* kind, uint32_t first, uint32_t last, int p,
                           const Access& a, bool samePipe) const;
  void PruneGm();
  void ScalarWaits(int p, uint32_t stamp);

  uint32_t now_[kPipes];                // current stamp per pipe; bumped when a sync captures it
  uint32_t clock_[kPipes][kPipes] = {};  // clock_[q][p]: last stamp of p known complete to q
  uint32_t captured_[kHardEventCount][kMaxEventIds][kPipes] = {};
  uint32_t blockCount_;
  std::vector<Run> runs_;  // sorted by first, covering [0, blockCount_); few, so a vector beats a tree
  mutable size_t hint_ = 0;  // the run Find returned last
  std::vector<GmWriteRange> gmWrites_;
};

// Launch internals: trackers are pooled across launches like the UB images.
Tracker* TakeTracker(uint32_t ubBytes);
void ReturnTracker(Tracker* tracker);

inline Tracker* Active() { return Core().hazards; }

// Hooks for the simulator's instruction implementations; no-ops when tracking is off.
inline void UbRead(int pipe, const char* api, uint32_t addr, uint64_t bytes) {
  if (Tracker* t = Active()) t->UbRead(pipe, api, addr, bytes);
}
inline void UbWrite(int pipe, const char* api, uint32_t addr, uint64_t bytes) {
  if (Tracker* t = Active()) t->UbWrite(pipe, api, addr, bytes);
}
// A vector operand: names starting with "dst" are written (and may be read), others read.
void VecOperand(Tracker& t, const char* api, const char* name, uint32_t addr, uint64_t bytes);
inline void VecOperand(const char* api, const char* name, uint32_t addr, uint64_t bytes) {
  if (Tracker* t = Active()) VecOperand(*t, api, name, addr, bytes);
}
inline void GmRead(const char* api, const void* gm, uint32_t rows, uint64_t rowBytes, uint64_t pitch) {
  if (Tracker* t = Active()) t->GmRead(api, gm, rows, rowBytes, pitch);
}
inline void GmWrite(const char* api, const void* gm, uint32_t rows, uint64_t rowBytes, uint64_t pitch,
                    const uint8_t* ub, uint64_t ubPitch, bool atomic) {
  if (Tracker* t = Active()) t->GmWrite(api, gm, rows, rowBytes, pitch, ub, ubPitch, atomic);
}

}  // namespace hazard
}  // namespace sim
