// The text runner: metadata, prefill (one call or chunks / token by token), sampling, the decode loop, stats.
#include <executorch/extension/llm/runner/text_llm_runner.h>

#include <algorithm>
#include <cstdarg>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>

#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {
namespace llm {

using executorch::extension::module::Module;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Result;

namespace {

// Stats' time unit (microseconds).
int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::string stats_to_string(const Stats& s) {
  char buf[256];
  std::snprintf(
      buf, sizeof(buf),
      "prompt %lld tokens, generated %lld; time to first token %.1f ms; prefill %.1f tokens/s, decode "
      "%.1f tokens/s",
      static_cast<long long>(s.num_prompt_tokens), static_cast<long long>(s.num_generated_tokens),
      1e3 * static_cast<double>(s.first_token_ms - s.inference_start_ms) / Stats::SCALING_FACTOR_UNITS_PER_SECOND,
      s.prefill_tokens_per_second(), s.decode_tokens_per_second());
  return buf;
}

std::string stats_to_json_string(const Stats& s) {
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "{\"prompt_tokens\":%lld,\"generated_tokens\":%lld,\"model_load_start_ms\":%lld,"
                "\"model_load_end_ms\":%lld,\"inference_start_ms\":%lld,\"token_encode_end_ms\":%lld,"
                "\"prompt_eval_end_ms\":%lld,\"first_token_ms\":%lld,\"inference_end_ms\":%lld,"
                "\"aggregate_sampling_time_ms\":%lld,\"SCALING_FACTOR_UNITS_PER_SECOND\":%lld}",
                static_cast<long long>(s.num_prompt_tokens), static_cast<long long>(s.num_generated_tokens),
                static_cast<long long>(s.model_load_start_ms), static_cast<long long>(s.model_load_end_ms),
                static_cast<long long>(s.inference_start_ms), static_cast<long long>(s.token_encode_end_ms),
                static_cast<long long>(s.prompt_eval_end_ms), static_cast<long long>(s.first_token_ms),
                static_cast<long long>(s.inference_end_ms), static_cast<long long>(s.aggregate_sampling_time_ms),
                static_cast<long long>(Stats::SCALING_FACTOR_UNITS_PER_SECOND));
  return buf;
}

struct TextLLMRunner::Impl {
  std::unique_ptr<Module> module;
  std::unique_ptr<Tokenizer> tokenizer;
  float temperature = -1.0f;
  bool loaded = false;
  std::unordered_map<std::string, int64_t> metadata;
  std::unordered_set<uint64_t> eos;
  int64_t max_tokens_per_call = 1;
  std::atomic<bool> stop{false};
  std::mt19937_64 rng;
  Stats stats;
  std::string error;

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

