#pragma once
// The decode loop of an LLM (upstream: extension/llm/runner/text_token_generator.h, the same class, constructor
// and methods): from the token the prefill predicted, generate() steps the TextDecoderRunner one token at a time
// (with a KV cache; without one, the whole sequence each time), runs the registered LogitProcessors, samples the
// next token at the given temperature, and passes its decoded text to token_callback; it ends after
// max_new_tokens, at an EOS id (unless set_ignore_eos), or after the token during which stop() was called.
//
// Differs from upstream: empty `tokens` give Error::InvalidArgument (upstream aborts), and a missing stats or
// eos_ids is allowed. Not inline (the class is exported from libexecutorch_llm).
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include <executorch/extension/llm/runner/stats.h>
#include <executorch/extension/llm/runner/text_decoder_runner.h>
#include <executorch/extension/llm/sampler/logit_processor.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/export.h>
#include <pytorch/tokenizers/tokenizer.h>

namespace executorch {
namespace extension {
namespace llm {

class EXECUTORCH_API TextTokenGenerator {
 public:
  // Does not own the tokenizer, the decoder runner or the stats: they must outlive it.
  TextTokenGenerator(::tokenizers::Tokenizer* tokenizer, TextDecoderRunner* text_decoder_runner, bool use_kv_cache,
                     std::unique_ptr<std::unordered_set<uint64_t>>&& eos_ids, Stats* stats)
      : tokenizer_(tokenizer),
        text_decoder_runner_(text_decoder_runner),
        eos_ids_(std::move(eos_ids)),
        use_kv_cache_(use_kv_cache),
        stats_(stats) {}
  virtual ~TextTokenGenerator() = default;

  // Keep generating past an EOS id (until max_new_tokens).
  void set_ignore_eos(bool ignore_eos) { ignore_eos_ = ignore_eos; }

  void add_logit_processor(std::shared_ptr<LogitProcessor> processor) {
    if (processor) logit_processors_.push_back(std::move(processor));
  }
  void clear_logit_processors() { logit_processors_.clear(); }
  size_t num_logit_processors() const { return logit_processors_.size(); }
  // Runs the registered processors on `logits`, in order; the first error is returned.
  inline ::executorch::runtime::Error apply_logit_processors(executorch::aten::Tensor& logits) {
    for (auto& processor : logit_processors_) ET_CHECK_OK_OR_RETURN_ERROR(processor->process(logits));
    return ::executorch::runtime::Error::Ok;
  }

  // tokens: with a KV cache, its last element is the token the prefill predicted (the rest is ignored); without
  // one, the prompt and that token. start_pos: that token's position. Generates at most max_new_tokens tokens
  // at `temperature` (in [0, 1], else InvalidArgument); returns how many it generated.
  ::executorch::runtime::Result<int64_t> generate(std::vector<uint64_t> tokens, int64_t start_pos,
                                                  int32_t max_new_tokens, float temperature = 0.0f,
                                                  const std::function<void(const std::string&)>& token_callback = {});

  // Ends a running generate() after the current token (from the callback or another thread).
  inline void stop() { should_stop_.store(true, std::memory_order_relaxed); }

  ::executorch::runtime::Error load() { return text_decoder_runner_->load(); }
  bool inline is_loaded() const { return tokenizer_->is_loaded() && text_decoder_runner_->is_method_loaded(); }

 private:
  ::tokenizers::Tokenizer* tokenizer_;
  TextDecoderRunner* text_decoder_runner_;
  std::unique_ptr<std::unordered_set<uint64_t>> eos_ids_;
  bool use_kv_cache_;
  bool ignore_eos_ = false;
  std::vector<std::shared_ptr<LogitProcessor>> logit_processors_;
  std::atomic<bool> should_stop_{false};
  Stats* stats_;
};

}  // namespace llm
}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::extension::llm::TextTokenGenerator;
}  // namespace executor
}  // namespace torch
