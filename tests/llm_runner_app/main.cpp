// llm_runner_app MODEL TOKENIZER PROMPT MAX_NEW_TOKENS
// Upstream's LLM runner API, called as upstream's llama example does: load_tokenizer (with Llama 3's special
// tokens, which only a tiktoken file uses), create_text_llm_runner, warmup, generate with a GenerationConfig and
// both callbacks; then prefill() + generate(""), stop() from a callback, the metadata helpers, the sampler and the
// failure paths (create_multimodal_runner needs upstream's multimodal_runner.h, which this SDK does not have). The
// runner prints the text to stdout itself; what the callbacks saw goes to stderr as "key: value" lines for
// tests/test_llm.py.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <executorch/extension/llm/runner/irunner.h>
#include <executorch/extension/llm/runner/llm_runner_helper.h>
#include <executorch/extension/llm/runner/stats.h>
#include <executorch/extension/llm/runner/text_llm_runner.h>
#include <executorch/extension/llm/sampler/sampler.h>
#include <executorch/extension/module/module.h>
#include <pytorch/tokenizers/tokenizer.h>

namespace llm = ::executorch::extension::llm;
using ::executorch::runtime::Error;

namespace {

std::unique_ptr<std::vector<std::string>> special_tokens() {
  auto tokens = std::make_unique<std::vector<std::string>>(std::vector<std::string>{
      "<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"});
  for (int i = 0; tokens->size() < 256; ++i) tokens->push_back("<|reserved_special_token_" + std::to_string(i) + "|>");
  return tokens;
}

struct Run {
  std::string text;
  int pieces = 0;
  llm::Stats stats;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: llm_runner_app MODEL TOKENIZER PROMPT MAX_NEW_TOKENS\n");
    return 1;
  }
  const std::string model_path = argv[1], tokenizer_path = argv[2], prompt = argv[3];
  const int32_t max_new_tokens = std::atoi(argv[4]);

  // The helpers on their own.
  {
    auto tokenizer = llm::load_tokenizer(tokenizer_path, special_tokens());
    if (tokenizer == nullptr) return 2;
    ::executorch::extension::Module module(model_path);
    auto metadata = llm::get_llm_metadata(tokenizer.get(), &module);
    if (!metadata.ok()) return 2;
    std::fprintf(stderr, "metadata: max_seq_len=%lld max_context_len=%lld vocab_size=%lld bos=%lld kv=%lld\n",
                 static_cast<long long>(metadata->at(llm::kMaxSeqLen)),
                 static_cast<long long>(metadata->at(llm::kMaxContextLen)),
                 static_cast<long long>(metadata->at(llm::kVocabSize)),
                 static_cast<long long>(metadata->at(llm::kBosId)),
                 static_cast<long long>(metadata->at(llm::kUseKVCache)));
    for (uint64_t id : llm::get_eos_ids(tokenizer.get(), &module))
      std::fprintf(stderr, "eos: %llu\n", static_cast<unsigned long long>(id));
  }

  // As runner.cpp: a tokenizer, then the runner (temperature 0: greedy, taking precedence over the config's).
  std::unique_ptr<::tokenizers::Tokenizer> tokenizer = llm::load_tokenizer(tokenizer_path, special_tokens());
  if (tokenizer == nullptr) return 2;
  std::unique_ptr<llm::TextLLMRunner> runner = llm::create_text_llm_runner(
      model_path, std::move(tokenizer), std::vector<std::string>(), 0.0f, nullptr, "forward");
  if (runner == nullptr) return 2;

  // As main.cpp: warmup, then generate with the flags' config.
  if (runner->warmup(prompt, max_new_tokens) != Error::Ok) return 3;
  llm::IRunner* base = runner.get();
  std::fprintf(stderr, "loaded: %d\n", base->is_loaded() ? 1 : 0);
  llm::GenerationConfig config{};
  config.temperature = 0.8f;  // the runner's temperature (0) wins
  config.ignore_eos = false;
  config.num_bos = 1;
  config.num_eos = 0;
  config.echo = false;
  config.max_new_tokens = max_new_tokens;
  Run first;
  Error err = base->generate(
      prompt, config,
      [&first](const std::string& piece) {
        first.text += piece;
        ++first.pieces;
      },
      [&first](const llm::Stats& stats) { first.stats = stats; });
  if (err != Error::Ok) return 3;
  std::fprintf(stderr, "text: [%s]\npieces: %d\nstats: %s\n", first.text.c_str(), first.pieces,
               llm::stats_to_json_string(first.stats).c_str());

  // prefill() then generate(""): the same continuation.
  runner->reset();
  auto next = runner->prefill(prompt, 1, 0);
  if (!next.ok()) return 4;
  Run second;
  config.echo = true;  // nothing to echo: the prompt is empty
  err = runner->generate("", config, [&second](const std::string& piece) { second.text += piece; });
  if (err != Error::Ok) return 4;
  std::fprintf(stderr, "prefill token: %llu\nprefill text: [%s]\n", static_cast<unsigned long long>(*next),
               second.text.c_str());

  // stop() from the callback ends the generation after the token being generated.
  runner->reset();
  Run stopped;
  err = runner->generate(prompt, config, [&](const std::string&) {
    if (++stopped.pieces == 2) runner->stop();
  });
  if (err != Error::Ok) return 5;
  std::fprintf(stderr, "stopped after: %d\n", stopped.pieces);

  // A config beyond the context: refused.
  runner->reset();
  config.seq_len = 2;
  config.max_new_tokens = -1;
  std::fprintf(stderr, "seq_len too small: %d\n", runner->generate(prompt, config) != Error::Ok ? 1 : 0);

  // The sampler: argmax at temperature 0; seeded sampling is repeatable.
  llm::Sampler greedy(4, 0.0f);
  float logits[4] = {0.5f, 3.0f, -1.0f, 2.0f};
  std::fprintf(stderr, "argmax: %d\n", greedy.sample(logits));
  llm::Sampler a(4, 0.7f, llm::kTopp, 7), b(4, 0.7f, llm::kTopp, 7);
  bool same = true;
  for (int i = 0; i < 16; ++i) {
    float x[4] = {0.5f, 3.0f, -1.0f, 2.0f}, y[4] = {0.5f, 3.0f, -1.0f, 2.0f};
    same = same && a.sample(x) == b.sample(y);
  }
  std::fprintf(stderr, "seeded repeatable: %d\n", same ? 1 : 0);

  // Failure paths: no tokenizer file, no tokenizer.
  std::fprintf(stderr, "missing tokenizer: %d\n", llm::load_tokenizer(model_path + ".missing") == nullptr ? 1 : 0);
  std::fprintf(stderr, "null tokenizer: %d\n", llm::create_text_llm_runner(model_path, nullptr) == nullptr ? 1 : 0);
  return 0;
}
