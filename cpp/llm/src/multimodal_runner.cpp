// MultimodalRunner (multimodal_runner.h): the inputs prefilled in order, then the text runner's decode loop.
#include <executorch/extension/llm/runner/multimodal_runner.h>

#include <cinttypes>
#include <cstdio>

#include <executorch/extension/llm/runner/constants.h>
#include <executorch/extension/llm/runner/util.h>
#include <executorch/runtime/platform/log.h>

namespace executorch::extension::llm {

using ::executorch::runtime::Error;
using ::executorch::runtime::Result;

MultimodalRunner::MultimodalRunner(std::unordered_map<std::string, int64_t> metadata,
                                   std::unique_ptr<::tokenizers::Tokenizer> tokenizer, std::unique_ptr<Module> module,
                                   std::unique_ptr<MultimodalDecoderRunner> text_decoder_runner,
                                   std::unique_ptr<MultimodalPrefiller> multimodal_prefiller,
                                   std::unique_ptr<IOManager> io_manager,
                                   std::unique_ptr<TextTokenGenerator> text_token_generator,
                                   std::unique_ptr<Stats> stats)
    : metadata_(std::move(metadata)),
      tokenizer_(std::move(tokenizer)),
      module_(std::move(module)),
      text_decoder_runner_(std::move(text_decoder_runner)),
      multimodal_prefiller_(std::move(multimodal_prefiller)),
      io_manager_(std::move(io_manager)),
      text_token_generator_(std::move(text_token_generator)),
      stats_(std::move(stats)),
      pos_(0) {}

bool MultimodalRunner::is_loaded() const {
  return multimodal_prefiller_->is_method_loaded() && text_token_generator_->is_loaded();
}

Error MultimodalRunner::load() {
  if (is_loaded()) return Error::Ok;
  stats_->model_load_start_ms = time_in_ms();
  Error err = multimodal_prefiller_->load();
  if (err != Error::Ok) return err;
  err = text_token_generator_->load();
  if (err != Error::Ok) return err;
  stats_->model_load_end_ms = time_in_ms();
  return Error::Ok;
}

Result<uint64_t> MultimodalRunner::prefill(const std::vector<MultimodalInput>& inputs, int32_t num_bos,
                                           int32_t num_eos) {
  if (!is_loaded()) {
    const Error err = load();
    if (err != Error::Ok) return err;
  }
  uint64_t last_token = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const MultimodalInput& input = inputs[i];
    int32_t bos = 0, eos = 0;
    if (i == 0 && pos_ == 0) {
      if (input.is_text() || input.is_tokens()) {
        bos = num_bos;
        eos = num_eos;
      } else if (num_bos > 0) {
        // BOS before an image or audio: as tokens of their own.
        auto it = metadata_.find(kBosId);
        if (it != metadata_.end()) {
          auto bos_result = multimodal_prefiller_->prefill(
              MultimodalInput(std::vector<uint64_t>(static_cast<size_t>(num_bos), static_cast<uint64_t>(it->second))),
              pos_);
          if (!bos_result.ok()) return bos_result.error();
          last_token = *bos_result;
        }
      }
    }
    auto next = multimodal_prefiller_->prefill(input, pos_, bos, eos);
    if (!next.ok()) return next.error();
    last_token = *next;
  }
  prefill_next_token_ = last_token;
  return last_token;
}

Error MultimodalRunner::decode_from_token(uint64_t cur_token, const GenerationConfig& config,
                                          const std::function<void(const std::string&)>& wrapped_callback,
                                          const std::function<void(const Stats&)>& stats_callback) {
  stats_->first_token_ms = time_in_ms();
  stats_->prompt_eval_end_ms = stats_->first_token_ms;
  stats_->num_prompt_tokens = pos_;
  const int64_t max_context_len = metadata_.at(kMaxContextLen);
  const int32_t max_new_tokens = config.resolve_max_new_tokens(max_context_len, pos_);
  if (max_new_tokens <= 0) {
    ET_LOG(Error, "no room to generate: max_new_tokens %d, %" PRId64 " of the context's %" PRId64 " positions used",
           config.max_new_tokens, pos_, max_context_len);
    return Error::InvalidArgument;
  }
  auto first = tokenizer_->decode(cur_token, cur_token);
  if (!first.ok()) {
    ET_LOG(Error, "the tokenizer cannot decode token %" PRIu64, cur_token);
    return Error::InvalidArgument;
  }
  wrapped_callback(*first);
  text_token_generator_->set_ignore_eos(config.ignore_eos);
  const auto vocab = metadata_.find(kVocabSize);
  if (vocab != metadata_.end() && vocab->second > 0) {
    text_decoder_runner_->set_sampler(
        std::make_unique<Sampler>(static_cast<int32_t>(vocab->second), config.temperature, config.topp, config.seed));
  }
  // The prefill predicted the first token: max_new_tokens - 1 more.
  auto generated =
      text_token_generator_->generate({cur_token}, pos_, max_new_tokens - 1, config.temperature, wrapped_callback);
  if (!generated.ok()) return generated.error();
  pos_ += *generated;
  stats_->num_generated_tokens = *generated;
  stats_->inference_end_ms = time_in_ms();
  if (!config.warming) {
    std::printf("\n");
    print_report(*stats_);
  }
  if (stats_callback) stats_callback(*stats_);
  return Error::Ok;
}

Error MultimodalRunner::generate(const std::string& prompt, const GenerationConfig& config,
                                 std::function<void(const std::string&)> token_callback,
                                 std::function<void(const Stats&)> stats_callback) {
  std::vector<MultimodalInput> inputs;
  if (!prompt.empty()) inputs.emplace_back(MultimodalInput(prompt));
  return generate(inputs, config, std::move(token_callback), std::move(stats_callback));
}

Error MultimodalRunner::generate(const std::vector<MultimodalInput>& inputs, const GenerationConfig& config,
                                 std::function<void(const std::string&)> token_callback,
                                 std::function<void(const Stats&)> stats_callback) {
  if (inputs.empty() && !prefill_next_token_.has_value()) {
    ET_LOG(Error, "MultimodalInput vector cannot be empty (without a prefill() to continue)");
    return Error::InvalidArgument;
  }
  if (!(config.temperature >= 0.0f && config.temperature <= 1.0f)) {
    ET_LOG(Error, "the temperature must be in [0, 1], got %f", static_cast<double>(config.temperature));
    return Error::InvalidArgument;
  }
  if (!is_loaded()) {
    const Error err = load();
    if (err != Error::Ok) return err;
  }
  std::function<void(const std::string&)> wrapped_callback = [&](const std::string& piece) {
    if (!config.warming) {
      safe_printf(piece.c_str());
      std::fflush(stdout);
    }
    if (token_callback) token_callback(piece);
  };
  stats_->inference_start_ms = time_in_ms();
  uint64_t next = 0;
  if (inputs.empty()) {
    next = *prefill_next_token_;
  } else {
    for (size_t i = 0; i < inputs.size(); ++i) {
      const MultimodalInput& input = inputs[i];
      if (config.echo && i == inputs.size() - 1 && input.is_text()) wrapped_callback(input.get_text());
      const bool first = i == 0 && pos_ == 0 && (input.is_text() || input.is_tokens());
      auto token = multimodal_prefiller_->prefill(input, pos_, first ? config.num_bos : 0, first ? config.num_eos : 0);
      if (!token.ok()) return token.error();
      next = *token;
    }
  }
  prefill_next_token_.reset();
  return decode_from_token(next, config, wrapped_callback, stats_callback);
}

}  // namespace executorch::extension::llm
