#pragma once
// Generation settings and the runner interface (upstream: extension/llm/runner/irunner.h: the same fields,
// defaults and resolve_max_new_tokens, plus top-p and a seed for sampling).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <executorch/extension/llm/runner/stats.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace extension {
namespace llm {

class MultimodalInput;  // multimodal_input.h

struct GenerationConfig {
  // Pass the prompt's text to the token callback (and stdout) before the generated text.
  bool echo = true;
  // Constrained decoding (upstream's field; not supported here: a non-empty grammar is refused).
  std::string grammar;
  std::string grammar_type;
  // Keep generating after an EOS token, up to max_new_tokens.
  bool ignore_eos = false;
  // Tokens to generate at most (-1: until seq_len or the model's context is full; see resolve_max_new_tokens).
  int32_t max_new_tokens = -1;
  // A warmup run: nothing is printed and no report is written.
  bool warming = false;
  // Prompt + generated tokens at most (-1: the model's max context length).
  int32_t seq_len = -1;
  // 0: greedy (argmax); in (0, 1]: sample from softmax(logits / temperature). The runner's own temperature, when
  // it was given one (not -1), takes precedence.
  float temperature = 0.8f;
  // BOS / EOS tokens the tokenizer puts around the prompt.
  int32_t num_bos = 0;
  int32_t num_eos = 0;
  // Ours: nucleus sampling (the smallest set of tokens whose probabilities add up to topp; upstream's sampler
  // uses 0.9) and the sampler's seed (the same seed gives the same tokens).
  float topp = 0.9f;
  uint64_t seed = 42;

  // How many tokens may be generated after num_tokens_occupied positions of a context of max_context_len:
  // bounded by max_new_tokens and by seq_len (each when not -1) and by the context; never negative.
  int32_t resolve_max_new_tokens(int64_t max_context_len, int64_t num_tokens_occupied) const {
    int64_t room = max_context_len;
    if (seq_len != -1) room = std::min(static_cast<int64_t>(seq_len), max_context_len);
    int64_t result = room - num_tokens_occupied;
    if (max_new_tokens != -1) result = std::min(result, static_cast<int64_t>(max_new_tokens));
    return static_cast<int32_t>(std::max(int64_t{0}, result));
  }
};

// The interface of the runners.
class EXECUTORCH_API IRunner {
 public:
  virtual ~IRunner() = default;
  virtual bool is_loaded() const = 0;
  virtual runtime::Error load() = 0;
  virtual runtime::Error generate(const std::string& prompt, const GenerationConfig& config,
                                  std::function<void(const std::string&)> token_callback,
                                  std::function<void(const Stats&)> stats_callback) = 0;
  // Feeds inputs into the KV cache without generating; returns the token predicted next.
  virtual runtime::Result<uint64_t> prefill(const std::vector<MultimodalInput>& /*inputs*/, int32_t /*num_bos*/ = 0,
                                            int32_t /*num_eos*/ = 0) {
    return runtime::Error::NotSupported;
  }
  virtual void stop() = 0;
  // Forgets the prefilled / generated tokens: the next generate() starts at position 0.
  virtual void reset() = 0;
};

}  // namespace llm
}  // namespace extension
}  // namespace executorch
