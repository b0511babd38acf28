// GroupNormGrad's Unified Buffer tile (GroupNormGradTileSums, group_norm_grad_tile_sums.h: the
// loads and the sums) with its dx. Every mode (whole groups, split groups, channel slabs) is built
// from its three steps: CopyIn, Sums, Dx.
//
// For group q = (n, g) with M = channelsPerGroup * hw elements, per channel c of the group:
//   db[c] = sum_hw dy          ds[c] = sum_hw dy * x
//   sumDb = sum_c gamma[c] * db[c]      sumDs = sum_c gamma[c] * ds[c]
//   c2 = (sumDb * mean - sumDs) * rstd^3 / M      c3 = -c2 * mean - sumDb * rstd / M
//   dx = gamma[c] * rstd * dy + c2 * x + c3
// db and ds are kept per piece; they also feed dgamma/dbeta (group_norm_grad_params.h).
#pragma once
#include "common/row_repeat.h"
#include "group_norm_grad_tile_sums.h"

namespace normgrad {

// Copy: GngPadCopy<T> or GngBlockCopy<T> (group_norm_grad_copy_path.h).
template <typename T, typename Copy>
class GroupNormGradTile : public GroupNormGradTileSums<T, Copy> {
  using Base = GroupNormGradTileSums<T, Copy>;
  using Base::t_, Base::gm_, Base::outDx_, Base::work_, Base::db_, Base::ds_, Base::wsDb_, Base::wsDs_, Base::copy_;
  using Base::scalars_, Base::piece0_, Base::slots_, Base::runSlots_, Base::runs_, Base::runStride_;
  using Base::gatheredSums_, Base::gammaBlocks_, Base::hasGammaBlocks_, Base::headGroup_, Base::gathered_;
  using Base::lead_, Base::wsBatch_, Base::sumsValid_, Base::dyCast_, Base::DyFloat, Base::XFloat, Base::Gamma;

 public:
  using Base::CopyIn, Base::Hold, Base::Release, Base::Sums, Base::PieceOf, Base::PaddedLen, Base::PieceLen;
  using Base::PieceGmOffset, Base::RowsInRun;

  // Pieces [p, end), `cap` slots a tile, each loaded, then its sums published to the workspace
  // (sums) or its dx written with the sums read back from there, and released.
  __aicore__ inline void StreamPieces(uint64_t p, uint64_t end, uint64_t cap, bool sums) {
    for (; p < end; p += cap) {
      const uint32_t slots = static_cast<uint32_t>(end - p < cap ? end - p : cap);
      CopyIn(p, slots);
      Hold(p, slots);
      if (sums) {
        Sums(true);
      } else {
        Dx();
      }
      Release();
    }
  }

  // dx of every held piece. Groups not wholly inside the tile read their sums from the
  // workspace, which every core has finished writing (the caller synchronised), or from the
  // gathered sums.
  __aicore__ inline void Dx() {
    const uint32_t rs = static_cast<uint32_t>(t_->rowStride);
    const uint32_t chunk = static_cast<uint32_t>(t_->chunkElems);
    curGroup_ = ~0ull;
    if (t_->hwParts == 1 && rs <= chunk) {
      const uint32_t rowsPerChunk = chunk / rs;
      const uint32_t chunks = (slots_ + rowsPerChunk - 1) / rowsPerChunk;
      // Start with the chunk whose fp32 cast the sums left behind (their last one), when the
      // copy path writes dx rows in any order (DataCopyPad; block copies pack them in order).
      uint32_t first = 0;
      if (!t_->blockCopyOnly && dyCast_.valid && dyCast_.offset % (rowsPerChunk * rs) == 0) {
        first = dyCast_.offset / (rowsPerChunk * rs);
      }
      for (uint32_t k = 0; k < chunks; ++k) {
        const uint32_t s = (first + k) % chunks * rowsPerChunk;
        uint32_t rows = slots_ - s < rowsPerChunk ? slots_ - s : rowsPerChunk;
        DxRows(s, rows);
      }
    } else {
      for (uint32_t s = 0; s < slots_; ++s) {
        const uint32_t len = PaddedLen(PieceOf(s));
        for (uint32_t off = 0; off < len; off += chunk) DxSegment(s, off, len - off < chunk ? len - off : chunk);
      }
    }
  }

  // Once after the last Dx of the launch: what the copy path still holds (block copies, rows
  // shorter than a block: the packed dx's last partial block).
  __aicore__ inline void FinishDx() {
    copy_.Finish(gm_, *t_);
  }

 private:
  // Loads c2, c3, rstd of group q (cached across consecutive chunks of the same group).
  __aicore__ inline void Coefficients(uint64_t q) {
    if (q == curGroup_) return;
    curGroup_ = q;
    float sumDb = 0.0f;
    float sumDs = 0.0f;
    GroupSums(q, sumDb, sumDs);
    const float mean = scalars_.Mean(gm_, q);
    rstd_ = scalars_.Rstd(gm_, q);
    const float invM = 1.0f / static_cast<float>(t_->channelsPerGroup * t_->hw);
    c2_ = (sumDb * mean - sumDs) * rstd_ * rstd_ * rstd_ * invM;
    c3_ = -c2_ * mean - sumDb * rstd_ * invM;
  }

