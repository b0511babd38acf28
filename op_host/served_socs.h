// The SoC families each operator runs on, by the names CANN's OpDef configs use: the one list its
// OpDef registers (AICore().AddConfig) and its level-2 aclnn API checks (every chip of a family is
// served). `normgrad npu build --soc` reads the families from this file too.
#pragma once

namespace ops {
// Atlas A2/A3, the training series and Ascend 950; the GroupNorm pages list no Atlas inference series.
constexpr const char* kGroupNormGradSocs[] = {"ascend910b", "ascend910_93", "ascend910", "ascend950"};
// Every family: on the training and inference series float32/float16 only, one-pass modes only.
constexpr const char* kLayerNormGradV3Socs[] = {"ascend910b", "ascend910_93", "ascend910", "ascend310p",
                                                "ascend950"};
// The kernel moves rows of any length with DataCopyPad, which the training and inference series lack.
constexpr const char* kBatchNormElemtGradSocs[] = {"ascend910b", "ascend910_93", "ascend950"};
}  // namespace ops
