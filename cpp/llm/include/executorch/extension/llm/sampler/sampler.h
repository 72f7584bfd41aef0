#pragma once
// The token sampler of the LLM runner (upstream: extension/llm/sampler/sampler.h; the same class, constructors
// and algorithm as llama2.c's: argmax at temperature 0, else softmax(logits / temperature) sampled with a
// xorshift generator, restricted to the top k tokens or to the top-p nucleus).
#include <cstdint>

#include <executorch/runtime/export.h>

namespace executorch {
namespace extension {
namespace llm {

// upstream's default top-p.
inline constexpr auto kTopp = 0.9f;

template <typename T>
struct ProbIndex {
  T prob;
  int32_t index;
};

class EXECUTORCH_API Sampler {
 public:
  Sampler(int32_t vocab_size, float temperature, float topp, unsigned long long rng_seed);
  // top-p kTopp, seeded with the current time.
  Sampler(int32_t vocab_size, float temperature);

  // A temperature < 0 counts as 0 (greedy).
  void set_temperature(float temperature) {
    if (temperature < 0.0f) temperature = 0.0f;
    inv_temperature_ = temperature != 0.0f ? 1.0f / temperature : 0.0f;
  }
  // Sample from the k most likely tokens (k <= 0 or >= the vocabulary: off); top-k replaces top-p.
  void set_topk(int32_t topk) { topk_ = topk; }

  // The next token from vocab_size logits; overwrites them with probabilities when sampling. T: float.
  template <typename T>
  int32_t sample(T* logits);

 private:
  int32_t sample_floats(float* logits);
  template <typename T>
  int32_t sample_topp(T* probabilities, float coin);
  template <typename T>
  int32_t sample_topk(T* probabilities, float coin);
  template <typename T>
  int32_t sample_mult(T* probabilities, float coin);
  template <typename T>
  int32_t sample_argmax(T* probabilities);

  int32_t vocab_size_;
  float inv_temperature_;
  float topp_;
  int32_t topk_ = 0;
  unsigned long long rng_state_;
};

template <>
inline int32_t Sampler::sample<float>(float* logits) {
  return sample_floats(logits);
}

}  // namespace llm
}  // namespace extension
}  // namespace executorch
