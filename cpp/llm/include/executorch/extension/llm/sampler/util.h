#pragma once
// The next token from a logits tensor (upstream: extension/llm/sampler/util.h: sample_from_logits,
// logits_to_token). The logits are the last dimension; of a 3-D [1, n, vocab] tensor the last position's row is
// used, otherwise the first row. Float logits are sampled in place (the sampler overwrites them with
// probabilities at a temperature > 0, as upstream's); Half and BFloat16 logits are widened to a float copy first
// (upstream samples them in their own type). Another dtype aborts, as upstream's.
#include <cstdint>
#include <vector>

#include <executorch/extension/llm/sampler/sampler.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/platform/assert.h>

namespace executorch {
namespace extension {
namespace llm {

namespace internal {
template <typename T>
inline int32_t sample_widened(const T* logits, int64_t vocab_size, Sampler& sampler) {
  std::vector<float> row(logits, logits + vocab_size);
  return sampler.sample(row.data());
}
}  // namespace internal

inline int32_t sample_from_logits(const executorch::aten::Tensor& logits_tensor, Sampler& sampler) {
  const int64_t vocab_size = logits_tensor.size(logits_tensor.dim() - 1);
  const int64_t offset = logits_tensor.dim() == 3 ? (logits_tensor.size(1) - 1) * vocab_size : 0;
  switch (logits_tensor.scalar_type()) {
    case executorch::aten::ScalarType::Float: return sampler.sample(logits_tensor.mutable_data_ptr<float>() + offset);
    case executorch::aten::ScalarType::Half:
      return internal::sample_widened(logits_tensor.const_data_ptr<executorch::aten::Half>() + offset, vocab_size,
                                      sampler);
    case executorch::aten::ScalarType::BFloat16:
      return internal::sample_widened(logits_tensor.const_data_ptr<executorch::aten::BFloat16>() + offset, vocab_size,
                                      sampler);
    default: ET_CHECK_MSG(false, "Unsupported dtype in sample_from_logits");
  }
  return 0;
}

// Samples with a temporary Sampler(vocab, temperature): argmax at temperature 0.
inline int32_t logits_to_token(const executorch::aten::Tensor& logits_tensor, const float temperature = 0.0f) {
  Sampler sampler(static_cast<int32_t>(logits_tensor.size(logits_tensor.dim() - 1)), temperature);
  return sample_from_logits(logits_tensor, sampler);
}

}  // namespace llm
}  // namespace extension
}  // namespace executorch
