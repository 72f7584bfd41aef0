#pragma once
// A text-generation runner over an LLM program exported by upstream's export_llama -kv (upstream:
// extension/llm/runner/text_llm_runner.h): forward(tokens int64[1, n], input_pos int64[1]) -> logits, the KV
// cache in the program's mutable buffers, metadata methods get_max_seq_len, get_max_context_len,
// get_vocab_size, use_kv_cache, enable_dynamic_shape, get_bos_id, get_eos_ids. The prompt is prefilled in one
// call when the program has a dynamic sequence length (in chunks of its bound), token by token otherwise.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <executorch/extension/llm/runner/irunner.h>
#include <executorch/extension/llm/runner/stats.h>
#include <executorch/extension/llm/runner/tokenizer.h>
#include <executorch/extension/module/module.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace extension {
namespace llm {

class EXECUTORCH_API TextLLMRunner {
 public:
  // temperature < 0: each generate() uses its config's temperature; >= 0: overrides it.
  TextLLMRunner(std::unique_ptr<executorch::extension::module::Module> module, std::unique_ptr<Tokenizer> tokenizer,
                float temperature = -1.0f);
  ~TextLLMRunner();
  TextLLMRunner(const TextLLMRunner&) = delete;
  TextLLMRunner& operator=(const TextLLMRunner&) = delete;

  bool is_loaded() const;
  // Loads the program and its forward method and reads the metadata; checks the tokenizer against the model's
  // vocabulary. Called by generate() when needed.
  executorch::runtime::Error load();
  // Generates from `prompt`: token_callback receives each piece of text as it is generated (the prompt first
  // with config.echo), stats_callback the timings at the end. Starts from an empty KV cache.
  executorch::runtime::Error generate(const std::string& prompt, const GenerationConfig& config,
                                      std::function<void(const std::string&)> token_callback = {},
                                      std::function<void(const Stats&)> stats_callback = {});
  // Runs generate() once without output (to warm caches and the thread pool).
  executorch::runtime::Error warmup(const std::string& prompt, int32_t max_new_tokens);
  // Asks a running generate() (from a callback or another thread) to stop after the current token.
  void stop();
  // The next generate() starts from position 0 again (generate() always does).
  void reset();

  // Lower level: feeds `tokens` at positions start_pos.. (chunked as the program allows) and returns the logits
  // after the last one (a copy).
  executorch::runtime::Result<std::vector<float>> step(const std::vector<uint64_t>& tokens, int64_t start_pos);
  // Picks the next token from logits (argmax at temperature 0, else temperature + top-p from the seeded sampler).
  uint64_t sample(const std::vector<float>& logits, float temperature, float topp);

  // What the last failing call said, in words (empty when none failed).
  const std::string& last_error() const;
  const Stats& stats() const;
  // The metadata methods' values (after load()).
  const std::unordered_map<std::string, int64_t>& metadata() const;
  const std::unordered_set<uint64_t>& eos_ids() const;
  Tokenizer* tokenizer() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// upstream: extension/llm/runner/llm_runner_helper.h. A runner for the program at model_path (nullptr when the
// file cannot be opened; load() reports other problems).
EXECUTORCH_API std::unique_ptr<TextLLMRunner> create_text_llm_runner(
    const std::string& model_path, std::unique_ptr<Tokenizer> tokenizer,
    std::optional<const std::string> data_path = std::nullopt, float temperature = -1.0f);

}  // namespace llm
}  // namespace extension
}  // namespace executorch