  // The int outputs of a metadata method (none when the program lacks it).
  std::vector<int64_t> read_ints(const std::string& name) {
    std::vector<int64_t> v;
    auto names = module->method_names();
    if (!names.ok() || names->count(name) == 0) return v;
    auto out = module->execute(name);
    if (!out.ok()) return v;
    for (const EValue& e : *out) {
      if (e.isInt()) v.push_back(e.toInt());
      if (e.isBool()) v.push_back(e.toBool() ? 1 : 0);
    }
    return v;
  }
};

TextLLMRunner::TextLLMRunner(std::unique_ptr<Module> module, std::unique_ptr<Tokenizer> tokenizer, float temperature)
    : impl_(std::make_unique<Impl>()) {
  impl_->module = std::move(module);
  impl_->tokenizer = std::move(tokenizer);
  impl_->temperature = temperature;
}

TextLLMRunner::~TextLLMRunner() = default;

bool TextLLMRunner::is_loaded() const { return impl_->loaded; }
const std::string& TextLLMRunner::last_error() const { return impl_->error; }
const Stats& TextLLMRunner::stats() const { return impl_->stats; }
const std::unordered_map<std::string, int64_t>& TextLLMRunner::metadata() const { return impl_->metadata; }
const std::unordered_set<uint64_t>& TextLLMRunner::eos_ids() const { return impl_->eos; }
Tokenizer* TextLLMRunner::tokenizer() const { return impl_->tokenizer.get(); }
void TextLLMRunner::stop() { impl_->stop = true; }
void TextLLMRunner::reset() { impl_->stats.reset(); }

Error TextLLMRunner::load() {
  Impl& m = *impl_;
  if (m.loaded) return Error::Ok;
  if (!m.module || !m.tokenizer) return m.fail(Error::InvalidArgument, "no model or no tokenizer given");
  m.stats.model_load_start_ms = now_ms();
  Error e = m.module->load();
  if (e != Error::Ok) return m.fail(e, "cannot load the program (error 0x%x)", static_cast<unsigned>(e));
  e = m.module->load_method("forward");
  if (e != Error::Ok) {
    return m.fail(e, "cannot load the program's forward method (error 0x%x): %s", static_cast<unsigned>(e),
                  executorch::runtime::last_error_message());
  }
  auto one = [&](const char* name, int64_t dflt) {
    auto v = m.read_ints(name);
    m.metadata[name] = v.empty() ? dflt : v[0];
  };
  one("get_max_seq_len", 128);
  one("get_max_context_len", m.metadata["get_max_seq_len"]);
  one("get_vocab_size", m.tokenizer->vocab_size());
  one("use_kv_cache", 1);
  one("enable_dynamic_shape", 0);
  one("get_bos_id", static_cast<int64_t>(m.tokenizer->bos_tok()));
  for (int64_t id : m.read_ints("get_eos_ids")) m.eos.insert(static_cast<uint64_t>(id));
  if (m.eos.empty()) m.eos.insert(m.tokenizer->eos_tok());
  if (!m.metadata["use_kv_cache"]) {
    return m.fail(Error::NotSupported,
                  "the program was exported without a KV cache (use_kv_cache is false): "
                  "export it with -kv");
  }
  if (m.metadata["get_vocab_size"] != m.tokenizer->vocab_size()) {
    return m.fail(Error::InvalidArgument,
                  "the tokenizer has %d tokens but the model's vocabulary is %lld: use the tokenizer the model was "
                  "exported with",
                  m.tokenizer->vocab_size(), static_cast<long long>(m.metadata["get_vocab_size"]));
  }
  auto meta = m.module->method_meta("forward");
  if (!meta.ok() || meta->num_inputs() != 2) {
    return m.fail(Error::InvalidProgram,
                  "forward takes %zu inputs; expected (tokens, input_pos) as export_llama -kv "
                  "writes",
                  meta.ok() ? meta->num_inputs() : size_t{0});
  }
  m.max_tokens_per_call = 1;
  if (m.metadata["enable_dynamic_shape"]) {
    auto info = meta->input_tensor_meta(0);
    if (info.ok() && !info->sizes().empty())
      m.max_tokens_per_call = std::max<int64_t>(1, info->sizes()[info->sizes().size() - 1]);
  }
  m.stats.model_load_end_ms = now_ms();
  m.loaded = true;
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
    auto out = m.module->execute("forward", {EValue(*tok), EValue(*p)});
    if (!out.ok()) {
      return m.fail(out.error(), "forward failed at position %lld: %s", static_cast<long long>(pos),
                    executorch::runtime::last_error_message());
    }
    if (out->empty() || !(*out)[0].isTensor()) return m.fail(Error::InvalidProgram, "forward returned no logits");
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
  const float mx = *std::max_element(logits.begin(), logits.end());
  std::vector<double> p(logits.size());
  double sum = 0;
  for (size_t i = 0; i < p.size(); ++i) sum += p[i] = std::exp(static_cast<double>(logits[i] - mx) / temperature);
  std::vector<size_t> order(p.size());
  std::iota(order.begin(), order.end(), size_t{0});
  size_t keep = p.size();
  if (topp < 1.0f) {
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] > p[b]; });
    double cum = 0;
    for (keep = 0; keep < order.size();) {
      cum += p[order[keep++]] / sum;
      if (cum >= topp) break;
    }
  }
  double total = 0;
  for (size_t k = 0; k < keep; ++k) total += p[order[k]];
  std::uniform_real_distribution<double> u(0.0, total);
  double r = u(impl_->rng);
  for (size_t k = 0; k < keep; ++k) {
    r -= p[order[k]];
    if (r <= 0) return order[k];
  }
  return order[keep - 1];
}

