// normgrad's backward ops for NPU tensors (torch_npu's PrivateUse1 key), op-plugin style: each
// kernel checks its arguments, allocates the outputs the fake kernels in normgrad/torch.py promise
// (shapes, dtypes, memory formats, None where output_mask is false) and calls the aclnn entry
// point through torch_npu's EXEC_NPU_CMD, which finds aclnnXxx in custom OPP packages
// (ASCEND_CUSTOM_OPP_PATH) before CANN's libopapi.so, i.e. normgrad's kernels once its package is
// installed. The schemas are defined in Python (normgrad.torch, torch.library); this library only
// adds kernels, so normgrad.torch must be imported before it is loaded.
#include <ATen/ATen.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <array>
#include <cstdint>
#include <vector>

#include "aclnn_call_check.h"  // NORMGRAD_EXEC_NPU_CMD, after op_api_common.h
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_layer_norm_backward.h"

namespace normgrad::npu {
namespace {

using at::Tensor;
using OptionalTensor = c10::optional<Tensor>;

bool KernelDtype(at::ScalarType t) {
  return t == at::kFloat || t == at::kHalf || t == at::kBFloat16;
}

// The Python CPU kernels raise TypeError naming the op and the argument; TORCH_CHECK_TYPE raises
// the same Python type.
void CheckDtype(const char* op, const char* name, const Tensor& t) {
  TORCH_CHECK_TYPE(KernelDtype(t.scalar_type()), "normgrad::", op, ": ", name, " has dtype ", t.scalar_type(),
                   "; the Ascend C kernel supports Float, Half and BFloat16");
}

void CheckDevice(const char* op, const char* name, const Tensor& t, const Tensor& input) {
  TORCH_CHECK_VALUE(t.device() == input.device(), "normgrad::", op, ": ", name, " is on ", t.device(),
                    ", expected input's device ", input.device());
}

// aten's GroupNorm and BatchNorm give dx the input's suggested memory format (channels_last in,
// channels_last out), and the fake kernels say so. The aclnn call gets contiguous tensors (the
// generated operator's layout), so a channels_last result costs one copy at the end.
Tensor InInputFormat(const Tensor& dx, const Tensor& input) {
  const auto format = input.suggest_memory_format();
  return format == at::MemoryFormat::Contiguous ? dx : dx.contiguous(format);
}

// ---- GroupNorm --------------------------------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor> GroupNormBackward(const Tensor& grad_out, const Tensor& input,
                                                     const Tensor& mean, const Tensor& rstd,
                                                     const OptionalTensor& weight, int64_t N, int64_t C,
                                                     int64_t HxW, int64_t group, std::array<bool, 3> output_mask) {
  constexpr const char* op = "group_norm_backward";
  const bool has_weight = weight.has_value() && weight->defined();
  CheckDtype(op, "grad_out", grad_out);
  CheckDtype(op, "input", input);
  CheckDtype(op, "mean", mean);
  CheckDtype(op, "rstd", rstd);
  if (has_weight) CheckDtype(op, "weight", *weight);
  TORCH_CHECK_TYPE(grad_out.scalar_type() == input.scalar_type(), "normgrad::", op, ": grad_out has dtype ",
                   grad_out.scalar_type(), ", expected input's ", input.scalar_type());
  CheckDevice(op, "grad_out", grad_out, input);
  CheckDevice(op, "mean", mean, input);
  CheckDevice(op, "rstd", rstd, input);
  if (has_weight) CheckDevice(op, "weight", *weight, input);
  const c10::OptionalDeviceGuard guard(at::device_of(input));

  const at::ScalarType param_dtype = has_weight ? weight->scalar_type() : input.scalar_type();
  // aclnnGroupNormBackward takes one dtype; torch's mixed precision (half/bf16 input, float32
  // stats and weight) runs in float32 on the exactly widened input, as on the CPU path.
  const bool mixed = mean.scalar_type() != input.scalar_type() || rstd.scalar_type() != input.scalar_type() ||
                     (has_weight && weight->scalar_type() != input.scalar_type());
  const auto run = [&](const Tensor& t) { return (mixed ? t.to(at::kFloat) : t).contiguous(); };
  const Tensor dy_c = run(grad_out);
  const Tensor x_c = run(input);
  const Tensor mean_c = run(mean);
  const Tensor rstd_c = run(rstd);
  const OptionalTensor gamma_c = has_weight ? OptionalTensor(run(*weight)) : OptionalTensor();

  const auto run_dtype = x_c.scalar_type();
  Tensor dx = output_mask[0] ? at::empty(x_c.sizes(), x_c.options()) : Tensor();
  Tensor dgamma = output_mask[1] ? at::empty({C}, x_c.options().dtype(run_dtype)) : Tensor();
  Tensor dbeta = output_mask[2] ? at::empty({C}, x_c.options().dtype(run_dtype)) : Tensor();
  if (input.numel() == 0) {
    // Nothing to launch: the parameter gradients of an empty batch are zero.
    if (dgamma.defined()) dgamma.zero_();
    if (dbeta.defined()) dbeta.zero_();
  } else {
    NORMGRAD_EXEC_NPU_CMD(aclnnGroupNormBackward, dy_c, x_c, mean_c, rstd_c, gamma_c, N, C, HxW, group,
                          output_mask, dx, dgamma, dbeta);
  }
  if (dx.defined()) dx = InInputFormat(dx.to(input.scalar_type()), input);
  if (dgamma.defined()) dgamma = dgamma.to(param_dtype);
  if (dbeta.defined()) dbeta = dbeta.to(param_dtype);
  return {dx, dgamma, dbeta};
}

// ---- LayerNorm --------------------------------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor> LayerNormBackward(const Tensor& grad_out, const Tensor& input,
                                                     at::IntArrayRef normalized_shape, const Tensor& mean,
                                                     const Tensor& rstd, const OptionalTensor& weight,
                                                     const OptionalTensor& bias, std::array<bool, 3> output_mask) {
  constexpr const char* op = "layer_norm_backward";
  const bool has_weight = weight.has_value() && weight->defined();
  const bool has_bias = bias.has_value() && bias->defined();
  CheckDtype(op, "grad_out", grad_out);
  CheckDtype(op, "input", input);
  CheckDtype(op, "mean", mean);
  CheckDtype(op, "rstd", rstd);
  if (has_weight) CheckDtype(op, "weight", *weight);
  if (has_bias) CheckDtype(op, "bias", *bias);
  CheckDevice(op, "grad_out", grad_out, input);
  CheckDevice(op, "mean", mean, input);
  CheckDevice(op, "rstd", rstd, input);
  if (has_weight) CheckDevice(op, "weight", *weight, input);
  if (has_bias) CheckDevice(op, "bias", *bias, input);
  const c10::OptionalDeviceGuard guard(at::device_of(input));

  // The kernel takes every dtype combination torch's forward produces, so the tensors go as they
  // are (made contiguous); dweight/dbias have the weight's dtype (the input's without a weight),
  // as the CPU path and the fake kernel say.
  const Tensor dy_c = grad_out.contiguous();
  const Tensor x_c = input.contiguous();
  const Tensor mean_c = mean.contiguous();
  const Tensor rstd_c = rstd.contiguous();
  const OptionalTensor weight_c = has_weight ? OptionalTensor(weight->contiguous()) : OptionalTensor();
  const OptionalTensor bias_c = has_bias ? OptionalTensor(bias->contiguous()) : OptionalTensor();
  const at::ScalarType param_dtype = has_weight ? weight->scalar_type() : input.scalar_type();

  Tensor dx = output_mask[0] ? at::empty(input.sizes(), input.options()) : Tensor();
  Tensor dweight = output_mask[1] ? at::empty(normalized_shape, input.options().dtype(param_dtype)) : Tensor();
  Tensor dbias = output_mask[2] ? at::empty(normalized_shape, input.options().dtype(param_dtype)) : Tensor();
  if (input.numel() == 0) {
    if (dweight.defined()) dweight.zero_();
    if (dbias.defined()) dbias.zero_();
    return {dx, dweight, dbias};
  }
  NORMGRAD_EXEC_NPU_CMD(aclnnLayerNormBackward, dy_c, x_c, normalized_shape, mean_c, rstd_c, weight_c, bias_c,
                        output_mask, dx, dweight, dbias);
  return {dx, dweight, dbias};
}

