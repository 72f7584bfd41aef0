// The text runner (text_llm_runner.h): its parts, load()'s checks, prefill and generate over the prefiller and the
// token generator, stats; and our step() / sample().
#include <executorch/extension/llm/runner/text_llm_runner.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>

#include <executorch/extension/llm/runner/util.h>
#include <executorch/extension/llm/sampler/sampler.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/platform/log.h>

#include "runner_parts.h"

namespace executorch {
namespace extension {
namespace llm {

using executorch::extension::Module;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Result;

struct TextLLMRunner::Impl {
  // Upstream's parts, in upstream's order (destroyed in reverse: the users before what they point at).
  std::unique_ptr<::tokenizers::Tokenizer> tokenizer;
  std::unordered_map<std::string, int64_t> metadata;
  std::unique_ptr<Module> module;
  std::unique_ptr<TextDecoderRunner> decoder;
  std::unique_ptr<TextPrefiller> prefiller;
  std::unique_ptr<IOManager> io_manager;
  std::unique_ptr<TextTokenGenerator> generator;
  std::unique_ptr<Stats> stats = std::make_unique<Stats>();
  float temperature = -1.0f;
  std::string method = "forward";
  // The program passed load()'s checks.
  bool checked = false;
  std::unordered_set<uint64_t> eos;
  int64_t max_tokens_per_call = 1;
  // The logits' length (the sampler's vocabulary).
  int32_t vocab = 0;
  std::atomic<bool> stop{false};
  unsigned long long seed = 42;
  std::unique_ptr<Sampler> sampler;
  std::string error;
  // The next free position of the KV cache, and the token the last prefill() predicted.
  int64_t pos = 0;
  std::optional<uint64_t> prefill_next_token;

