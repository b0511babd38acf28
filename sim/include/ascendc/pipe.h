// TPipe, TQue and TBuf: Unified Buffer allocation, queue state machines and their implicit events.
#pragma once
#include <cstdint>

#include "ascendc/constants.h"
#include "ascendc/core.h"
#include "ascendc/sync.h"
#include "ascendc/tensor.h"

namespace AscendC {
class TPipe;
template <TPosition pos = TPosition::LCM>
class TBuf;
}  // namespace AscendC

namespace sim {

// Fresh UB (launch start, InitBuffer, AllocTensor, "random" DataCopyPad padding) holds this word:
// a signalling NaN as float and as the two bfloat16 halves, a NaN as half, so reads of
// uninitialised UB turn into NaN results.
constexpr uint32_t kUbPoisonWord = 0x7FA07FA0u;
void PoisonUb(uint32_t addr, uint64_t bytes);

// Identity of a TPipe allocation: queues and buffers go stale when their pipe is reset/destroyed.
struct PipeBinding {
  AscendC::TPipe* pipe = nullptr;
  uint32_t serial = 0;
  uint32_t generation = 0;
  void Check(const char* api) const;  // fails if never initialised or the pipe was reset
};

// The non-template part of TQueBind: buffer states, the FIFO, and the implicit events
// (EnQue sets / DeQue waits the forward event; FreeTensor sets / the next AllocTensor of that
// buffer waits the backward event), with ids taken from the TPipe as CANN does.
class QueueCore {
 public:
  QueueCore(AscendC::TPosition src, AscendC::TPosition dst, int32_t depth);
  ~QueueCore();
  QueueCore(const QueueCore&) = delete;
  QueueCore& operator=(const QueueCore&) = delete;

  void SimBind(AscendC::TPipe* pipe, uint32_t addr, uint32_t num, uint32_t bufBytes);
  int32_t SimAlloc();                                  // buffer index, poisoned
  void SimEnQue(const void* owner, int32_t bufId);
  int32_t SimDeQue();
  void SimFree(const void* owner, int32_t bufId);
  uint32_t SimBufAddr(int32_t bufId) const { return addr_ + static_cast<uint32_t>(bufId) * bufBytes_; }
  uint32_t SimBufBytes() const { return bufBytes_; }
  AscendC::TPosition SimPosition() const { return pos_; }

  int32_t GetTensorCountInQue() const { return count_; }
  bool HasTensorInQue() const { return count_ > 0; }
  bool HasIdleBuffer() const;
  bool VacantInQue() const { return count_ < DepthLimit(); }
  void FreeAllEvent();

 private:
  enum class BufState : uint8_t { kFree, kOccupied, kEnque, kDeque };
  static constexpr int kMaxBufs = 64;
  int32_t DepthLimit() const { return depth_ > 0 ? depth_ : static_cast<int32_t>(num_); }
  void CheckOwner(const char* api, const void* owner, int32_t bufId) const;
  static const char* StateName(BufState s);

  AscendC::TPosition src_, dst_, pos_;
  int32_t depth_;
  int fwdEvent_ = -1, backEvent_ = -1;  // HardEvent codes, -1 = none
  PipeBinding binding_;
  uint32_t addr_ = 0, num_ = 0, bufBytes_ = 0, cursor_ = 0;
  BufState state_[kMaxBufs] = {};
  int8_t enqueEvt_[kMaxBufs] = {};
  int8_t freeEvt_[kMaxBufs] = {};
  int32_t fifo_[kMaxBufs] = {};
  int32_t head_ = 0, count_ = 0;
};

// The non-template part of TBuf.
class BufCore {
 public:
  void SimBind(AscendC::TPipe* pipe, uint32_t addr, uint32_t bytes);
  // Checks a Get/GetWithOffset request; returns the UB address of the view.
  uint32_t SimView(const char* api, uint64_t bytes, uint32_t offsetBytes) const;
  uint32_t SimBytes() const { return bytes_; }

 private:
  PipeBinding binding_;
  uint32_t addr_ = 0, bytes_ = 0;
};

}  // namespace sim

namespace AscendC {

// One per kernel. Allocates UB for queues and buffers from a pool cursor (lengths rounded up to
// 32 bytes, at most 64 buffers, within the SoC's UB) and hands out event ids.
class TPipe {
 public:
  TPipe();
  ~TPipe();
  TPipe(const TPipe&) = delete;
  TPipe& operator=(const TPipe&) = delete;

  template <class T>
  bool InitBuffer(T& que, uint8_t num, uint32_t len) {
    uint32_t bufBytes = SimRoundUp(len);
    uint32_t addr = SimAllocate("TPipe::InitBuffer", num, len, que.SimPosition(), true);
    que.SimBind(this, addr, num, bufBytes);
    return true;
  }
  template <TPosition bufPos>
  bool InitBuffer(TBuf<bufPos>& buf, uint32_t len);

  void Reset();
  void Destroy();