  // Sums over the group's pieces in piece order, from the tile when it holds them all.
  __aicore__ inline void GroupSums(uint64_t q, float& sumDb, float& sumDs) {
    const uint64_t first = q * t_->groupSlots;
    const uint64_t off = first - piece0_;  // meaningful only when first >= piece0_
    const uint64_t run = first >= piece0_ ? off / runStride_ : runs_;
    const uint64_t inRun = first >= piece0_ ? off % runStride_ : 0;
    if (sumsValid_ && run < runs_ && inRun + t_->groupSlots <= runSlots_) {
      PipeFence<AscendC::HardEvent::V_S>();  // the sums were written by WholeReduceSum
      AscendC::LocalTensor<float> db = db_.template Get<float>();
      AscendC::LocalTensor<float> ds = ds_.template Get<float>();
      const uint32_t slot0 = lead_ + static_cast<uint32_t>(run * runSlots_ + inRun);
      for (uint32_t i = 0; i < static_cast<uint32_t>(t_->groupSlots); ++i) {
        float gamma = Gamma(first + i);
        sumDb += gamma * db.GetValue(slot0 + i);
        sumDs += gamma * ds.GetValue(slot0 + i);
      }
      return;
    }
    if (gathered_) {
      // Channel slabs: run r is sample n = q / g (every sample, the same channels in each).
      const uint64_t side = q % t_->g == headGroup_ ? 0 : 1;
      const uint32_t at = static_cast<uint32_t>((q / t_->g * 2 + side) * 2);
      sumDb = gatheredSums_.GetValue(at);
      sumDs = gatheredSums_.GetValue(at + 1);
      return;
    }
    AscendC::LocalTensor<float> db = wsDb_.template Get<float>();
    AscendC::LocalTensor<float> ds = wsDs_.template Get<float>();
    const uint64_t waveEnd = WaveEndSlot(q);
    for (uint64_t b = 0; b < t_->groupSlots; b += wsBatch_) {
      uint32_t n = static_cast<uint32_t>(t_->groupSlots - b < wsBatch_ ? t_->groupSlots - b : wsBatch_);
      const uint32_t lane0 = copy_.ReadSums(gm_, db, ds, first + b, n, waveEnd);  // UB lane of piece first + b
      PipeFence<AscendC::HardEvent::MTE2_S>();
      for (uint32_t i = 0; i < n; ++i) {
        float gamma = Gamma(first + b + i);
        sumDb += gamma * db.GetValue(lane0 + i);
        sumDs += gamma * ds.GetValue(lane0 + i);
      }
      PipeFence<AscendC::HardEvent::S_MTE2>();
    }
  }

  // One past the last workspace slot of the wave that holds group q (of the whole-group phase,
  // the group itself): every slot below it is final once the wave's SyncAll has passed.
  __aicore__ inline uint64_t WaveEndSlot(uint64_t q) const {
    const uint64_t groups = t_->n * t_->g;
    const uint64_t wholeEnd = t_->wholeGroupsPerCore * t_->blockDim;
    if (q < wholeEnd || t_->waveGroups == 0) return (q + 1) * t_->groupSlots;
    const uint64_t waveLast = wholeEnd + ((q - wholeEnd) / t_->waveGroups + 1) * t_->waveGroups;
    return (waveLast < groups ? waveLast : groups) * t_->groupSlots;
  }

  // dx for whole rows [s, s + rows) of the tile (hwParts == 1), one output copy per run.
  __aicore__ inline void DxRows(uint32_t s, uint32_t rows) {
    const uint32_t rs = static_cast<uint32_t>(t_->rowStride);
    AscendC::LocalTensor<float> dyF = DyFloat(s * rs, rows * rs);
    AscendC::LocalTensor<float> xF = XFloat(s * rs, rows * rs);
    AscendC::LocalTensor<T> out = outDx_.template AllocTensor<T>();
    AscendC::LocalTensor<float> outF = OutFloat(out);
    if (gm_.hasGamma && hasGammaBlocks_ && rs / 8 <= 255) {
      DxRowsScaled(s, rows, dyF, xF, outF);
    } else {
      for (uint32_t r = 0; r < rows;) {
        const uint32_t end = GroupEnd(s, r, rows);
        const uint64_t piece = PieceOf(s + r);
        Coefficients(piece / t_->groupSlots);
        const int32_t n = static_cast<int32_t>((end - r) * rs);
        AscendC::Muls(outF[r * rs], xF[r * rs], c2_, n);
        AscendC::Adds(outF[r * rs], outF[r * rs], c3_, n);
        if (!gm_.hasGamma) {  // gamma * rstd is rstd: one Axpy for the group, the same bits
          AscendC::Axpy(outF[r * rs], dyF[r * rs], rstd_, n);
        } else {
          for (uint32_t i = r; i < end; ++i) {
            AscendC::Axpy(outF[i * rs], dyF[i * rs], Gamma(piece + (i - r)) * rstd_, static_cast<int32_t>(rs));
          }
        }
        r = end;
      }
    }
    CastOut(out, outF, rows * rs);
    outDx_.EnQue(out);
    out = outDx_.template DeQue<T>();
    copy_.StoreRows(*this, gm_, out, s, rows);
    outDx_.FreeTensor(out);
  }

