#pragma once
// Every kernel in the library, as X(operator name, function), in the order of upstream's
// kernels/quantized/quantized.yaml. register.cpp registers this list.
#include "qutils.h"

#define ETQ_OPS(X)                                                                                            \
  X("quantized_decomposed::add.out", add_out)                                                                 \
  X("quantized_decomposed::choose_qparams.Tensor_out", choose_qparams_tensor_out)                             \
  X("quantized_decomposed::dequantize_per_tensor.out", dequantize_per_tensor_out)                             \
  X("quantized_decomposed::dequantize_per_tensor.Tensor_out", dequantize_per_tensor_tensor_out)               \
  X("quantized_decomposed::quantize_per_channel.out", quantize_per_channel_out)                               \
  X("quantized_decomposed::dequantize_per_channel.out", dequantize_per_channel_out)                           \
  X("quantized_decomposed::embedding_byte.out", embedding_byte_out)                                           \
  X("quantized_decomposed::embedding_byte.dtype_out", embedding_byte_dtype_out)                               \
  X("quantized_decomposed::embedding_2bit.out", embedding_2bit_out)                                           \
  X("quantized_decomposed::embedding_2bit.dtype_out", embedding_2bit_dtype_out)                               \
  X("quantized_decomposed::embedding_4bit.out", embedding_4bit_out)                                           \
  X("quantized_decomposed::embedding_4bit.dtype_out", embedding_4bit_dtype_out)                               \
  X("quantized_decomposed::mixed_mm.out", mixed_mm_out)                                                       \
  X("quantized_decomposed::mixed_linear.out", mixed_linear_out)                                               \
  X("quantized_decomposed::quantize_per_tensor.out", quantize_per_tensor_out)                                 \
  X("quantized_decomposed::quantize_per_tensor.Tensor_out", quantize_per_tensor_tensor_out)                   \
  X("quantized_decomposed::choose_qparams_per_token_asymmetric.out", choose_qparams_per_token_asymmetric_out) \
  X("quantized_decomposed::quantize_per_token.out", quantize_per_token_out)                                   \
  X("quantized_decomposed::dequantize_per_token.out", dequantize_per_token_out)

namespace etq {
#define ETQ_DECLARE(name, fn) void fn(KernelRuntimeContext& ctx, Args args);
ETQ_OPS(ETQ_DECLARE)
#undef ETQ_DECLARE
}  // namespace etq