  template <HardEvent evt>
  TEventID AllocEventID() {
    return SimAllocEvent("TPipe::AllocEventID", static_cast<int>(evt), false);
  }
  template <HardEvent evt>
  void ReleaseEventID(TEventID id) {
    SimReleaseEvent("TPipe::ReleaseEventID", static_cast<int>(evt), id, false);
  }
  template <HardEvent evt>
  TEventID FetchEventID() {
    return FetchEventID(evt);
  }
  TEventID FetchEventID(HardEvent evt);

  // ---- simulator internals ----
  static uint32_t SimRoundUp(uint32_t len) { return (len + 31u) / 32u * 32u; }
  uint32_t SimAllocate(const char* api, uint32_t num, uint32_t len, TPosition pos, bool isQueue);
  TEventID SimAllocEvent(const char* api, int event, bool forQueue);
  void SimReleaseEvent(const char* api, int event, int id, bool forQueue);
  void SimTrackOutstanding(const char* api, TPosition pos, int delta);
  uint32_t SimCursor() const { return cursor_; }
  uint32_t SimSerial() const { return serial_; }
  uint32_t SimGeneration() const { return generation_; }

 private:
  void ReleaseAll();
  uint32_t serial_ = 0;
  uint32_t generation_ = 0;
  uint32_t cursor_ = 0;        // next free UB byte of the pool
  uint32_t bufferCount_ = 0;   // buffers created by InitBuffer (<= 64)
  uint8_t userEvents_[sim::kHardEventCount] = {};   // id bitmask from AllocEventID
  uint8_t queueEvents_[sim::kHardEventCount] = {};  // id bitmask held by queue buffers
  uint8_t queueBufs_[static_cast<int>(TPosition::MAX)] = {};    // TQue buffers per position
  uint8_t outstanding_[static_cast<int>(TPosition::MAX)] = {};  // allocated, not freed
  bool live_ = false;
};

namespace detail {
constexpr TPosition QueSrc(TPosition pos) { return pos == TPosition::VECIN ? TPosition::GM : pos; }
constexpr TPosition QueDst(TPosition pos) { return pos == TPosition::VECOUT ? TPosition::GM : pos; }
}  // namespace detail

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind : public sim::QueueCore {
 public:
  TQueBind() : sim::QueueCore(src, dst, depth) {}

  template <typename T>
  LocalTensor<T> AllocTensor() {
    return View<T>(SimAlloc());
  }
  template <typename T>
  void AllocTensor(LocalTensor<T>& tensor) {
    tensor = AllocTensor<T>();
  }
  template <typename T>
  bool EnQue(const LocalTensor<T>& tensor) {
    SimEnQue(tensor.SimOwner(), tensor.SimBufId());
    return true;
  }
  template <TPosition srcUserPos, TPosition dstUserPos, typename T>
  bool EnQue(const LocalTensor<T>& tensor) {
    return EnQue(tensor);
  }
  template <typename T>
  LocalTensor<T> DeQue() {
    return View<T>(SimDeQue());
  }
  template <typename T>
  void DeQue(LocalTensor<T>& tensor) {
    tensor = DeQue<T>();
  }
  template <TPosition srcUserPos, TPosition dstUserPos, typename T>
  LocalTensor<T> DeQue() {
    return DeQue<T>();
  }
  template <typename T>
  void FreeTensor(LocalTensor<T>& tensor) {
    SimFree(tensor.SimOwner(), tensor.SimBufId());
  }

 private:
  template <typename T>
  LocalTensor<T> View(int32_t bufId) {
    LocalTensor<T> t;
    t.SimInit(SimBufAddr(bufId), SimBufBytes(), SimPosition(), bufId, static_cast<sim::QueueCore*>(this));
    return t;
  }
};

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<detail::QueSrc(pos), detail::QueDst(pos), depth, mask> {};

template <TPosition pos>
class TBuf : public sim::BufCore {
 public:
  template <typename T>
  LocalTensor<T> Get() {
    return Make<T>(SimView("TBuf::Get", SimBytes(), 0), SimBytes());
  }
  template <typename T>
  LocalTensor<T> Get(uint32_t len) {
    uint64_t bytes = static_cast<uint64_t>(len) * sizeof(T);
    return Make<T>(SimView("TBuf::Get", bytes, 0), static_cast<uint32_t>(bytes));
  }
  template <typename T>
  LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset) {
    uint64_t bytes = static_cast<uint64_t>(size) * sizeof(T);
    return Make<T>(SimView("TBuf::GetWithOffset", bytes, bufOffset), static_cast<uint32_t>(bytes));
  }
  TPosition SimPosition() const { return pos; }

 private:
  template <typename T>
  LocalTensor<T> Make(uint32_t addr, uint32_t bytes) {
    LocalTensor<T> t;
    t.SimInit(addr, bytes, pos, -1, static_cast<sim::BufCore*>(this));
    return t;
  }
};

template <TPosition bufPos>
bool TPipe::InitBuffer(TBuf<bufPos>& buf, uint32_t len) {
  uint32_t addr = SimAllocate("TPipe::InitBuffer", 1, len, bufPos, false);
  buf.SimBind(this, addr, SimRoundUp(len));
  return true;
}

}  // namespace AscendC

// The running kernel's TPipe. In the global namespace, as in CANN (kernel_common.h).
AscendC::TPipe* GetTPipePtr();
