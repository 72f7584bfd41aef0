// llm_app MODEL TOKENIZER PROMPT MAX_NEW_TOKENS [LOGITS_FILE]
// A greedy completion of PROMPT (after one BOS) with the SentencePiece adapter: the runner streams it to stdout
// (then upstream's "PyTorchObserver {...}" line); the token callback's text and the stats line go to stderr. With
// LOGITS_FILE, also writes the logits of the prefill and of each greedy decode step (float32 rows) from the
// runner's step() API.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <executorch/extension/llm/runner/llm_runner_helper.h>
#include <executorch/extension/llm/runner/text_llm_runner.h>
#include <executorch/extension/llm/tokenizers/sentencepiece.h>

using namespace executorch::extension::llm;

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: llm_app MODEL TOKENIZER PROMPT MAX_NEW_TOKENS [LOGITS_FILE]\n");
    return 1;
  }
  auto tok = std::make_unique<SentencePieceTokenizer>();
  if (tok->load(argv[2]) != ::tokenizers::Error::Ok) {
    std::fprintf(stderr, "error: %s\n", tok->error().c_str());
    return 2;
  }
  auto runner = create_text_llm_runner(argv[1], std::move(tok));
  if (!runner) return 2;
  GenerationConfig config;
  config.echo = false;
  config.temperature = 0.0f;
  config.num_bos = 1;
  config.max_new_tokens = std::atoi(argv[4]);
  std::string text;
  auto err = runner->generate(
      argv[3], config, [&text](const std::string& piece) { text += piece; },
      [](const Stats& s) {
        std::fprintf(stderr, "%s\n%s\n", stats_to_string(s).c_str(), stats_to_json_string(s).c_str());
      });
  std::fprintf(stderr, "callback text: [%s]\n", text.c_str());
  if (err != executorch::runtime::Error::Ok) {
    std::fprintf(stderr, "error: %s\n", runner->last_error().c_str());
    return 3;
  }
  if (argc > 5) {
    auto prompt = runner->tokenizer()->encode(argv[3], 1, 0);
    std::FILE* f = std::fopen(argv[5], "wb");
    if (!prompt.ok() || f == nullptr) return 4;
    auto logits = runner->step(*prompt, 0);
    int64_t pos = static_cast<int64_t>(prompt->size());
    for (int i = 0; i < config.max_new_tokens && logits.ok(); ++i) {
      std::fwrite(logits->data(), sizeof(float), logits->size(), f);
      if (i + 1 == config.max_new_tokens) break;
      logits = runner->step({runner->sample(*logits, 0.0f, 1.0f)}, pos++);
    }
    std::fclose(f);
    if (!logits.ok()) return 5;
  }
  return 0;
}
