// TextTokenGenerator::generate (text_token_generator.h): the decode loop.
#include <executorch/extension/llm/runner/text_token_generator.h>

#include <cstdio>

namespace executorch {
namespace extension {
namespace llm {

using ::executorch::runtime::Error;
using ::executorch::runtime::Result;

Result<int64_t> TextTokenGenerator::generate(std::vector<uint64_t> tokens, int64_t start_pos, int32_t max_new_tokens,
                                             float temperature,
                                             const std::function<void(const std::string&)>& token_callback) {
  if (tokens.empty()) {
    ET_LOG(Error, "Token generation loop shouldn't take empty tokens");
    return Error::InvalidArgument;
  }
  if (!(temperature >= 0.0f && temperature <= 1.0f)) {
    ET_LOG(Error, "Temperature must be in [0, 1], got %f", static_cast<double>(temperature));
    return Error::InvalidArgument;
  }
  if (max_new_tokens < 0) max_new_tokens = 0;
  uint64_t cur_token = tokens.back();
  // With a KV cache one [1, 1] token; without, the whole sequence in a tensor sized for all it will hold (so
  // that the vector never reallocates under the view), resized to what it holds.
  std::vector<uint64_t> token_data;
  if (use_kv_cache_) {
    token_data = {cur_token};
  } else {
    token_data = tokens;
    token_data.reserve(token_data.size() + static_cast<size_t>(max_new_tokens));
  }
  const auto held = static_cast<executorch::aten::SizesType>(token_data.size());
  const auto capacity =
      use_kv_cache_ ? held
                    : static_cast<executorch::aten::SizesType>(tokens.size() + static_cast<size_t>(max_new_tokens));
  auto tokens_managed = from_blob(token_data.data(), {1, capacity}, executorch::aten::ScalarType::Long);
  if (!use_kv_cache_) ET_CHECK_OK_OR_RETURN_ERROR(resize_tensor_ptr(tokens_managed, {1, held}));

  should_stop_.store(false, std::memory_order_relaxed);
  int64_t pos = start_pos;
  while (pos < start_pos + max_new_tokens) {
    auto logits = text_decoder_runner_->step(tokens_managed, pos);
    ET_CHECK_OK_OR_RETURN_ERROR(logits.error());
    executorch::aten::Tensor& logits_tensor = logits.get();
    const uint64_t prev_token = cur_token;
    ET_CHECK_OK_OR_RETURN_ERROR(apply_logit_processors(logits_tensor));
    if (stats_ != nullptr) stats_->on_sampling_begin();
    cur_token = static_cast<uint64_t>(text_decoder_runner_->logits_to_token(logits_tensor, temperature));
    if (stats_ != nullptr) stats_->on_sampling_end();
    ++pos;
    if (use_kv_cache_) {
      token_data[0] = cur_token;
    } else {
      token_data.push_back(cur_token);
      ET_CHECK_OK_OR_RETURN_ERROR(
          resize_tensor_ptr(tokens_managed, {1, static_cast<executorch::aten::SizesType>(token_data.size())}));
    }
    auto piece = tokenizer_->decode(prev_token, cur_token);
    if (!piece.ok()) {
      ET_LOG(Error, "Tokenizers error code %d", static_cast<int>(piece.error()));
      return Error::InvalidArgument;
    }
    if (token_callback) token_callback(std::move(*piece));
    if (should_stop_.load(std::memory_order_relaxed)) break;
    if (!ignore_eos_ && eos_ids_ != nullptr && eos_ids_->count(cur_token) > 0) {
      std::printf("\n");
      ET_LOG(Info, "Reached to the end of generation");
      break;
    }
  }
  return pos - start_pos;
}

}  // namespace llm
}  // namespace extension
}  // namespace executorch