  Error fail(Error e, const char* fmt, ...) __attribute__((format(printf, 3, 4))) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    error = buf;
    ET_LOG(Error, "TextLLMRunner: %s", buf);
    return e;
  }
  int64_t meta(const char* key) const {
    auto it = metadata.find(key);
    return it == metadata.end() ? 0 : it->second;
  }
  // The prompt's tokens; an error for a prompt the tokenizer cannot encode or that encodes to nothing.
  Result<std::vector<uint64_t>> encode(const std::string& prompt, int32_t num_bos, int32_t num_eos) {
    auto encoded = tokenizer->encode(prompt, static_cast<int8_t>(num_bos), static_cast<int8_t>(num_eos));
    if (!encoded.ok()) {
      return fail(Error::InvalidArgument, "the tokenizer cannot encode the prompt (tokenizers error %u)",
                  static_cast<unsigned>(encoded.error()));
    }
    if (encoded->empty()) return fail(Error::InvalidArgument, "the prompt has no tokens");
    return std::move(*encoded);
  }
  // Whether n prompt tokens fit the context after `used` positions, with one more left to generate.
  Error check_fits(int64_t n, int64_t used) {
    const int64_t context = meta(kMaxContextLen);
    if (used + n < context) return Error::Ok;
    return fail(Error::InvalidArgument,
                "the prompt has %" PRId64 " tokens, but the model's context holds %" PRId64 " (%" PRId64
                " positions already used, and one more is needed to generate): shorten the prompt",
                n, context, used);
  }
  // The prefiller over tokens at pos (moved past them); the token predicted after them.
  Result<uint64_t> run_prefill(std::vector<uint64_t>& tokens) {
    const int64_t start = pos;
    auto next = prefiller->prefill(tokens, pos);
    if (!next.ok()) {
      return fail(next.error(), "the prefill at position %" PRId64 " failed (error 0x%x): %s", start,
                  static_cast<unsigned>(next.error()), executorch::runtime::last_error_message());
    }
    return *next;
  }
};

TextLLMRunner::TextLLMRunner(std::unordered_map<std::string, int64_t> metadata,
                             std::unique_ptr<::tokenizers::Tokenizer> tokenizer, std::unique_ptr<Module> module,
                             std::unique_ptr<TextDecoderRunner> text_decoder_runner,
                             std::unique_ptr<TextPrefiller> text_prefiller, std::unique_ptr<IOManager> io_manager,
                             std::unique_ptr<TextTokenGenerator> text_token_generator, std::unique_ptr<Stats> stats,
                             float temperature)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.tokenizer = std::move(tokenizer);
  m.metadata = std::move(metadata);
  m.module = std::move(module);
  m.decoder = std::move(text_decoder_runner);
  m.prefiller = std::move(text_prefiller);
  m.io_manager = std::move(io_manager);
  m.generator = std::move(text_token_generator);
  if (stats) m.stats = std::move(stats);
  m.temperature = temperature;
  if (m.decoder) m.method = m.decoder->method_name();
}

TextLLMRunner::TextLLMRunner(std::unique_ptr<Module> module, std::unique_ptr<::tokenizers::Tokenizer> tokenizer,
                             float temperature, const std::string& method_name)
    : impl_(std::make_unique<Impl>()) {
  impl_->module = std::move(module);
  impl_->tokenizer = std::move(tokenizer);
  impl_->temperature = temperature;
  impl_->method = method_name;
}

TextLLMRunner::~TextLLMRunner() = default;

bool TextLLMRunner::is_loaded() const {
  const Impl& m = *impl_;
  return m.checked && m.prefiller && m.generator && m.prefiller->is_loaded() && m.generator->is_loaded();
}
const std::string& TextLLMRunner::last_error() const { return impl_->error; }
const Stats& TextLLMRunner::stats() const { return *impl_->stats; }
const std::unordered_map<std::string, int64_t>& TextLLMRunner::metadata() const { return impl_->metadata; }
const std::unordered_set<uint64_t>& TextLLMRunner::eos_ids() const { return impl_->eos; }
::tokenizers::Tokenizer* TextLLMRunner::tokenizer() const { return impl_->tokenizer.get(); }
int64_t TextLLMRunner::pos() const { return impl_->pos; }

void TextLLMRunner::stop() {
  impl_->stop = true;
  if (impl_->generator) {
    impl_->generator->stop();
  } else {
    ET_LOG(Error, "Token generator is not loaded, cannot stop");
  }
}

void TextLLMRunner::reset() {
  impl_->stats->reset();
  impl_->pos = 0;
  impl_->prefill_next_token.reset();
}

Error TextLLMRunner::load() {
  Impl& m = *impl_;
  if (is_loaded()) return Error::Ok;
  if (!m.module || !m.tokenizer) return m.fail(Error::InvalidArgument, "no model or no tokenizer given");
  if (!m.tokenizer->is_loaded()) return m.fail(Error::InvalidArgument, "the tokenizer is not loaded");
  Error e = m.module->load();
  if (e != Error::Ok) return m.fail(e, "cannot load the program (error 0x%x)", static_cast<unsigned>(e));
  if (!m.decoder) {
    // Made from a Module: the parts, as create_text_llm_runner (and upstream's) makes them.
    auto metadata = get_llm_metadata(m.tokenizer.get(), m.module.get());
    if (!metadata.ok()) {
      return m.fail(metadata.error(),
                    "cannot read the program's metadata (it needs a %s method, as export_llama "
                    "writes)",
                    kMaxSeqLen);
    }
    m.metadata = std::move(*metadata);
    TextRunnerParts parts =
        make_text_runner_parts(m.metadata, m.tokenizer.get(), m.module.get(), m.method, m.temperature, m.stats.get());
    m.io_manager = std::move(parts.io_manager);
    m.decoder = std::move(parts.decoder);
    m.prefiller = std::move(parts.prefiller);
    m.generator = std::move(parts.generator);
  }
  if (!m.prefiller || !m.generator || !m.io_manager) {
    return m.fail(Error::InvalidArgument, "no prefiller, token generator or IOManager given");
  }
  if (!m.checked) {
    if (!m.metadata.count(kMaxSeqLen) || !m.metadata.count(kMaxContextLen)) {
      return m.fail(Error::InvalidArgument, "the metadata has no %s or no %s (get_llm_metadata gives both)", kMaxSeqLen,
                    kMaxContextLen);
    }
    if (!m.meta(kUseKVCache)) {
      return m.fail(Error::NotSupported,
                    "the program was exported without a KV cache (use_kv_cache is false): export it with -kv");
    }
    // get_llm_metadata reports the tokenizer's vocabulary (as upstream's); the model's own must be the same.
    auto names = m.module->method_names();
    if (names.ok() && names->count(kVocabSize)) {
      auto v = m.module->get(kVocabSize);
      if (v.ok() && v->isInt() && v->toInt() != m.tokenizer->vocab_size()) {
        return m.fail(Error::InvalidArgument,
                      "the tokenizer has %d tokens but the model's vocabulary is %" PRId64
                      ": use the tokenizer the model was exported with",
                      m.tokenizer->vocab_size(), v->toInt());
      }
    }
    auto meta = m.module->method_meta(m.method);
    if (!meta.ok()) {
      return m.fail(meta.error(), "the program has no method %s (error 0x%x)", m.method.c_str(),
                    static_cast<unsigned>(meta.error()));
    }
    if (meta->num_inputs() != 2) {
      return m.fail(Error::InvalidProgram,
                    "%s takes %zu inputs; expected (tokens, input_pos) as export_llama -kv writes", m.method.c_str(),
                    meta.ok() ? meta->num_inputs() : size_t{0});
    }
    m.max_tokens_per_call = 1;
    if (m.meta(kEnableDynamicShape)) {
      auto info = meta->input_tensor_meta(0);
      if (info.ok() && info->sizes().size() > 0)
        m.max_tokens_per_call = std::max<int64_t>(1, info->sizes()[info->sizes().size() - 1]);
    }
    m.vocab = static_cast<int32_t>(m.meta(kVocabSize));
    auto out = meta->output_tensor_meta(0);
    if (out.ok() && out->sizes().size() > 0) m.vocab = out->sizes()[out->sizes().size() - 1];
    m.eos = get_eos_ids(m.tokenizer.get(), m.module.get());
    m.checked = true;
  }
  // As upstream's: the prefiller (which loads the decoder's method), the IOManager, the token generator.
  e = m.prefiller->load();
  if (e != Error::Ok) {
    return m.fail(e, "cannot load the program's %s method (error 0x%x): %s", m.method.c_str(), static_cast<unsigned>(e),
                  executorch::runtime::last_error_message());
  }
  e = m.io_manager->load();
  if (e != Error::Ok) return m.fail(e, "the IOManager failed to load (error 0x%x)", static_cast<unsigned>(e));
  e = m.generator->load();
  if (e != Error::Ok) return m.fail(e, "the token generator failed to load (error 0x%x)", static_cast<unsigned>(e));
  m.error.clear();
  return Error::Ok;
}

Result<std::vector<float>> TextLLMRunner::step(const std::vector<uint64_t>& tokens, int64_t start_pos) {
  Impl& m = *impl_;
  Error e = load();
  if (e != Error::Ok) return e;
  if (tokens.empty()) return m.fail(Error::InvalidArgument, "no tokens to feed");
  std::vector<float> logits;
  int64_t pos = start_pos;
  for (size_t i = 0; i < tokens.size(); i += static_cast<size_t>(m.max_tokens_per_call)) {
    const size_t n = std::min(tokens.size() - i, static_cast<size_t>(m.max_tokens_per_call));
    std::vector<int64_t> chunk(tokens.begin() + static_cast<std::ptrdiff_t>(i),
                               tokens.begin() + static_cast<std::ptrdiff_t>(i + n));
    auto tok = make_tensor_ptr<int64_t>({1, static_cast<executorch::aten::SizesType>(n)}, std::move(chunk));
    auto p = make_tensor_ptr<int64_t>({1}, std::vector<int64_t>{pos});
    auto out = m.module->execute(m.method, {EValue(*tok), EValue(*p)});
    if (!out.ok()) {
      return m.fail(out.error(), "%s failed at position %" PRId64 ": %s", m.method.c_str(), pos,
                    executorch::runtime::last_error_message());
    }
    if (out->empty() || !(*out)[0].isTensor()) return m.fail(Error::InvalidProgram, "the program returned no logits");
    const auto& t = (*out)[0].toTensor();
    if (t.scalar_type() != executorch::aten::ScalarType::Float || t.dim() < 1) {
      return m.fail(Error::NotSupported, "the logits are not a Float tensor (dtype %d)",
                    static_cast<int>(t.scalar_type()));
    }
    const int64_t vocab = t.size(t.dim() - 1);
    const float* data = t.const_data_ptr<float>() + (t.numel() - vocab);  // the last position's row
    logits.assign(data, data + vocab);
    pos += static_cast<int64_t>(n);
  }
  return logits;
}

uint64_t TextLLMRunner::sample(const std::vector<float>& logits, float temperature, float topp) {
  if (logits.empty()) return 0;
  if (temperature <= 0.0f) {
    return static_cast<uint64_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
  }
  Impl& m = *impl_;
  const int32_t vocab = static_cast<int32_t>(logits.size());
  if (!m.sampler) m.sampler = std::make_unique<Sampler>(vocab, temperature, topp, m.seed);
  m.sampler->set_temperature(temperature);
  std::vector<float> work(logits);
  return static_cast<uint64_t>(m.sampler->sample(work.data()));
}

Result<uint64_t> TextLLMRunner::prefill(const std::string& prompt, int32_t num_bos, int32_t num_eos) {
  Impl& m = *impl_;
  Error e = load();
  if (e != Error::Ok) return e;
  auto tokens = m.encode(prompt, num_bos, num_eos);
  if (!tokens.ok()) return tokens.error();
  e = m.check_fits(static_cast<int64_t>(tokens->size()), m.pos);
  if (e != Error::Ok) return e;
  auto next = m.run_prefill(*tokens);
  if (!next.ok()) return next.error();
  m.prefill_next_token = *next;
  return *next;
}

Result<uint64_t> TextLLMRunner::prefill(const std::string& prompt, const GenerationConfig& config) {
  return prefill(prompt, config.num_bos, config.num_eos);
}

Error TextLLMRunner::generate(const std::string& prompt, const GenerationConfig& config,
                              std::function<void(const std::string&)> token_callback,
                              std::function<void(const Stats&)> stats_callback) {
  Impl& m = *impl_;
  if (!is_loaded()) {
    m.stats->model_load_start_ms = stats_time();
    Error e = load();
    if (e != Error::Ok) return e;
    m.stats->model_load_end_ms = stats_time();
  }
  if (!config.grammar.empty()) {
    return m.fail(Error::NotSupported, "constrained decoding (GenerationConfig::grammar) is not supported");
  }
  const float temperature = m.temperature == -1.0f ? config.temperature : m.temperature;
  if (!(temperature >= 0.0f && temperature <= 1.0f)) {
    return m.fail(Error::InvalidArgument, "the temperature must be in [0, 1], got %f",
                  static_cast<double>(temperature));
  }
  const bool quiet = config.warming;
  TextTokenGenerator* generator = m.generator.get();
  // Prints and passes on each piece; a stop() from before the decode loop is handed to the loop.
  std::function<void(const std::string&)> emit = [&](const std::string& piece) {
    if (!quiet) {
      safe_printf(piece.c_str());
      std::fflush(stdout);
    }
    if (token_callback) token_callback(piece);
    if (m.stop) generator->stop();
  };
  m.stop = false;
  m.seed = config.seed;
  m.sampler.reset();
  m.stats->inference_start_ms = stats_time();
  const int64_t max_seq_len = m.meta(kMaxSeqLen);
  const int64_t context = m.meta(kMaxContextLen);
  int64_t num_prompt_tokens = 0;
  uint64_t cur = 0;
  std::vector<uint64_t> tokens;
  if (!prompt.empty()) {
    auto encoded = m.encode(prompt, config.num_bos, config.num_eos);
    if (!encoded.ok()) return encoded.error();
    tokens = std::move(*encoded);
    m.stats->token_encode_end_ms = stats_time();
    num_prompt_tokens = static_cast<int64_t>(tokens.size());
    // A sliding-window program (max_seq_len < max_context_len) recycles its cache: only the prompt must fit.
    Error e = m.check_fits(num_prompt_tokens, max_seq_len >= context ? m.pos : 0);
    if (e != Error::Ok) return e;
    if (config.echo) emit(prompt);
    // As upstream's: the prefiller picks the first token greedily.
    auto next = m.run_prefill(tokens);
    if (!next.ok()) return next.error();
    cur = *next;
    m.prefill_next_token.reset();
  } else {
    if (!m.prefill_next_token.has_value()) {
      return m.fail(Error::InvalidState, "an empty prompt continues a prefill(): call prefill() first");
    }
    cur = *m.prefill_next_token;
    m.prefill_next_token.reset();
  }
  const int64_t effective_pos = max_seq_len < context ? 0 : m.pos;
  const int32_t max_new = config.resolve_max_new_tokens(context, effective_pos);
  if (max_new <= 0) {
    return m.fail(Error::InvalidArgument,
                  "no room to generate: max_new_tokens %d, seq_len %d, %" PRId64 " of the context's %" PRId64
                  " positions used",
                  config.max_new_tokens, config.seq_len, m.pos, context);
  }
  m.stats->first_token_ms = stats_time();
  m.stats->prompt_eval_end_ms = m.stats->first_token_ms;
  auto first = m.tokenizer->decode(cur, cur);
  if (!first.ok()) {
    return m.fail(Error::InvalidArgument, "the tokenizer cannot decode token %" PRIu64, cur);
  }
  emit(*first);
  // The decode loop: the token generator, sampling with this generate()'s seed and top-p.
  tokens.push_back(cur);
  m.generator->set_ignore_eos(config.ignore_eos);
  if (m.vocab > 0) m.decoder->set_sampler(std::make_unique<Sampler>(m.vocab, temperature, config.topp, config.seed));
  const int64_t start = m.pos;
  auto generated = m.generator->generate(tokens, m.pos, max_new - 1, temperature, emit);
  if (!generated.ok()) {
    return m.fail(generated.error(), "the generation from position %" PRId64 " failed (error 0x%x): %s", start,
                  static_cast<unsigned>(generated.error()), executorch::runtime::last_error_message());
  }
  m.pos += *generated;
  m.stats->inference_end_ms = stats_time();
  if (!quiet) std::printf("\n");
  m.stats->num_prompt_tokens = prompt.empty() ? m.pos : num_prompt_tokens;
  m.stats->num_generated_tokens = *generated;
  if (!quiet) print_report(*m.stats);
  if (stats_callback) stats_callback(*m.stats);
  return Error::Ok;
}

Error TextLLMRunner::warmup(const std::string& prompt, int32_t max_new_tokens) {
  GenerationConfig config;
  config.echo = false;
  config.max_new_tokens = max_new_tokens;
  config.warming = true;
  const Error err = generate(prompt, config);
  reset();
  return err;
}

}  // namespace llm
}  // namespace extension
}  // namespace executorch
