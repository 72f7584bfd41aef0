#pragma once
// Internal declarations of the LLM kernels (sdpa.cpp, update_cache.cpp), which register themselves with
// ET_KERNEL_OP under upstream's names and schemas (extension/llm/custom_ops/op_sdpa_aot.cpp).
#include <kernel_base.h>

namespace etl {
using namespace ::etkb;  // NOLINT: the shared kernel-authoring base
// The call policy of this library's ET_KERNEL_OPs: each kernel runs as it is.
using KernelPolicy = ::etkb::DirectCall;

// Writes value [B, S, H, D] into cache [B, L, H, D] at sequence positions start_pos.. (or indices[b, s]),
// checking shapes and bounds; false after failing ctx. `what` names the cache for messages.
bool write_cache(KernelRuntimeContext& ctx, const Tensor& value, const Tensor& cache, int64_t start_pos,
                 const Tensor* indices, const char* what);
// Per-token quantization parameters of int8 q / k / v (custom_quantized_sdpa): zero points (int8) and scales
// (float), one per [batch, seq, head] row.
struct TokenQParams {
  const Tensor *q_zp, *q_scale, *k_zp, *k_scale, *v_zp, *v_scale;
};
// Attention of q [B, S, Hq, D] over k / v [B, L, Hkv, D] into out (resized to q's shape); with `quant`, q / k / v
// are int8 and dequantized per token first. See sdpa.cpp.
void attention(KernelRuntimeContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v, int64_t start_pos,
               const Tensor* mask, bool is_causal, bool has_scale, double scale, const Tensor& out,
               const TokenQParams* quant = nullptr);
}  // namespace etl
