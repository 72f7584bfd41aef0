#pragma once
// A runner of multimodal programs (upstream: extension/llm/runner/multimodal_runner.h, the same class, constructor
// and methods): images, audio, text and tokens prefilled in order into one KV cache (MultimodalPrefiller), then
// tokens generated as the text runner does (TextTokenGenerator over a MultimodalDecoderRunner). The program has
// upstream's methods (constants.h): token_embedding, text_decoder, and vision_encoder / audio_encoder for the
// inputs it takes. create_multimodal_runner (llm_runner_helper.h) makes one from a file.
//
// Differs from upstream: each generate() samples with its config's seed and top-p (as TextLLMRunner does here), an
// empty prompt continues a prefill(), and errors are returned where upstream aborts.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <executorch/extension/llm/runner/image.h>
#include <executorch/extension/llm/runner/image_prefiller.h>
#include <executorch/extension/llm/runner/io_manager/io_manager.h>
#include <executorch/extension/llm/runner/irunner.h>
#include <executorch/extension/llm/runner/llm_runner_helper.h>
#include <executorch/extension/llm/runner/multimodal_decoder_runner.h>
#include <executorch/extension/llm/runner/multimodal_input.h>
#include <executorch/extension/llm/runner/multimodal_prefiller.h>
#include <executorch/extension/llm/runner/stats.h>
#include <executorch/extension/llm/runner/text_decoder_runner.h>
#include <executorch/extension/llm/runner/text_prefiller.h>
#include <executorch/extension/llm/runner/text_token_generator.h>
#include <executorch/extension/llm/sampler/sampler.h>
#include <executorch/extension/module/module.h>
#include <executorch/runtime/export.h>
#include <pytorch/tokenizers/tokenizer.h>

namespace executorch {
namespace extension {
namespace llm {

class EXECUTORCH_API MultimodalRunner : public IRunner {
 public:
  // Takes ownership of every part; metadata as get_llm_metadata gives it (get_max_context_len, get_vocab_size, ...).
  explicit MultimodalRunner(std::unordered_map<std::string, int64_t> metadata,
                            std::unique_ptr<::tokenizers::Tokenizer> tokenizer, std::unique_ptr<Module> module,
                            std::unique_ptr<MultimodalDecoderRunner> text_decoder_runner,
                            std::unique_ptr<MultimodalPrefiller> multimodal_prefiller,
                            std::unique_ptr<IOManager> io_manager,
                            std::unique_ptr<TextTokenGenerator> text_token_generator, std::unique_ptr<Stats> stats);

  bool is_loaded() const override;
  ::executorch::runtime::Error load() override;

  // generate({MultimodalInput(prompt)}, ...); an empty prompt continues a prefill().
  ::executorch::runtime::Error generate(const std::string& prompt, const GenerationConfig& config,
                                        std::function<void(const std::string&)> token_callback = {},
                                        std::function<void(const Stats&)> stats_callback = {}) override;

  // Prefills the inputs in order (the first, when the cache is empty and it is text or tokens, with the config's
  // num_bos / num_eos), then generates up to config.max_new_tokens tokens (the prefill's prediction first), each
  // piece printed (unless config.warming) and passed to token_callback.
  virtual ::executorch::runtime::Error generate(const std::vector<MultimodalInput>& inputs,
                                                const GenerationConfig& config,
                                                std::function<void(const std::string&)> token_callback = {},
                                                std::function<void(const Stats&)> stats_callback = {});

  // Feeds inputs into the KV cache (chat history, say); a later generate() continues from them. With an empty
  // cache, num_bos BOS tokens come first (through token_embedding when the first input is not text). Returns the
  // token predicted next.
  ::executorch::runtime::Result<uint64_t> prefill(const std::vector<MultimodalInput>& inputs, int32_t num_bos = 0,
                                                  int32_t num_eos = 0) override;
  ::executorch::runtime::Result<uint64_t> prefill(const std::string& prompt, int32_t num_bos = 0, int32_t num_eos = 0) {
    std::vector<MultimodalInput> inputs;
    inputs.emplace_back(MultimodalInput(prompt));
    return prefill(inputs, num_bos, num_eos);
  }

  void stop() override { text_token_generator_->stop(); }
  // Forgets the cache's contents: the next input starts at position 0.
  void reset() override {
    pos_ = 0;
    stats_->reset();
    prefill_next_token_.reset();
  }
  ~MultimodalRunner() override = default;

 protected:
  std::unordered_map<std::string, int64_t> metadata_;
  std::unique_ptr<::tokenizers::Tokenizer> tokenizer_;
  std::unique_ptr<Module> module_;
  std::unique_ptr<MultimodalDecoderRunner> text_decoder_runner_;
  std::unique_ptr<MultimodalPrefiller> multimodal_prefiller_;
  std::unique_ptr<IOManager> io_manager_;
  std::unique_ptr<TextTokenGenerator> text_token_generator_;
  std::unique_ptr<Stats> stats_;
  std::optional<uint64_t> prefill_next_token_;
  int64_t pos_;

 private:
  ::executorch::runtime::Error decode_from_token(uint64_t cur_token, const GenerationConfig& config,
                                                 const std::function<void(const std::string&)>& wrapped_callback,
                                                 const std::function<void(const Stats&)>& stats_callback);
};

}  // namespace llm
}  // namespace extension
}  // namespace executorch
