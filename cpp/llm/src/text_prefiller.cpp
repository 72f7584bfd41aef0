// TextPrefiller (text_prefiller.h): chunked, parallel or token-by-token prefill.
#include <executorch/extension/llm/runner/text_prefiller.h>

#include <algorithm>

namespace executorch {
namespace extension {
namespace llm {

using ::executorch::runtime::Error;
using ::executorch::runtime::Result;

namespace {

Error check_temperature(float temperature) {
  if (!(temperature >= 0.0f && temperature <= 1.0f)) {
    ET_LOG(Error, "Temperature must be in [0, 1], got %f", static_cast<double>(temperature));
    return Error::InvalidArgument;
  }
  return Error::Ok;
}

}  // namespace

TextPrefiller::TextPrefiller(TextDecoderRunner* text_decoder_runner, bool use_kv_cache, bool enable_parallel_prefill,
                             int64_t max_seq_len)
    : text_decoder_runner_(text_decoder_runner),
      use_kv_cache_(use_kv_cache),
      enable_parallel_prefill_(enable_parallel_prefill),
      max_seq_len_(max_seq_len > 0 ? max_seq_len : 128) {}

Result<uint64_t> TextPrefiller::prefill(std::vector<uint64_t>& prompt_tokens, int64_t& start_pos) {
  return prefill(prompt_tokens, start_pos, 0.0f);
}

Result<uint64_t> TextPrefiller::prefill(std::vector<uint64_t>& prompt_tokens, int64_t& start_pos, float temperature) {
  if (prompt_tokens.empty()) {
    ET_LOG(Error, "Prompt cannot be null");
    return Error::InvalidArgument;
  }
  ET_CHECK_OK_OR_RETURN_ERROR(check_temperature(temperature));
  if (!text_decoder_runner_->is_method_loaded()) ET_CHECK_OK_OR_RETURN_ERROR(text_decoder_runner_->load());
  const int64_t n = static_cast<int64_t>(prompt_tokens.size());
  if (n <= max_seq_len_) return prefill_chunk(prompt_tokens, start_pos, temperature);
  // Longer than one call takes: chunks of max_seq_len; only the last one's token is sampled at `temperature`.
  uint64_t cur_token = 0;
  for (int64_t done = 0; done < n;) {
    const int64_t len = std::min(n - done, max_seq_len_);
    std::vector<uint64_t> chunk(prompt_tokens.begin() + done, prompt_tokens.begin() + done + len);
    const bool last = done + len >= n;
    auto res = prefill_chunk(chunk, start_pos, last ? temperature : 0.0f);
    ET_CHECK_OK_OR_RETURN_ERROR(res.error());
    cur_token = *res;
    done += len;
  }
  return cur_token;
}

Result<uint64_t> TextPrefiller::prefill_chunk(std::vector<uint64_t>& prompt_tokens, int64_t& start_pos) {
  return prefill_chunk(prompt_tokens, start_pos, 0.0f);
}

Result<uint64_t> TextPrefiller::prefill_chunk(std::vector<uint64_t>& prompt_tokens, int64_t& start_pos,
                                              float temperature) {
  ET_CHECK_OK_OR_RETURN_ERROR(check_temperature(temperature));
  if (prompt_tokens.empty()) {
    ET_LOG(Error, "Prompt cannot be null");
    return Error::InvalidArgument;
  }
  const auto num_prompt_tokens = static_cast<executorch::aten::SizesType>(prompt_tokens.size());
  if (enable_parallel_prefill_ || !use_kv_cache_) {
    // All tokens in one call (start_pos is ignored without a KV cache).
    auto tokens = from_blob(prompt_tokens.data(), {1, num_prompt_tokens}, executorch::aten::ScalarType::Long);
    auto logits = text_decoder_runner_->step(tokens, start_pos);
    ET_CHECK_OK_OR_RETURN_ERROR(logits.error());
    start_pos += num_prompt_tokens;
    return static_cast<uint64_t>(text_decoder_runner_->logits_to_token(*logits, temperature));
  }
  // One token at a time through a [1, 1] view of cur_token.
  uint64_t cur_token = prompt_tokens[0];
  auto tokens = from_blob(&cur_token, {1, 1}, executorch::aten::ScalarType::Long);
  auto logits = text_decoder_runner_->step(tokens, start_pos);
  ET_CHECK_OK_OR_RETURN_ERROR(logits.error());
  start_pos += 1;
  for (size_t pos = 1; pos < prompt_tokens.size(); ++pos) {
    cur_token = prompt_tokens[pos];
    logits = text_decoder_runner_->step(tokens, start_pos);
    ET_CHECK_OK_OR_RETURN_ERROR(logits.error());
    start_pos += 1;
  }
  return static_cast<uint64_t>(text_decoder_runner_->logits_to_token(*logits, temperature));
}

}  // namespace llm
}  // namespace extension
}  // namespace executorch
