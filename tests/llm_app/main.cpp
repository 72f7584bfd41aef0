// llm_app MODEL TOKENIZER PROMPT MAX_NEW_TOKENS [LOGITS_FILE]
// Streams a greedy completion of PROMPT to stdout and the stats line to stderr. With LOGITS_FILE, also writes the
// logits of the prefill and of each greedy decode step (float32 rows) from the runner's step() API.
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
  if (!tok->load(argv[2])) {
    std::fprintf(stderr, "error: %s\n", tok->error().c_str());
    return 2;
  }
  auto runner = create_text_llm_runner(argv[1], std::move(tok));
  if (!runner) return 2;
  GenerationConfig config;
  config.echo = false;
  config.temperature = 0.0f;
  config.max_new_tokens = std::atoi(argv[4]);
  auto err = runner->generate(
      argv[3], config, [](const std::string& piece) { std::fputs(piece.c_str(), stdout); },
      [](const Stats& s) {
        std::fprintf(stderr, "%s\n%s\n", stats_to_string(s).c_str(), stats_to_json_string(s).c_str());
      });
  std::fputs("\n", stdout);
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
