#pragma once
// The parts of a text runner as upstream's create_text_llm_runner makes them (IOManager, decoder runner with a
// Sampler, prefiller, token generator) from the program's metadata (get_llm_metadata's): shared by
// create_text_llm_runner and TextLLMRunner::load() of a runner made from a Module. Internal to libexecutorch_llm.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include <executorch/extension/llm/runner/io_manager/io_manager.h>
#include <executorch/extension/llm/runner/stats.h>
#include <executorch/extension/llm/runner/text_decoder_runner.h>
#include <executorch/extension/llm/runner/text_prefiller.h>
#include <executorch/extension/llm/runner/text_token_generator.h>
#include <executorch/extension/module/module.h>
#include <pytorch/tokenizers/tokenizer.h>

namespace executorch {
namespace extension {
namespace llm {

struct TextRunnerParts {
  std::unique_ptr<IOManager> io_manager;
  std::unique_ptr<TextDecoderRunner> decoder;
  std::unique_ptr<TextPrefiller> prefiller;
  std::unique_ptr<TextTokenGenerator> generator;
};

// The parts over `module` and `tokenizer` (which must outlive them), the token generator recording into `stats`;
// temperature -1: greedy until a generate() sets one.
TextRunnerParts make_text_runner_parts(const std::unordered_map<std::string, int64_t>& metadata,
                                       ::tokenizers::Tokenizer* tokenizer, Module* module,
                                       const std::string& method_name, float temperature, Stats* stats);

}  // namespace llm
}  // namespace extension
}  // namespace executorch
