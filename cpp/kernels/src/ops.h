#pragma once
// Every kernel in the library, as X(operator name, function). register.cpp registers this list.
#include "kernel_utils.h"

#define ETK_OPS(X)                                                                             \
  /* element-wise arithmetic */                                                                \
  X("aten::add.out", add_out)                                                                  \
  X("aten::add.Scalar_out", add_scalar_out)                                                    \
  X("aten::sub.out", sub_out)                                                                  \
  X("aten::sub.Scalar_out", sub_scalar_out)                                                    \
  X("aten::rsub.Scalar_out", rsub_scalar_out)                                                  \
  X("aten::mul.out", mul_out)                                                                  \
  X("aten::mul.Scalar_out", mul_scalar_out)                                                    \
  X("aten::div.out", div_out)                                                                  \
  X("aten::div.Scalar_out", div_scalar_out)                                                    \
  X("aten::div.out_mode", div_out_mode)                                                        \
  X("aten::maximum.out", maximum_out)                                                          \
  X("aten::minimum.out", minimum_out)                                                          \
  X("aten::pow.Tensor_Scalar_out", pow_tensor_scalar_out)                                      \
  /* comparisons and logic */                                                                  \
  X("aten::eq.Tensor_out", eq_tensor_out)                                                      \
  X("aten::eq.Scalar_out", eq_scalar_out)                                                      \
  X("aten::ne.Tensor_out", ne_tensor_out)                                                      \
  X("aten::ne.Scalar_out", ne_scalar_out)                                                      \
  X("aten::lt.Tensor_out", lt_tensor_out)                                                      \
  X("aten::lt.Scalar_out", lt_scalar_out)                                                      \
  X("aten::le.Tensor_out", le_tensor_out)                                                      \
  X("aten::le.Scalar_out", le_scalar_out)                                                      \
  X("aten::gt.Tensor_out", gt_tensor_out)                                                      \
  X("aten::gt.Scalar_out", gt_scalar_out)                                                      \
  X("aten::ge.Tensor_out", ge_tensor_out)                                                      \
  X("aten::ge.Scalar_out", ge_scalar_out)                                                      \
  X("aten::logical_not.out", logical_not_out)                                                  \
  X("aten::logical_and.out", logical_and_out)                                                  \
  X("aten::logical_or.out", logical_or_out)                                                    \
  X("aten::where.self_out", where_self_out)                                                    \
  /* unary */                                                                                  \
  X("aten::abs.out", abs_out)                                                                  \
  X("aten::neg.out", neg_out)                                                                  \
  X("aten::relu.out", relu_out)                                                                \
  X("aten::clamp.out", clamp_out)                                                              \
  X("aten::hardtanh.out", hardtanh_out)                                                        \
  X("aten::exp.out", exp_out)                                                                  \
  X("aten::log.out", log_out)                                                                  \
  X("aten::sqrt.out", sqrt_out)                                                                \
  X("aten::rsqrt.out", rsqrt_out)                                                              \
  X("aten::tanh.out", tanh_out)                                                                \
  X("aten::sigmoid.out", sigmoid_out)                                                          \
  X("aten::silu.out", silu_out)                                                                \
  X("aten::sin.out", sin_out)                                                                  \
  X("aten::cos.out", cos_out)                                                                  \
  X("aten::erf.out", erf_out)                                                                  \
  X("aten::reciprocal.out", reciprocal_out)                                                    \
  X("aten::floor.out", floor_out)                                                              \
  X("aten::ceil.out", ceil_out)                                                                \
  X("aten::round.out", round_out)                                                              \
  X("aten::hardswish.out", hardswish_out)                                                      \
  X("aten::hardsigmoid.out", hardsigmoid_out)                                                  \
  X("aten::leaky_relu.out", leaky_relu_out)                                                    \
  X("aten::gelu.out", gelu_out)                                                                \
  /* reductions */                                                                             \
  X("aten::sum.IntList_out", sum_intlist_out)                                                  \
  X("aten::mean.out", mean_out)                                                                \
  X("aten::amax.out", amax_out)                                                                \
  X("aten::amin.out", amin_out)                                                                \
  X("aten::argmax.out", argmax_out)                                                            \
  X("aten::argmin.out", argmin_out)                                                            \
  X("aten::any.out", any_out)                                                                  \
  X("aten::any.dims_out", any_dims_out)                                                        \
  X("aten::any.all_out", any_all_out)                                                          \
  X("aten::_softmax.out", softmax_out)                                                         \
  X("aten::_log_softmax.out", log_softmax_out)                                                 \
  /* shape / copy */                                                                           \
  X("aten::permute_copy.out", permute_copy_out)                                                \
  X("aten::transpose_copy.int_out", transpose_copy_int_out)                                    \
  X("aten::t_copy.out", t_copy_out)                                                            \
  X("aten::view_copy.out", view_copy_out)                                                      \
  X("aten::squeeze_copy.dims_out", squeeze_copy_dims_out)                                      \
  X("aten::squeeze_copy.dim_out", squeeze_copy_dim_out)                                        \
  X("aten::squeeze_copy.out", squeeze_copy_out)                                                \
  X("aten::unsqueeze_copy.out", unsqueeze_copy_out)                                            \
  X("aten::select_copy.int_out", select_copy_int_out)                                          \
  X("aten::slice_copy.Tensor_out", slice_copy_tensor_out)                                      \
  X("aten::cat.out", cat_out)                                                                  \
  X("aten::split_with_sizes_copy.out", split_with_sizes_copy_out)                              \
  X("aten::split_copy.Tensor_out", split_copy_tensor_out)                                      \
  X("aten::expand_copy.out", expand_copy_out)                                                  \
  X("aten::clone.out", clone_out)                                                              \
  X("aten::copy_", copy_inplace)                                                               \
  X("aten::copy.out", copy_out)                                                                \
  X("aten::_to_copy.out", to_copy_out)                                                         \
  X("dim_order_ops::_to_dim_order_copy.out", to_dim_order_copy_out)                            \
  X("dim_order_ops::_clone_dim_order.out", clone_dim_order_out)                                \
  X("aten::full_like.out", full_like_out)                                                      \
  X("aten::full.out", full_out)                                                                \
  X("aten::embedding.out", embedding_out)                                                      \
  X("aten::constant_pad_nd.out", constant_pad_nd_out)                                          \
  /* linear algebra */                                                                         \
  X("aten::mm.out", mm_out)                                                                    \
  X("aten::bmm.out", bmm_out)                                                                  \
  X("aten::addmm.out", addmm_out)                                                              \
  X("aten::linear.out", linear_out)                                                            \
  /* convolution / pooling */                                                                  \
  X("aten::convolution.out", convolution_out)                                                  \
  X("aten::max_pool2d_with_indices.out", max_pool2d_with_indices_out)                          \
  X("aten::avg_pool2d.out", avg_pool2d_out)                                                    \
  X("aten::_adaptive_avg_pool2d.out", adaptive_avg_pool2d_out)                                 \
  /* normalization */                                                                          \
  X("aten::_native_batch_norm_legit_no_training.out", native_batch_norm_legit_no_training_out) \
  X("aten::native_layer_norm.out", native_layer_norm_out)                                      \
  /* more coverage */                                                                          \
  X("aten::pow.Tensor_Tensor_out", pow_tensor_tensor_out)                                      \
  X("aten::pow.Scalar_out", pow_scalar_out)                                                    \
  X("aten::remainder.Tensor_out", remainder_tensor_out)                                        \
  X("aten::remainder.Scalar_out", remainder_scalar_out)                                        \
  X("aten::fmod.Tensor_out", fmod_tensor_out)                                                  \
  X("aten::fmod.Scalar_out", fmod_scalar_out)                                                  \
  X("aten::floor_divide.out", floor_divide_out)                                                \
  X("aten::atan2.out", atan2_out)                                                              \
  X("aten::clamp.Tensor_out", clamp_tensor_out)                                                \
  X("aten::bitwise_and.Tensor_out", bitwise_and_tensor_out)                                    \
  X("aten::bitwise_and.Scalar_out", bitwise_and_scalar_out)                                    \
  X("aten::bitwise_or.Tensor_out", bitwise_or_tensor_out)                                      \
  X("aten::bitwise_or.Scalar_out", bitwise_or_scalar_out)                                      \
  X("aten::bitwise_xor.Tensor_out", bitwise_xor_tensor_out)                                    \
  X("aten::bitwise_xor.Scalar_out", bitwise_xor_scalar_out)                                    \
  X("aten::bitwise_not.out", bitwise_not_out)                                                  \
  X("aten::logical_xor.out", logical_xor_out)                                                  \
  X("aten::sign.out", sign_out)                                                                \
  X("aten::log1p.out", log1p_out)                                                              \
  X("aten::expm1.out", expm1_out)                                                              \
  X("aten::log2.out", log2_out)                                                                \
  X("aten::log10.out", log10_out)                                                              \
  X("aten::trunc.out", trunc_out)                                                              \
  X("aten::tan.out", tan_out)                                                                  \
  X("aten::atan.out", atan_out)                                                                \
  X("aten::asin.out", asin_out)                                                                \
  X("aten::acos.out", acos_out)                                                                \
  X("aten::sinh.out", sinh_out)                                                                \
  X("aten::cosh.out", cosh_out)                                                                \
  X("aten::asinh.out", asinh_out)                                                              \
  X("aten::acosh.out", acosh_out)                                                              \
  X("aten::atanh.out", atanh_out)                                                              \
  X("aten::elu.out", elu_out)                                                                  \
  X("aten::logit.out", logit_out)                                                              \
  X("aten::masked_fill.Scalar_out", masked_fill_scalar_out)                                    \
  X("aten::var.correction_out", var_correction_out)                                            \
  X("aten::var.out", var_out)                                                                  \
  X("aten::max.dim_max", max_dim_max)                                                          \
  X("aten::min.dim_min", min_dim_min)                                                          \
  X("aten::alias_copy.out", alias_copy_out)                                                    \
  X("aten::detach_copy.out", alias_copy_out)                                                   \
  X("aten::lift_fresh_copy.out", alias_copy_out)                                               \
  X("aten::index.Tensor_out", index_tensor_out)                                                \
  X("aten::index_put.out", index_put_out)                                                      \
  X("aten::index_select.out", index_select_out)                                                \
  X("aten::gather.out", gather_out)                                                            \
  X("aten::select_scatter.out", select_scatter_out)                                            \
  X("aten::slice_scatter.out", slice_scatter_out)                                              \
  X("aten::flip.out", flip_out)                                                                \
  X("aten::roll.out", roll_out)                                                                \
  X("aten::repeat.out", repeat_out)                                                            \
  X("aten::triu.out", triu_out)                                                                \
  X("aten::tril.out", tril_out)                                                                \
  X("aten::cumsum.out", cumsum_out)                                                            \
  X("aten::topk.values", topk_values)                                                          \
  X("aten::arange.out", arange_out)                                                            \
  X("aten::arange.start_out", arange_start_out)                                                \
  X("aten::scalar_tensor.out", scalar_tensor_out)                                              \
  X("aten::zeros.out", zeros_out)                                                              \
  X("aten::ones.out", ones_out)                                                                \
  X("aten::stack.out", stack_out)                                                              \
  X("aten::unbind_copy.int_out", unbind_copy_int_out)                                          \
  X("aten::upsample_nearest2d.out", upsample_nearest2d_out)                                    \
  X("aten::upsample_nearest2d.vec_out", upsample_nearest2d_vec_out)                            \
  X("aten::upsample_bilinear2d.out", upsample_bilinear2d_out)                                  \
  X("aten::upsample_bilinear2d.vec_out", upsample_bilinear2d_vec_out)                          \
  X("aten::native_group_norm.out", native_group_norm_out)

namespace etk {
#define ETK_DECLARE(name, fn) void fn(KernelRuntimeContext& ctx, Args args);
ETK_OPS(ETK_DECLARE)
#undef ETK_DECLARE
}  // namespace etk