Error TextLLMRunner::generate(const std::string& prompt, const GenerationConfig& config,
                              std::function<void(const std::string&)> token_callback,
                              std::function<void(const Stats&)> stats_callback) {
  Impl& m = *impl_;
  Error e = load();
  if (e != Error::Ok) return e;
  m.stop = false;
  const int64_t load_start = m.stats.model_load_start_ms, load_end = m.stats.model_load_end_ms;
  m.stats.reset();
  m.stats.model_load_start_ms = load_start;
  m.stats.model_load_end_ms = load_end;
  m.stats.inference_start_ms = now_ms();
  m.rng.seed(config.seed);
  const float temperature = m.temperature >= 0.0f ? m.temperature : config.temperature;
  const int64_t context = m.metadata["get_max_context_len"];
  const int64_t limit = config.seq_len > 0 ? std::min<int64_t>(config.seq_len, context) : context;
  const int8_t num_bos = config.num_bos >= 0 ? config.num_bos : int8_t{1};
  auto encoded = m.tokenizer->encode(prompt, 0, config.num_eos);
  if (!encoded.ok()) return m.fail(encoded.error(), "the tokenizer cannot encode the prompt");
  std::vector<uint64_t> tokens(static_cast<size_t>(num_bos), static_cast<uint64_t>(m.metadata["get_bos_id"]));
  tokens.insert(tokens.end(), encoded->begin(), encoded->end());
  m.stats.token_encode_end_ms = now_ms();
  const int64_t n = static_cast<int64_t>(tokens.size());
  if (n == 0) return m.fail(Error::InvalidArgument, "the prompt is empty");
  if (n >= limit) {
    return m.fail(Error::InvalidArgument,
                  "the prompt has %lld tokens, but the model's context holds %lld (limit %lld, and one more position "
                  "is needed to generate): shorten the prompt",
                  static_cast<long long>(n), static_cast<long long>(context), static_cast<long long>(limit));
  }
  m.stats.num_prompt_tokens = n;
  if (config.echo && token_callback) token_callback(prompt);
  auto logits = step(tokens, 0);
  if (!logits.ok()) return logits.error();
  m.stats.prompt_eval_end_ms = now_ms();
  int64_t pos = n;
  uint64_t prev = tokens.back();
  const int64_t max_new = config.max_new_tokens > 0 ? config.max_new_tokens : limit - n;
  while (true) {
    const int64_t s0 = now_ms();
    const uint64_t tok = sample(*logits, temperature, config.topp);
    m.stats.aggregate_sampling_time_ms += now_ms() - s0;
    ++m.stats.num_generated_tokens;
    if (m.stats.num_generated_tokens == 1) m.stats.first_token_ms = now_ms();
    const bool eos = m.eos.count(tok) > 0;
    if (!eos && token_callback) {
      auto piece = m.tokenizer->decode(prev, tok);
      if (piece.ok()) token_callback(*piece);
    }
    prev = tok;
    if (eos || m.stop || m.stats.num_generated_tokens >= max_new || pos + 1 > limit) break;
    logits = step({tok}, pos);
    if (!logits.ok()) return logits.error();
    ++pos;
  }
  m.stats.inference_end_ms = now_ms();
  if (stats_callback) stats_callback(m.stats);
  return Error::Ok;
}

Error TextLLMRunner::warmup(const std::string& prompt, int32_t max_new_tokens) {
  GenerationConfig cfg;
  cfg.echo = false;
  cfg.max_new_tokens = max_new_tokens;
  cfg.temperature = 0.0f;
  return generate(prompt, cfg);
}

std::unique_ptr<TextLLMRunner> create_text_llm_runner(const std::string& model_path,
                                                      std::unique_ptr<Tokenizer> tokenizer,
                                                      std::optional<const std::string> data_path, float temperature) {
  if (data_path.has_value()) {
    ET_LOG(Error,
           "create_text_llm_runner: separate data files (.ptd) are not supported; the program must hold its "
           "weights");
    return nullptr;
  }
  std::FILE* f = std::fopen(model_path.c_str(), "rb");
  if (f == nullptr) {
    ET_LOG(Error, "create_text_llm_runner: cannot open %s", model_path.c_str());
    return nullptr;
  }
  std::fclose(f);
  return std::make_unique<TextLLMRunner>(std::make_unique<Module>(model_path, Module::LoadMode::Mmap),
                                         std::move(tokenizer), temperature);
}

}  // namespace llm
}  // namespace extension
}  // namespace executorch
