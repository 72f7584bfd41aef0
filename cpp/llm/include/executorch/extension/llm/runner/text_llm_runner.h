#pragma once
// A text-generation runner over an LLM program exported by upstream's export_llama -kv (upstream:
// extension/llm/runner/text_llm_runner.h: TextLLMRunner with load, is_loaded, generate, prefill, warmup, stop,
// reset): forward(tokens int64[1, n], input_pos int64[1]) -> logits, the KV cache in the program's mutable
// buffers, the metadata methods of constants.h. As upstream's, generate() prints each piece of text to stdout
// (and passes it to the callback), continues from where the last generate() / prefill() stopped until reset(),
// and ends with print_report(). The prompt is prefilled in one call when the program has a dynamic sequence
// length (in chunks of its bound), token by token otherwise.
//
// Build one with create_text_llm_runner() (llm_runner_helper.h) or the constructor below; upstream's constructor
// from its decoder / prefiller / token-generator components is not provided.
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
#include <executorch/extension/module/module.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/export.h>
#include <pytorch/tokenizers/tokenizer.h>
// upstream's header includes the helpers too.
#include <executorch/extension/llm/runner/llm_runner_helper.h>

namespace executorch {
namespace extension {
namespace llm {

class EXECUTORCH_API TextLLMRunner : public IRunner {
 public:
  // temperature -1: each generate() uses its config's temperature; otherwise this one (upstream's deprecated
  // runner temperature). method_name: the program's decoder method.
  TextLLMRunner(std::unique_ptr<::executorch::extension::Module> module,
                std::unique_ptr<::tokenizers::Tokenizer> tokenizer, float temperature = -1.0f,
                const std::string& method_name = "forward");
  ~TextLLMRunner() override;
  TextLLMRunner(const TextLLMRunner&) = delete;
  TextLLMRunner& operator=(const TextLLMRunner&) = delete;

  bool is_loaded() const override;
  // Loads the program and its method and reads the metadata; checks the tokenizer against the model's
  // vocabulary. Called by generate() when needed.
  ::executorch::runtime::Error load() override;
  // Generates from `prompt` (empty: from the token a prefill() predicted): token_callback receives each piece
  // of text as it is generated (the prompt first with config.echo), stats_callback the timings at the end.
  ::executorch::runtime::Error generate(const std::string& prompt, const GenerationConfig& config,
                                        std::function<void(const std::string&)> token_callback = {},
                                        std::function<void(const Stats&)> stats_callback = {}) override;
  using IRunner::prefill;
  // Feeds a prompt into the KV cache after what is there; returns the token predicted next (the next
  // generate("") starts from it).
  ::executorch::runtime::Result<uint64_t> prefill(const std::string& prompt, int32_t num_bos = 0, int32_t num_eos = 0);
  ::executorch::runtime::Result<uint64_t> prefill(const std::string& prompt, const GenerationConfig& config);
  // Runs generate() once without output, then reset().
  ::executorch::runtime::Error warmup(const std::string& prompt, int32_t max_new_tokens);
  // Asks a running generate() (from a callback or another thread) to stop after the current token.
  void stop() override;
  // Clears the stats and the position: the next generate() starts at position 0.
  void reset() override;

  // Ours, lower level: feeds `tokens` at positions start_pos.. (chunked as the program allows) and returns the
  // logits after the last one (a copy). Does not move the runner's position.
  ::executorch::runtime::Result<std::vector<float>> step(const std::vector<uint64_t>& tokens, int64_t start_pos);
  // Ours: the next token from logits (argmax at temperature 0, else upstream's Sampler with topp, seeded by the
  // last generate()'s config.seed).
  uint64_t sample(const std::vector<float>& logits, float temperature, float topp);
  // Ours: what the last failing call said, in words (empty when none failed).
  const std::string& last_error() const;
  const Stats& stats() const;
  // The metadata (get_llm_metadata's, after load()) and the EOS ids.
  const std::unordered_map<std::string, int64_t>& metadata() const;
  const std::unordered_set<uint64_t>& eos_ids() const;
  ::tokenizers::Tokenizer* tokenizer() const;
  // Positions of the KV cache in use (prefilled and generated tokens).
  int64_t pos() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace llm
}  // namespace extension
}  // namespace executorch
