// llm_runner_app MODEL TOKENIZER PROMPT MAX_NEW_TOKENS
// Upstream's LLM runner API, called as upstream's llama example does: load_tokenizer (with Llama 3's special
// tokens, which only a tiktoken file uses), create_text_llm_runner, warmup, generate with a GenerationConfig and
// both callbacks; then prefill() + generate(""), stop() from a callback, the metadata helpers, the sampler and the
// failure paths (the multimodal runner has its own application, tests/multimodal_app). Then
// upstream's runner parts (io_manager.h, text_decoder_runner.h, text_prefiller.h, text_token_generator.h) on their
// own and assembled into a TextLLMRunner as upstream's llm_runner_helper.cpp does, with their failure paths. The
// runner prints the text to stdout itself; what the callbacks saw goes to stderr as "key: value" lines for
// tests/test_llm.py.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <executorch/extension/llm/runner/io_manager/io_manager.h>

#include <executorch/extension/llm/runner/irunner.h>
#include <executorch/extension/llm/runner/llm_runner_helper.h>
#include <executorch/extension/llm/runner/stats.h>
#include <executorch/extension/llm/runner/text_decoder_runner.h>
#include <executorch/extension/llm/runner/text_llm_runner.h>
#include <executorch/extension/llm/runner/text_prefiller.h>
#include <executorch/extension/llm/runner/text_token_generator.h>
#include <executorch/extension/llm/sampler/logit_processor.h>
#include <executorch/extension/llm/sampler/sampler.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <pytorch/tokenizers/tokenizer.h>

namespace llm = ::executorch::extension::llm;
using ::executorch::extension::Module;
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

// runner.generate(prompt, config) collecting its pieces and stats into *run.
Error generate_into(llm::IRunner& runner, const std::string& prompt, const llm::GenerationConfig& config, Run* run) {
  return runner.generate(
      prompt, config,
      [run](const std::string& piece) {
        run->text += piece;
        ++run->pieces;
      },
      [run](const llm::Stats& stats) { run->stats = stats; });
}

// The parts of a runner over one program, made as upstream's create_text_llm_runner makes them.
struct Parts {
  std::unordered_map<std::string, int64_t> metadata;
  std::unique_ptr<::tokenizers::Tokenizer> tokenizer;
  std::unique_ptr<Module> module;
  std::unique_ptr<llm::IOManager> io_manager;
  std::unique_ptr<llm::TextDecoderRunner> decoder;
  std::unique_ptr<llm::TextPrefiller> prefiller;
  std::unique_ptr<llm::Stats> stats;
  std::unique_ptr<llm::TextTokenGenerator> generator;
};

bool make_parts(const std::string& model_path, const std::string& tokenizer_path, Parts& p,
                const std::string& method = "forward") {
  p.tokenizer = llm::load_tokenizer(tokenizer_path, special_tokens());
  if (p.tokenizer == nullptr) return false;
  p.module = std::make_unique<Module>(model_path);
  auto metadata = llm::get_llm_metadata(p.tokenizer.get(), p.module.get());
  if (!metadata.ok()) return false;
  p.metadata = *metadata;
  auto eos = std::make_unique<std::unordered_set<uint64_t>>(llm::get_eos_ids(p.tokenizer.get(), p.module.get()));
  p.io_manager = std::make_unique<llm::IOManager>(*p.module);
  p.decoder = std::make_unique<llm::TextDecoderRunner>(
      p.module.get(), p.io_manager.get(), method,
      std::make_unique<llm::Sampler>(static_cast<int32_t>(p.metadata.at(llm::kVocabSize)), 0.0f));
  const bool kv = p.metadata.at(llm::kUseKVCache) != 0;
  p.prefiller = std::make_unique<llm::TextPrefiller>(p.decoder.get(), kv, p.metadata.at(llm::kEnableDynamicShape) != 0,
                                                     p.metadata.at(llm::kMaxSeqLen));
  p.stats = std::make_unique<llm::Stats>();
  p.generator =
      std::make_unique<llm::TextTokenGenerator>(p.tokenizer.get(), p.decoder.get(), kv, std::move(eos), p.stats.get());
  return true;
}

std::unique_ptr<llm::TextLLMRunner> assemble(Parts& p, float temperature) {
  return std::make_unique<llm::TextLLMRunner>(std::move(p.metadata), std::move(p.tokenizer), std::move(p.module),
                                              std::move(p.decoder), std::move(p.prefiller), std::move(p.io_manager),
                                              std::move(p.generator), std::move(p.stats), temperature);
}

// Counts the decode steps it sees (the generator runs it before sampling each token).
class CountingProcessor : public llm::LogitProcessor {
 public:
  Error process(::executorch::aten::Tensor logits) override {
    ++calls;
    return logits.dim() >= 1 ? Error::Ok : Error::InvalidArgument;
  }
  int calls = 0;
};

