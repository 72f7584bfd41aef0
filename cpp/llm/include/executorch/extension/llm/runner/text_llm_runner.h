#pragma once
// A text-generation runner over an LLM program exported by upstream's export_llama -kv (upstream:
// extension/llm/runner/text_llm_runner.h: TextLLMRunner with its constructor from parts, load, is_loaded, generate,
// prefill, warmup, stop, reset): forward(tokens int64[1, n], input_pos int64[1]) -> logits, the KV cache in the
// program's mutable buffers, the metadata methods of constants.h. As upstream's, it is made of a TextPrefiller and a
// TextTokenGenerator over one TextDecoderRunner and IOManager (text_prefiller.h, text_token_generator.h,
// text_decoder_runner.h, io_manager/io_manager.h); generate() prints each piece of text to stdout (and passes it
// to the callback), continues from where the last generate() / prefill() stopped until reset(), and ends with
// print_report(). The prompt is prefilled in one call per chunk of max_seq_len tokens when the program has a
// dynamic sequence length, token by token otherwise.
//
// Build one with create_text_llm_runner() (llm_runner_helper.h, which uses the constructor from components as
// upstream's does), with that constructor, or with ours from a Module and a tokenizer (load() then makes the
// components the way create_text_llm_runner does).
//
// Differs from upstream: load() also checks the program (a KV cache, forward taking (tokens, input_pos), the
// tokenizer's vocabulary equal to the model's) and refuses a prompt that does not fit the context with a message
// (last_error()); each generate() gives the decoder runner a fresh Sampler seeded with its config's seed and
// top-p (upstream keeps the one it was made with); a stop() made before the decode loop starts (e.g. from the
// callback of the first token) ends it after its first token (upstream's loop clears it); the time stamps of
// Stats are microseconds (stats.h); no prefill() of MultimodalInputs. Ours: step(), sample() and the accessors.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <executorch/extension/llm/runner/irunner.h>
#include <executorch/extension/llm/runner/io_manager/io_manager.h>
#include <executorch/extension/llm/runner/stats.h>
#include <executorch/extension/llm/runner/text_decoder_runner.h>
#include <executorch/extension/llm/runner/text_prefiller.h>
#include <executorch/extension/llm/runner/text_token_generator.h>
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
  // Upstream's: from the program's metadata (get_llm_metadata's) and the parts, which the runner owns from then
  // on; the prefiller and token generator must already point at text_decoder_runner, which points at module and
  // io_manager, and the token generator at tokenizer and stats. temperature as below.
  explicit TextLLMRunner(std::unordered_map<std::string, int64_t> metadata,
                         std::unique_ptr<::tokenizers::Tokenizer> tokenizer,
                         std::unique_ptr<::executorch::extension::Module> module,
                         std::unique_ptr<TextDecoderRunner> text_decoder_runner,
                         std::unique_ptr<TextPrefiller> text_prefiller, std::unique_ptr<IOManager> io_manager,
                         std::unique_ptr<TextTokenGenerator> text_token_generator, std::unique_ptr<Stats> stats,
                         float temperature = -1.0f);
  // Ours. temperature -1: each generate() uses its config's temperature; otherwise this one (upstream's
  // deprecated runner temperature). method_name: the program's decoder method.
  TextLLMRunner(std::unique_ptr<::executorch::extension::Module> module,
                std::unique_ptr<::tokenizers::Tokenizer> tokenizer, float temperature = -1.0f,
                const std::string& method_name = "forward");
  ~TextLLMRunner() override;
  TextLLMRunner(const TextLLMRunner&) = delete;
  TextLLMRunner& operator=(const TextLLMRunner&) = delete;

  bool is_loaded() const override;
  // Loads the program and its method, reads the metadata and makes the parts (when made from a Module), checks
  // the program, then loads the prefiller, the IOManager and the token generator as upstream's. Called by
  // generate() and prefill() when needed.
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
