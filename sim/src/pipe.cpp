// TPipe pool and event-id allocation, TQue buffer state machine, TBuf views.
#include "ascendc/pipe.h"

#include "normgrad_isa/model.h"

#include <cstring>
#include <exception>

#include "ascendc/hazard.h"
#include "core_runtime.h"

namespace sim {
namespace {

using AscendC::HardEvent;
using AscendC::TPosition;

const char* PositionName(TPosition p) {
  switch (p) {
    case TPosition::GM: return "GM";
    case TPosition::VECIN: return "VECIN";
    case TPosition::VECOUT: return "VECOUT";
    case TPosition::VECCALC: return "VECCALC";
    default: return "non-vector position";
  }
}

// The events a queue between two positions implies (GetQueEvt): forward on EnQue/DeQue,
// backward on FreeTensor/AllocTensor.
void QueueEvents(TPosition src, TPosition dst, int* fwd, int* back) {
  *fwd = *back = -1;
  auto set = [&](HardEvent f, HardEvent b) {
    *fwd = static_cast<int>(f);
    *back = static_cast<int>(b);
  };
  if (src == TPosition::GM && dst != TPosition::GM) set(HardEvent::MTE2_V, HardEvent::V_MTE2);
  else if (dst == TPosition::GM && src != TPosition::GM) set(HardEvent::V_MTE3, HardEvent::MTE3_V);
  else if (src == TPosition::VECIN && dst == TPosition::VECOUT) set(HardEvent::MTE2_MTE3, HardEvent::MTE3_MTE2);
}

}  // namespace

void FillBytes(uint8_t* p, uint64_t bytes, const uint8_t* value, uint32_t valueBytes) {
  if (valueBytes == 0 || 8 % valueBytes != 0) {  // doubling: memcpy from what is already written
    uint64_t done = bytes < valueBytes ? bytes : valueBytes;
    std::memcpy(p, value, done);
    while (done < bytes) {
      const uint64_t n = done < bytes - done ? done : bytes - done;
      std::memcpy(p + done, p, n);
      done += n;
    }
    return;
  }
  // 1, 2, 4 or 8 bytes: an 8-byte pattern stored word by word (the compiler widens the loop to
  // vector stores), then the tail.
  uint8_t pattern[8];
  for (uint32_t i = 0; i < 8; ++i) pattern[i] = value[i % valueBytes];
  uint64_t word;
  std::memcpy(&word, pattern, 8);
  const uint64_t words = bytes / 8;
  for (uint64_t i = 0; i < words; ++i) std::memcpy(p + 8 * i, &word, 8);
  for (uint64_t i = words * 8; i < bytes; ++i) p[i] = pattern[i % 8];
}

void PoisonUb(uint32_t addr, uint64_t bytes) {
  if (bytes == 0) return;
  uint8_t word[4];
  std::memcpy(word, &kUbPoisonWord, 4);
  // In phase with the word grid whatever the address (callers' addresses are 32-byte aligned but
  // for pad bytes).
  const uint8_t phased[4] = {word[addr & 3], word[(addr + 1) & 3], word[(addr + 2) & 3], word[(addr + 3) & 3]};
  FillRepeating(Core().ub.data() + addr, bytes, phased, 4);
}

void PipeBinding::Check(const char* api) const {
  if (pipe == nullptr) Fail(api, "used before TPipe::InitBuffer");
  CoreContext& c = Core();
  if (c.pipe != pipe || pipe->SimSerial() != serial) {
    Fail(api, "its TPipe was destroyed; InitBuffer it again on the live TPipe");
  }
  if (pipe->SimGeneration() != generation) {
    Fail(api, "its TPipe was Reset(); call InitBuffer again before using it");
  }
}

// ---------------------------------------------------------------- QueueCore

QueueCore::QueueCore(TPosition src, TPosition dst, int32_t depth) : src_(src), dst_(dst), depth_(depth) {
  pos_ = dst == TPosition::GM ? src : dst;
  QueueEvents(src, dst, &fwdEvent_, &backEvent_);
}

QueueCore::~QueueCore() {
  if (!InKernel() || std::uncaught_exceptions() > 0 || binding_.pipe == nullptr) return;
  int held = 0;
  for (uint32_t i = 0; i < num_; ++i) held += state_[i] == BufState::kOccupied || state_[i] == BufState::kEnque;
  if (held > 0) {
    Warn("TQue", "%s queue destroyed with %d of %u buffers allocated or queued (AllocTensor without FreeTensor)",
         PositionName(pos_), held, num_);
  }
}

void QueueCore::SimBind(AscendC::TPipe* pipe, uint32_t addr, uint32_t num, uint32_t bufBytes) {
  binding_ = {pipe, pipe->SimSerial(), pipe->SimGeneration()};
  addr_ = addr;
  num_ = num;
  bufBytes_ = bufBytes;
  cursor_ = 0;
  head_ = count_ = 0;
  for (uint32_t i = 0; i < num_; ++i) {
    state_[i] = BufState::kFree;
    enqueEvt_[i] = freeEvt_[i] = -1;
  }
}

const char* QueueCore::StateName(BufState s) {
  switch (s) {
    case BufState::kFree: return "FREE";
    case BufState::kOccupied: return "OCCUPIED";
    case BufState::kEnque: return "ENQUE";
    case BufState::kDeque: return "DEQUE";
  }
  return "?";
}

bool QueueCore::HasIdleBuffer() const {
  for (uint32_t i = 0; i < num_; ++i) {
    if (state_[i] == BufState::kFree) return true;
  }
  return false;
}

int32_t QueueCore::SimAlloc() {
  const char* api = "TQue::AllocTensor";
  binding_.Check(api);
  uint32_t pick = num_;
  for (uint32_t k = 0; k < num_; ++k) {
    uint32_t i = (cursor_ + k) % num_;
    if (state_[i] == BufState::kFree) {
      pick = i;
      break;
    }
  }
  if (pick == num_) {
    Fail(api, "exceeds buffer number: all %u %s buffers are allocated and not freed (hangs on hardware)",
         num_, PositionName(pos_));
  }
  binding_.pipe->SimTrackOutstanding(api, pos_, +1);
  cursor_ = (pick + 1) % num_;
  if (freeEvt_[pick] >= 0) {
    sync::WaitFlag(api, backEvent_, freeEvt_[pick]);
    binding_.pipe->SimReleaseEvent(api, backEvent_, freeEvt_[pick], true);
    freeEvt_[pick] = -1;
  }
  state_[pick] = BufState::kOccupied;
  PoisonUb(SimBufAddr(static_cast<int32_t>(pick)), bufBytes_);
  return static_cast<int32_t>(pick);
}

void QueueCore::CheckOwner(const char* api, const void* owner, int32_t bufId) const {
  if (owner != static_cast<const QueueCore*>(this) || bufId < 0 || static_cast<uint32_t>(bufId) >= num_) {
    Fail(api, "the tensor was not allocated from this %s queue", PositionName(pos_));
  }
}

void QueueCore::SimEnQue(const void* owner, int32_t bufId) {
  const char* api = "TQue::EnQue";
  binding_.Check(api);
  CheckOwner(api, owner, bufId);
  BufState s = state_[bufId];
  if (s != BufState::kOccupied && s != BufState::kDeque) {
    Fail(api, "buffer %d is %s; EnQue takes a tensor from AllocTensor or DeQue", bufId, StateName(s));
  }
  if (count_ >= DepthLimit()) {
    Fail(api, "the %s queue already holds %d tensors, its depth is %d; DeQue first", PositionName(pos_), count_,
         DepthLimit());
  }
  if (fwdEvent_ >= 0) {
    int id = binding_.pipe->SimAllocEvent(api, fwdEvent_, true);
    sync::SetFlag(api, fwdEvent_, id);
    enqueEvt_[bufId] = static_cast<int8_t>(id);
  }
  state_[bufId] = BufState::kEnque;
  fifo_[(head_ + count_) % kMaxBufs] = bufId;
  ++count_;
}

int32_t QueueCore::SimDeQue() {
  const char* api = "TQue::DeQue";
  binding_.Check(api);
  if (count_ == 0) Fail(api, "the %s queue is empty (DeQue without a matching EnQue)", PositionName(pos_));
  int32_t bufId = fifo_[head_];
  head_ = (head_ + 1) % kMaxBufs;
  --count_;
  if (enqueEvt_[bufId] >= 0) {
    sync::WaitFlag(api, fwdEvent_, enqueEvt_[bufId]);
    binding_.pipe->SimReleaseEvent(api, fwdEvent_, enqueEvt_[bufId], true);
    enqueEvt_[bufId] = -1;
  }
  state_[bufId] = BufState::kDeque;
  return bufId;
}

void QueueCore::SimFree(const void* owner, int32_t bufId) {
  const char* api = "TQue::FreeTensor";
  binding_.Check(api);
  CheckOwner(api, owner, bufId);
  BufState s = state_[bufId];
  if (s == BufState::kFree) Fail(api, "double free: buffer %d of the %s queue is already free", bufId, PositionName(pos_));
  if (s == BufState::kEnque) Fail(api, "buffer %d is still in the %s queue; DeQue it first", bufId, PositionName(pos_));
  if (backEvent_ >= 0) {
    int id = binding_.pipe->SimAllocEvent(api, backEvent_, true);
    sync::SetFlag(api, backEvent_, id);
    freeEvt_[bufId] = static_cast<int8_t>(id);
  }
  state_[bufId] = BufState::kFree;
  binding_.pipe->SimTrackOutstanding(api, pos_, -1);
}

void QueueCore::FreeAllEvent() {
  const char* api = "TQue::FreeAllEvent";
  binding_.Check(api);
  for (uint32_t i = 0; i < num_; ++i) {
    if (freeEvt_[i] >= 0) {
      sync::WaitFlag(api, backEvent_, freeEvt_[i]);
      binding_.pipe->SimReleaseEvent(api, backEvent_, freeEvt_[i], true);
      freeEvt_[i] = -1;
    }
  }
}

// ---------------------------------------------------------------- BufCore

void BufCore::SimBind(AscendC::TPipe* pipe, uint32_t addr, uint32_t bytes) {
  binding_ = {pipe, pipe->SimSerial(), pipe->SimGeneration()};
  addr_ = addr;
  bytes_ = bytes;
}

uint32_t BufCore::SimView(const char* api, uint64_t bytes, uint32_t offsetBytes) const {
  binding_.Check(api);
  if (offsetBytes % 32 != 0) Fail(api, "bufOffset %u bytes is not a multiple of 32", offsetBytes);
  if (bytes + offsetBytes > bytes_) {
    Fail(api, "%llu bytes at offset %u exceed the buffer of %u bytes", static_cast<unsigned long long>(bytes),
         offsetBytes, bytes_);
  }
  return addr_ + offsetBytes;
}

}  // namespace sim