std::vector<uint64_t> encode(const std::string& tokenizer_path, const std::string& text) {
  auto tokenizer = llm::load_tokenizer(tokenizer_path, special_tokens());
  if (tokenizer == nullptr) return {};
  auto tokens = tokenizer->encode(text, 1, 0);
  return tokens.ok() ? *tokens : std::vector<uint64_t>{};
}

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
  Error err = generate_into(*base, prompt, config, &first);
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

  // Upstream's parts, each on a fresh program (its own KV cache). TextDecoderRunner::step over the prompt (in one
  // call with a dynamic sequence length, else token by token, as the prefiller does) and logits_to_token: the
  // first token the runner generated.
  const std::vector<uint64_t> prompt_tokens = encode(tokenizer_path, prompt);
  if (prompt_tokens.empty()) return 6;
  {
    Parts p;
    if (!make_parts(model_path, tokenizer_path, p)) return 6;
    std::fprintf(stderr, "dynamic shape: %lld\n", static_cast<long long>(p.metadata.at(llm::kEnableDynamicShape)));
    std::fprintf(stderr, "decoder loaded before: %d\n", p.decoder->is_method_loaded() ? 1 : 0);
    if (p.decoder->load() != Error::Ok) return 6;
    std::fprintf(stderr, "decoder loaded: %d method: %s\n", p.decoder->is_method_loaded() ? 1 : 0,
                 p.decoder->method_name().c_str());
    std::vector<uint64_t> data(prompt_tokens);
    const bool parallel = p.metadata.at(llm::kEnableDynamicShape) != 0;
    int32_t token = -1;
    for (size_t i = 0; i < data.size(); i += parallel ? data.size() : 1) {
      const auto n = static_cast<::executorch::aten::SizesType>(parallel ? data.size() : 1);
      auto tokens = ::executorch::extension::from_blob(&data[i], {1, n}, ::executorch::aten::ScalarType::Long);
      auto logits = p.decoder->step(tokens, static_cast<int64_t>(i));
      if (!logits.ok()) return 6;
      if (i + static_cast<size_t>(n) >= data.size()) {
        token = p.decoder->logits_to_token(*logits, 0.0f);
        std::fprintf(stderr, "step logits: %zd\n", static_cast<ssize_t>(logits->size(logits->dim() - 1)));
      }
    }
    std::fprintf(stderr, "step token: %d\n", token);
  }

  // TextPrefiller::prefill then TextTokenGenerator::generate, by hand as TextLLMRunner::generate calls them.
  {
    Parts p;
    if (!make_parts(model_path, tokenizer_path, p)) return 7;
    std::fprintf(stderr, "prefiller loaded before: %d\n", p.prefiller->is_loaded() ? 1 : 0);
    std::vector<uint64_t> tokens(prompt_tokens);
    int64_t pos = 0;
    auto next = p.prefiller->prefill(tokens, pos);
    if (!next.ok()) return 7;
    std::fprintf(stderr, "prefiller token: %llu pos: %lld loaded: %d\n", static_cast<unsigned long long>(*next),
                 static_cast<long long>(pos), p.prefiller->is_loaded() && p.generator->is_loaded() ? 1 : 0);
    // The same token token by token, and in chunks of 4 (both on fresh caches of the same program).
    for (const bool parallel : {false, true}) {
      Parts q;
      if (!make_parts(model_path, tokenizer_path, q)) return 7;
      llm::TextPrefiller prefiller(q.decoder.get(), true, parallel, parallel ? 4 : q.metadata.at(llm::kMaxSeqLen));
      std::vector<uint64_t> again(prompt_tokens);
      int64_t at = 0;
      auto token = prefiller.prefill(again, at);
      if (!token.ok()) return 7;
      std::fprintf(stderr, "%s prefill token: %llu pos: %lld\n", parallel ? "chunked" : "sequential",
                   static_cast<unsigned long long>(*token), static_cast<long long>(at));
    }
    auto counter = std::make_shared<CountingProcessor>();
    p.generator->add_logit_processor(counter);
    p.generator->add_logit_processor(nullptr);  // ignored
    std::string text;
    int pieces = 0;
    auto generated = p.generator->generate({*next}, pos, max_new_tokens - 1, 0.0f, [&](const std::string& piece) {
      text += piece;
      ++pieces;
    });
    if (!generated.ok()) return 7;
    std::fprintf(stderr, "generator count: %lld pieces: %d processors: %zu calls: %d\ngenerator text: [%s]\n",
                 static_cast<long long>(*generated), pieces, p.generator->num_logit_processors(), counter->calls,
                 text.c_str());
    // A temperature outside [0, 1], or no tokens: errors, as upstream's.
    std::fprintf(stderr, "generator bad temperature: %d\n",
                 static_cast<int>(p.generator->generate({*next}, pos, 2, 1.5f).error()));
    std::fprintf(stderr, "generator no tokens: %d\n", static_cast<int>(p.generator->generate({}, pos, 2).error()));
  }

  // The parts assembled into a TextLLMRunner with upstream's constructor, used as create_text_llm_runner's
  // runner was above: the same text, pieces and counts.
  {
    Parts p;
    if (!make_parts(model_path, tokenizer_path, p)) return 8;
    auto assembled = assemble(p, 0.0f);
    std::fprintf(stderr, "component loaded before: %d\n", assembled->is_loaded() ? 1 : 0);
    if (assembled->warmup(prompt, max_new_tokens) != Error::Ok) return 8;
    std::fprintf(stderr, "component loaded: %d\n", assembled->is_loaded() ? 1 : 0);
    config.echo = false;
    config.seq_len = -1;
    config.max_new_tokens = max_new_tokens;
    Run run;
    err = generate_into(*assembled, prompt, config, &run);
    if (err != Error::Ok) return 8;
    std::fprintf(stderr, "component text: [%s]\ncomponent pieces: %d\ncomponent stats: %s\n", run.text.c_str(),
                 run.pieces, llm::stats_to_json_string(run.stats).c_str());
    assembled->reset();
    next = assembled->prefill(prompt, 1, 0);
    if (!next.ok()) return 8;
    std::string continued;
    err = assembled->generate("", config, [&continued](const std::string& piece) { continued += piece; });
    if (err != Error::Ok) return 8;
    std::fprintf(stderr, "component prefill token: %llu\ncomponent prefill text: [%s]\n",
                 static_cast<unsigned long long>(*next), continued.c_str());
  }

  // Ours: the runner from a Module and a tokenizer (load() makes the same parts).
  {
    auto tok = llm::load_tokenizer(tokenizer_path, special_tokens());
    if (tok == nullptr) return 9;
    llm::TextLLMRunner own(std::make_unique<Module>(model_path), std::move(tok), 0.0f);
    Run run;
    config.echo = false;
    err = own.generate(prompt, config, [&run](const std::string& piece) { run.text += piece; });
    if (err != Error::Ok) return 9;
    std::fprintf(stderr, "module runner text: [%s]\n", run.text.c_str());
  }

  // Failure paths, as errors (not aborts). A prompt longer than max_seq_len into the prefiller (it prefills in
  // chunks of max_seq_len, past the end of the KV cache), and into the runner (refused before the prefill).
  {
    Parts p;
    if (!make_parts(model_path, tokenizer_path, p)) return 10;
    const int64_t max_seq_len = p.metadata.at(llm::kMaxSeqLen);
    std::vector<uint64_t> tokens;
    while (static_cast<int64_t>(tokens.size()) <= max_seq_len + 4)
      tokens.insert(tokens.end(), prompt_tokens.begin(), prompt_tokens.end());
    int64_t pos = 0;
    auto res = p.prefiller->prefill(tokens, pos);
    std::fprintf(stderr, "long prefill: %d tokens %zu\n", static_cast<int>(res.error()), tokens.size());
    std::vector<uint64_t> none;
    pos = 0;
    std::fprintf(stderr, "empty prefill: %d\n", static_cast<int>(p.prefiller->prefill(none, pos).error()));
    std::vector<uint64_t> one(prompt_tokens);
    pos = 0;
    std::fprintf(stderr, "prefill bad temperature: %d\n",
                 static_cast<int>(p.prefiller->prefill(one, pos, 2.0f).error()));
    auto assembled = assemble(p, 0.0f);
    std::string long_prompt;
    for (int i = 0; i < 40; ++i) long_prompt += "the river ";
    err = assembled->generate(long_prompt, config);
    std::fprintf(stderr, "long prompt: %d\nlong prompt message: %s\n", static_cast<int>(err),
                 assembled->last_error().c_str());
  }
  // A method the program does not have: load(), step() and prefill() fail, and so does the runner made of them.
  {
    Parts p;
    if (!make_parts(model_path, tokenizer_path, p, "no_such_method")) return 11;
    std::fprintf(stderr, "missing method load: %d loaded: %d\n", static_cast<int>(p.decoder->load()),
                 p.decoder->is_method_loaded() ? 1 : 0);
    std::vector<uint64_t> data(prompt_tokens.begin(), prompt_tokens.begin() + 1);
    auto tokens = ::executorch::extension::from_blob(data.data(), {1, 1}, ::executorch::aten::ScalarType::Long);
    std::fprintf(stderr, "missing method step: %d\n", static_cast<int>(p.decoder->step(tokens, 0).error()));
    int64_t pos = 0;
    std::fprintf(stderr, "missing method prefill: %d pos: %lld\n",
                 static_cast<int>(p.prefiller->prefill(data, pos).error()), static_cast<long long>(pos));
    auto assembled = assemble(p, 0.0f);
    err = assembled->generate(prompt, config);
    std::fprintf(stderr, "missing method runner: %d\nmissing method message: %s\n", static_cast<int>(err),
                 assembled->last_error().c_str());
  }
  // The IOManager refuses a method that does not take (tokens, input_pos).
  {
    Module module(model_path);
    llm::IOManager io(module);
    auto t = ::executorch::extension::make_tensor_ptr<int64_t>({1, 1}, std::vector<int64_t>{1});
    std::fprintf(stderr, "io load: %d\nio decode inputs: %zu\nio wrong method: %d\n", static_cast<int>(io.load()),
                 io.prepare_decode(t, t).ok() ? io.prepare_decode(t, t)->size() : size_t{0},
                 static_cast<int>(io.prepare_prefill(t, t, llm::kMaxSeqLen).error()));
  }
  return 0;
}
