#pragma once
// Generation settings of the text runner (upstream: extension/llm/runner/irunner.h; the same field names, plus
// top-p and a seed for sampling).
#include <cstdint>

namespace executorch {
namespace extension {
namespace llm {

struct GenerationConfig {
  // Pass the prompt's text to the token callback before the generated text.
  bool echo = true;
  // Tokens to generate at most (-1: until seq_len or the model's context is full).
  int32_t max_new_tokens = -1;
  // Unused (upstream runs one silent generation first when set).
  bool warming = false;
  // Prompt + generated tokens at most (-1: the model's max context length).
  int32_t seq_len = -1;
  // 0: greedy (argmax); > 0: sample from softmax(logits / temperature); < 0: the runner's default.
  float temperature = 0.8f;
  // BOS tokens put before the prompt (-1: one when the model declares a BOS id, as upstream's metadata does).
  int8_t num_bos = -1;
  // EOS tokens put after the prompt.
  int8_t num_eos = 0;
  // Nucleus sampling: sample from the smallest set of tokens whose probabilities add up to topp (1: all).
  float topp = 1.0f;
  // Seed of the sampler (the same seed gives the same tokens).
  uint64_t seed = 42;
};

}  // namespace llm
}  // namespace extension
}  // namespace executorch
