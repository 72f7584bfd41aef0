// The sampler (include/executorch/extension/llm/sampler/sampler.h).
#include <executorch/extension/llm/sampler/sampler.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <vector>

namespace executorch {
namespace extension {
namespace llm {

namespace {

// xorshift64*: 32 random bits, then a float in [0, 1) from 24 of them.
uint32_t next_u32(unsigned long long* state) {
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return static_cast<uint32_t>((*state * 0x2545F4914F6CDD1Dull) >> 32);
}

float next_f32(unsigned long long* state) { return static_cast<float>(next_u32(state) >> 8) / 16777216.0f; }

template <typename T>
void softmax_in_place(T* x, int32_t n) {
  T mx = x[0];
  for (int32_t i = 1; i < n; ++i) mx = std::max(mx, x[i]);
  T sum = 0;
  for (int32_t i = 0; i < n; ++i) sum += x[i] = std::exp(x[i] - mx);
  for (int32_t i = 0; i < n; ++i) x[i] /= sum;
}

template <typename T>
bool by_probability(const ProbIndex<T>& a, const ProbIndex<T>& b) {
  return a.prob > b.prob;
}

}  // namespace

Sampler::Sampler(int32_t vocab_size, float temperature, float topp, unsigned long long rng_seed)
    : vocab_size_(vocab_size),
      inv_temperature_(temperature != 0.0f ? 1.0f / temperature : 0.0f),
      topp_(topp),
      rng_state_(rng_seed) {}

Sampler::Sampler(int32_t vocab_size, float temperature)
    : Sampler(vocab_size, temperature, kTopp, static_cast<unsigned long long>(std::time(nullptr))) {}

template <typename T>
int32_t Sampler::sample_argmax(T* probabilities) {
  return static_cast<int32_t>(std::max_element(probabilities, probabilities + vocab_size_) - probabilities);
}

template <typename T>
int32_t Sampler::sample_mult(T* probabilities, float coin) {
  T cdf = 0;
  for (int32_t i = 0; i < vocab_size_; ++i) {
    cdf += probabilities[i];
    if (coin < cdf) return i;
  }
  return vocab_size_ - 1;
}

template <typename T>
int32_t Sampler::sample_topk(T* probabilities, float coin) {
  const int32_t k = std::min(topk_, vocab_size_);
  if (k <= 0) return 0;
  std::vector<ProbIndex<T>> order(static_cast<size_t>(vocab_size_));
  for (int32_t i = 0; i < vocab_size_; ++i) order[static_cast<size_t>(i)] = {probabilities[i], i};
  std::partial_sort(order.begin(), order.begin() + k, order.end(), by_probability<T>);
  float total = 0;
  for (int32_t i = 0; i < k; ++i) total += static_cast<float>(order[static_cast<size_t>(i)].prob);
  const float r = coin * total;
  float cdf = 0;
  for (int32_t i = 0; i < k; ++i) {
    cdf += static_cast<float>(order[static_cast<size_t>(i)].prob);
    if (r < cdf) return order[static_cast<size_t>(i)].index;
  }
  return order[static_cast<size_t>(k - 1)].index;
}

template <typename T>
int32_t Sampler::sample_topp(T* probabilities, float coin) {
  // Tokens below (1 - topp) / (n - 1) cannot be part of the nucleus: leave them out before sorting.
  const float cutoff = (1.0f - topp_) / static_cast<float>(vocab_size_ - 1);
  std::vector<ProbIndex<T>> order;
  order.reserve(static_cast<size_t>(vocab_size_));
  for (int32_t i = 0; i < vocab_size_; ++i) {
    if (probabilities[i] >= cutoff) order.push_back({probabilities[i], i});
  }
  std::sort(order.begin(), order.end(), by_probability<T>);
  T cumulative = 0;
  size_t last = order.size() - 1;
  for (size_t i = 0; i < order.size(); ++i) {
    cumulative += order[i].prob;
    if (cumulative > topp_) {
      last = i;
      break;
    }
  }
  const T r = coin * cumulative;
  T cdf = 0;
  for (size_t i = 0; i <= last; ++i) {
    cdf += order[i].prob;
    if (r < cdf) return order[i].index;
  }
  return order[last].index;
}

int32_t Sampler::sample_floats(float* logits) {
  if (inv_temperature_ == 0.0f) return sample_argmax(logits);
  for (int32_t i = 0; i < vocab_size_; ++i) logits[i] *= inv_temperature_;
  softmax_in_place(logits, vocab_size_);
  const float coin = next_f32(&rng_state_);
  if (topk_ > 0 && topk_ < vocab_size_) return sample_topk(logits, coin);
  if (topp_ <= 0 || topp_ >= 1) return sample_mult(logits, coin);
  return sample_topp(logits, coin);
}

}  // namespace llm
}  // namespace extension
}  // namespace executorch