// ---------------------------------------------------------------- TPipe

namespace AscendC {

TPipe::TPipe() {
  sim::CoreContext& c = sim::Core();
  if (c.pipe != nullptr) {
    sim::Fail("TPipe", "a second TPipe was constructed while another is live (one TPipe per kernel; "
              "call Destroy() on the first)");
  }
  c.pipe = this;
  serial_ = ++sim::Runtime().pipeSerial;
  live_ = true;
}

TPipe::~TPipe() {
  if (live_ && sim::InKernel() && sim::Core().pipe == this) Destroy();
}

void TPipe::ReleaseAll() {
  // Waits the FreeTensor events still held, as the device's TPipe teardown does; events of
  // tensors still enqueued stay set and show up in the end-of-kernel flag check.
  sim::CoreContext& c = sim::Core();
  for (int e = 0; e < sim::kHardEventCount; ++e) {
    if (e == static_cast<int>(HardEvent::MTE2_V) || e == static_cast<int>(HardEvent::V_MTE3) ||
        e == static_cast<int>(HardEvent::MTE2_MTE3)) {
      continue;
    }
    for (int id = 0; id < sim::kMaxEventIds; ++id) {
      int src = 0, dst = 0;
      if ((queueEvents_[e] & (1u << id)) && sim::OutstandingFlags(e, id) != 0 && sim::EventPipes(e, &src, &dst)) {
        normgrad::isa::WaitFlag(src, dst, id);
        if (c.hazards != nullptr) c.hazards->WaitFlag(e, id);
      }
    }
  }
  std::memset(userEvents_, 0, sizeof(userEvents_));
  std::memset(queueEvents_, 0, sizeof(queueEvents_));
  std::memset(queueBufs_, 0, sizeof(queueBufs_));
  std::memset(outstanding_, 0, sizeof(outstanding_));
  cursor_ = 0;
  bufferCount_ = 0;
  ++generation_;
}

void TPipe::Reset() {
  if (!live_) sim::Fail("TPipe::Reset", "the TPipe was destroyed");
  ReleaseAll();
}

void TPipe::Destroy() {
  if (!live_) return;
  ReleaseAll();
  live_ = false;
  sim::CoreContext& c = sim::Core();
  if (c.pipe == this) c.pipe = nullptr;
  // CANN's TPipe::Destroy ends with pipe_barrier(PIPE_ALL) (asc-devkit kernel_tpipe_impl.h): a full drain.
  ++c.counters.syncs;
  ++c.counters.fullBarriers;
  sim::NoteFullDrain(c);
}

uint32_t TPipe::SimAllocate(const char* api, uint32_t num, uint32_t len, TPosition pos, bool isQueue) {
  if (!live_) sim::Fail(api, "the TPipe was destroyed");
  sim::CoreContext& c = sim::Core();
  if (num < 1 || num > QBUF_MAX_LEN) sim::Fail(api, "num %u is outside [1, %u]", num, QBUF_MAX_LEN);
  if (len == 0) sim::Fail(api, "len is 0 bytes");
  if (bufferCount_ + num > QBUF_MAX_LEN) {
    sim::Fail(api, "%u more buffers exceed the limit of %u per TPipe (%u already)", num, QBUF_MAX_LEN,
              bufferCount_);
  }
  uint64_t bytes = static_cast<uint64_t>(num) * SimRoundUp(len);
  if (cursor_ + bytes > c.soc->ubBytes) {
    sim::Fail(api, "%u x %u bytes (rounded up to %u) at UB offset %u exceed the UB of %u bytes on %s", num, len,
              SimRoundUp(len), cursor_, c.soc->ubBytes, c.soc->name);
  }
  uint32_t addr = cursor_;
  cursor_ += static_cast<uint32_t>(bytes);
  if (cursor_ > c.counters.ubPeakBytes) c.counters.ubPeakBytes = cursor_;
  bufferCount_ += num;
  if (isQueue) {
    int p = static_cast<int>(pos);
    int limit = c.soc->eventIdsPerEvent;
    if (queueBufs_[p] <= limit && queueBufs_[p] + num > static_cast<uint32_t>(limit)) {
      sim::Warn(api, "%u TQue buffers on %s exceed %d: their implicit events can run out of ids",
                queueBufs_[p] + num, sim::PositionName(pos), limit);
    }
    queueBufs_[p] = static_cast<uint8_t>(queueBufs_[p] + num);
  }
  sim::PoisonUb(addr, static_cast<uint32_t>(bytes));
  return addr;
}

TEventID TPipe::SimAllocEvent(const char* api, int event, bool forQueue) {
  sim::CoreContext& c = sim::Core();
  int ids = c.soc->eventIdsPerEvent;
  uint8_t used = userEvents_[event] | queueEvents_[event];
  for (int id = 0; id < ids; ++id) {
    if (!(used & (1u << id))) {
      (forQueue ? queueEvents_ : userEvents_)[event] |= static_cast<uint8_t>(1u << id);
      return static_cast<TEventID>(id);
    }
  }
  sim::Fail(api, "no free event id for HardEvent::%s: all %d are held (queues hold %d)", sim::HardEventName(event),
            ids, __builtin_popcount(queueEvents_[event]));
}

void TPipe::SimReleaseEvent(const char* api, int event, int id, bool forQueue) {
  sim::CoreContext& c = sim::Core();
  uint8_t* mask = forQueue ? queueEvents_ : userEvents_;
  if (event < 0 || event >= sim::kHardEventCount || id < 0 || id >= c.soc->eventIdsPerEvent ||
      !(mask[event] & (1u << id))) {
    sim::Fail(api, "HardEvent::%s id %d was not allocated with AllocEventID",
              event >= 0 && event < sim::kHardEventCount ? sim::HardEventName(event) : "?", id);
  }
  mask[event] = static_cast<uint8_t>(mask[event] & ~(1u << id));
}

TEventID TPipe::FetchEventID(HardEvent evt) {
  int event = static_cast<int>(evt);
  sim::CoreContext& c = sim::Core();
  uint8_t used = userEvents_[event] | queueEvents_[event];
  for (int id = 0; id < c.soc->eventIdsPerEvent; ++id) {
    if (!(used & (1u << id))) return static_cast<TEventID>(id);
  }
  sim::Fail("TPipe::FetchEventID", "no free event id for HardEvent::%s: all %d are allocated",
            sim::HardEventName(event), c.soc->eventIdsPerEvent);
}

void TPipe::SimTrackOutstanding(const char* api, TPosition pos, int delta) {
  int p = static_cast<int>(pos);
  int limit = sim::Core().soc->eventIdsPerEvent;
  if (delta > 0 && outstanding_[p] >= limit) {
    sim::Fail(api, "more than %d TQue tensors outstanding on %s (allocated, not freed): events run out", limit,
              sim::PositionName(pos));
  }
  outstanding_[p] = static_cast<uint8_t>(outstanding_[p] + delta);
}

}  // namespace AscendC

AscendC::TPipe* GetTPipePtr() {
  void* p = sim::Core().pipe;
  if (p == nullptr) sim::Fail("GetTPipePtr", "no TPipe has been constructed in this kernel");
  return static_cast<AscendC::TPipe*>(p);
}