  // One past the last row of the group that row r of the chunk [s, s + rows) belongs to, within
  // the chunk (a group never spans two runs).
  __aicore__ inline uint32_t GroupEnd(uint32_t s, uint32_t r, uint32_t rows) const {
    const uint64_t piece = PieceOf(s + r);
    const uint64_t groupLeft = (piece / t_->groupSlots + 1) * t_->groupSlots - piece;
    const uint32_t inRun = RowsInRun(s + r, rows - r);
    return r + (groupLeft < inRun ? static_cast<uint32_t>(groupLeft) : inRun);
  }

  // DxRows with the gamma blocks (UseGammaBlocks): each slot's block is first scaled by its
  // group's rstd, in place (every slot lies in one chunk, and dx runs once per tile), then
  // dx = dy * (gamma * rstd) with one level-0 Mul per 64 lanes of a row for the whole chunk, and
  // + c2 * x + c3 with one Axpy and one Adds per group: three passes over the chunk.
  __aicore__ inline void DxRowsScaled(uint32_t s, uint32_t rows, const AscendC::LocalTensor<float>& dyF,
                                      const AscendC::LocalTensor<float>& xF, const AscendC::LocalTensor<float>& outF) {
    const uint32_t rs = static_cast<uint32_t>(t_->rowStride);
    for (uint32_t r = 0; r < rows;) {
      const uint32_t end = GroupEnd(s, r, rows);
      Coefficients(PieceOf(s + r) / t_->groupSlots);
      const AscendC::LocalTensor<float> blocks = gammaBlocks_[(s + r) * 8];
      AscendC::Muls(blocks, blocks, rstd_, static_cast<int32_t>((end - r) * 8));
      r = end;
    }
    const uint8_t rep = static_cast<uint8_t>(rs / 8);
    RowsBinary(RowOp::kMul, RowOperand{outF, 1, rep}, RowOperand{dyF, 1, rep}, RowOperand{gammaBlocks_[s * 8], 0, 1},
               rows, rs);
    for (uint32_t r = 0; r < rows;) {
      const uint32_t end = GroupEnd(s, r, rows);
      Coefficients(PieceOf(s + r) / t_->groupSlots);
      const int32_t n = static_cast<int32_t>((end - r) * rs);
      AscendC::Axpy(outF[r * rs], xF[r * rs], c2_, n);
      AscendC::Adds(outF[r * rs], outF[r * rs], c3_, n);
      r = end;
    }
  }

  // dx for elements [off, off + n) of slot s (long rows and row pieces).
  __aicore__ inline void DxSegment(uint32_t s, uint32_t off, uint32_t n) {
    const uint64_t piece = PieceOf(s);
    const uint32_t base = s * static_cast<uint32_t>(t_->rowStride) + off;
    Coefficients(piece / t_->groupSlots);
    AscendC::LocalTensor<float> dyF = DyFloat(base, n);
    AscendC::LocalTensor<float> xF = XFloat(base, n);
    AscendC::LocalTensor<T> out = outDx_.template AllocTensor<T>();
    AscendC::LocalTensor<float> outF = OutFloat(out);
    AscendC::Muls(outF, xF, c2_, static_cast<int32_t>(n));
    AscendC::Adds(outF, outF, c3_, static_cast<int32_t>(n));
    AscendC::Axpy(outF, dyF, Gamma(piece) * rstd_, static_cast<int32_t>(n));
    CastOut(out, outF, n);
    outDx_.EnQue(out);
    out = outDx_.template DeQue<T>();
    uint64_t real = PieceLen(piece) - off < n ? PieceLen(piece) - off : n;
    copy_.StoreSegment(gm_, out, PieceGmOffset(piece) + off, real, n);
    outDx_.FreeTensor(out);
  }

  __aicore__ inline AscendC::LocalTensor<float> OutFloat(const AscendC::LocalTensor<T>& out) {
    if constexpr (AscendC::IsSameType<T, float>::value) {
      return out;
    } else {
      return work_.template Get<float>();
    }
  }
  __aicore__ inline void CastOut(const AscendC::LocalTensor<T>& out, const AscendC::LocalTensor<float>& outF,
                                 uint32_t n) {
    if constexpr (!AscendC::IsSameType<T, float>::value) {
      AscendC::Cast(out, outF, copy_.CastRound(), n);
    }
  }

  uint64_t curGroup_ = ~0ull;
  float c2_ = 0.0f, c3_ = 0.0f, rstd_ = 0.0f;
};

}  // namespace normgrad