// ---- BatchNorm element-wise -------------------------------------------------------------------

Tensor BatchNormElemtBackward(const Tensor& grad_out, const Tensor& input, const Tensor& mean,
                              const Tensor& invstd, const OptionalTensor& weight, const Tensor& sum_dy,
                              const Tensor& sum_dy_xmu, const Tensor& count) {
  constexpr const char* op = "batch_norm_elemt_backward";
  const bool has_weight = weight.has_value() && weight->defined();
  CheckDtype(op, "grad_out", grad_out);
  CheckDtype(op, "input", input);
  CheckDtype(op, "mean", mean);
  CheckDtype(op, "invstd", invstd);
  if (has_weight) CheckDtype(op, "weight", *weight);
  CheckDtype(op, "sum_dy", sum_dy);
  CheckDtype(op, "sum_dy_xmu", sum_dy_xmu);
  const auto count_dtype = count.scalar_type();
  TORCH_CHECK_TYPE(count_dtype == at::kInt || count_dtype == at::kHalf || count_dtype == at::kFloat,
                   "normgrad::", op, ": count has dtype ", count_dtype,
                   ", expected Int (as SyncBatchNorm passes it), Half or Float");
  for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"grad_out", &grad_out},
                                {"mean", &mean},
                                {"invstd", &invstd},
                                {"sum_dy", &sum_dy},
                                {"sum_dy_xmu", &sum_dy_xmu},
                                {"count", &count}}) {
    CheckDevice(op, name, *t, input);
  }
  if (has_weight) CheckDevice(op, "weight", *weight, input);
  const c10::OptionalDeviceGuard guard(at::device_of(input));

  const Tensor dy_c = grad_out.contiguous();
  const Tensor x_c = input.contiguous();
  const Tensor mean_c = mean.contiguous();
  const Tensor invstd_c = invstd.contiguous();
  const OptionalTensor weight_c = has_weight ? OptionalTensor(weight->contiguous()) : OptionalTensor();
  const Tensor sum_dy_c = sum_dy.contiguous();
  const Tensor sum_dy_xmu_c = sum_dy_xmu.contiguous();
  const Tensor count_c = count.contiguous();

  Tensor dx = at::empty(input.sizes(), input.options());
  if (input.numel() == 0) return InInputFormat(dx, input);  // a SyncBatchNorm rank with an empty batch
  NORMGRAD_EXEC_NPU_CMD(aclnnBatchNormElemtBackward, dy_c, x_c, mean_c, invstd_c, weight_c, sum_dy_c,
                        sum_dy_xmu_c, count_c, dx);
  return InInputFormat(dx, input);
}

}  // namespace
}  // namespace normgrad::npu

TORCH_LIBRARY_IMPL(normgrad, PrivateUse1, m) {
  m.impl("group_norm_backward", TORCH_FN(normgrad::npu::GroupNormBackward));
  m.impl("layer_norm_backward", TORCH_FN(normgrad::npu::LayerNormBackward));
  m.impl("batch_norm_elemt_backward", TORCH_FN(normgrad::npu::BatchNormElemtBackward));
}
