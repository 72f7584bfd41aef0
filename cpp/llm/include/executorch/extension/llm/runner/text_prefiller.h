#pragma once
// Feeds a prompt into an LLM's KV cache (upstream: extension/llm/runner/text_prefiller.h, the same class,
// constructor and methods). prefill() runs the tokens through the TextDecoderRunner at start_pos, moves start_pos
// past them and returns the token sampled from the last logits (greedily unless a temperature is given). With
// enable_parallel_prefill (a program with a dynamic sequence length) or without a KV cache, each chunk of at most
// max_seq_len tokens is one step(); otherwise the tokens go one at a time.
//
// Differs from upstream: an empty prompt gives Error::InvalidArgument (upstream aborts).
#include <cstdint>
#include <vector>

#include <executorch/extension/llm/runner/text_decoder_runner.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace extension {
namespace llm {

class EXECUTORCH_API TextPrefiller {
 public:
  // Does not own the decoder runner. max_seq_len <= 0 counts as 128.
  TextPrefiller(TextDecoderRunner* text_decoder_runner, bool use_kv_cache, bool enable_parallel_prefill,
                int64_t max_seq_len = 128);
  virtual ~TextPrefiller() = default;

  // prefill(prompt_tokens, start_pos, 0.0f).
  virtual ::executorch::runtime::Result<uint64_t> prefill(std::vector<uint64_t>& prompt_tokens, int64_t& start_pos);
  // Loads the method if needed, prefills in chunks of max_seq_len, and samples the token after the prompt at
  // `temperature` (in [0, 1], else InvalidArgument).
  virtual ::executorch::runtime::Result<uint64_t> prefill(std::vector<uint64_t>& prompt_tokens, int64_t& start_pos,
                                                          float temperature);
  // One chunk (at most max_seq_len tokens): prefill_chunk(prompt_tokens, start_pos, 0.0f).
  virtual ::executorch::runtime::Result<uint64_t> prefill_chunk(std::vector<uint64_t>& prompt_tokens,
                                                                int64_t& start_pos);
  virtual ::executorch::runtime::Result<uint64_t> prefill_chunk(std::vector<uint64_t>& prompt_tokens,
                                                                int64_t& start_pos, float temperature);

  ::executorch::runtime::Error load() { return text_decoder_runner_->load(); }
  bool inline is_loaded() const { return text_decoder_runner_->is_method_loaded(); }

 private:
  TextDecoderRunner* text_decoder_runner_;
  bool use_kv_cache_;
  bool enable_parallel_prefill_;
  int64_t max_seq_len_;
};

}  // namespace llm
}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::extension::llm::TextPrefiller;
}  // namespace executor
}  // namespace torch
