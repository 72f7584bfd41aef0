// multimodal_app MODEL TOKENIZER IMAGE WIDTH HEIGHT CHANNELS TEXT1 TEXT2 MAX_NEW_TOKENS TEXT_ONLY_MODEL [WAV...]
// Upstream's multimodal runner API, called as upstream's multimodal examples do: load_tokenizer,
// create_multimodal_runner, generate() over text, an Image (IMAGE: raw uint8 pixels, CHW) and text with a
// GenerationConfig and both callbacks; then prefill() + generate() of no inputs, the parts (MultimodalDecoderRunner,
// MultimodalPrefiller) on their own, convert_to_bfloat16, MultimodalInput's accessors, the failure paths (errors,
// not aborts), and wav_loader.h on each WAV file. What the callbacks saw goes to stderr as "key: value" lines for
// tests/test_llm.py.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <executorch/extension/llm/runner/audio.h>
#include <executorch/extension/llm/runner/image.h>
#include <executorch/extension/llm/runner/io_manager/io_manager.h>
#include <executorch/extension/llm/runner/llm_runner_helper.h>
#include <executorch/extension/llm/runner/multimodal_decoder_runner.h>
#include <executorch/extension/llm/runner/multimodal_input.h>
#include <executorch/extension/llm/runner/multimodal_prefiller.h>
#include <executorch/extension/llm/runner/multimodal_runner.h>
#include <executorch/extension/llm/runner/stats.h>
#include <executorch/extension/llm/runner/util.h>
#include <executorch/extension/llm/runner/wav_loader.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>

namespace llm = ::executorch::extension::llm;
using ::executorch::extension::Module;
using ::executorch::runtime::Error;

namespace {

std::vector<llm::MultimodalInput> inputs_of(const std::string& text1, llm::Image image, const std::string& text2) {
  std::vector<llm::MultimodalInput> inputs;
  inputs.emplace_back(llm::make_text_input(text1));
  inputs.emplace_back(llm::make_image_input(std::move(image)));
  inputs.emplace_back(llm::make_text_input(text2));
  return inputs;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 11) {
    std::fprintf(stderr, "usage: %s MODEL TOKENIZER IMAGE W H C TEXT1 TEXT2 MAX_NEW_TOKENS TEXT_ONLY_MODEL [WAV...]\n",
                 argv[0]);
    return 2;
  }
  const std::string model = argv[1], tokenizer_path = argv[2], text1 = argv[7], text2 = argv[8];
  const int32_t w = std::stoi(argv[4]), h = std::stoi(argv[5]), c = std::stoi(argv[6]);
  std::ifstream file(argv[3], std::ios::binary);
  const std::vector<uint8_t> pixels((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  auto image = [&] { return llm::Image(std::vector<uint8_t>(pixels), w, h, c); };

  auto runner = llm::create_multimodal_runner(model, llm::load_tokenizer(tokenizer_path));
  if (runner == nullptr) return 2;
  std::fprintf(stderr, "loaded before: %d\n", runner->is_loaded() ? 1 : 0);
  llm::GenerationConfig config;
  config.max_new_tokens = std::stoi(argv[9]);
  config.temperature = 0.0f;
  config.echo = false;
  config.num_bos = 1;
  std::string text, stats;
  int pieces = 0;
  Error err = runner->generate(
      inputs_of(text1, image(), text2), config,
      [&](const std::string& piece) {
        text += piece;
        ++pieces;
      },
      [&](const llm::Stats& s) { stats = llm::stats_to_json_string(s); });
  std::fprintf(stderr, "generate: %d\ntext: [%s]\npieces: %d\nstats: %s\nloaded: %d\n", static_cast<int>(err),
               text.c_str(), pieces, stats.c_str(), runner->is_loaded() ? 1 : 0);

  // prefill() then generate() of no inputs: the same text.
  runner->reset();
  auto next = runner->prefill(inputs_of(text1, image(), text2), 1, 0);
  std::string continued;
  err = runner->generate(std::vector<llm::MultimodalInput>{}, config,
                         [&](const std::string& piece) { continued += piece; });
  std::fprintf(stderr, "prefill token: %lld\nprefill text: %d [%s]\n", next.ok() ? static_cast<long long>(*next) : -1LL,
               static_cast<int>(err), continued.c_str());

  // The parts on their own, as create_multimodal_runner assembles them: the prefiller's token for the first input.
  {
    Module module(model);
    auto tokenizer = llm::load_tokenizer(tokenizer_path);
    llm::IOManager io(module);
    llm::MultimodalDecoderRunner decoder(&module, &io);
    llm::MultimodalPrefiller prefiller(&module, &decoder, tokenizer.get(), &io);
    std::fprintf(stderr, "parts loaded before: %d\n", prefiller.is_method_loaded() ? 1 : 0);
    const Error load = prefiller.load();
    int64_t pos = 0;
    auto token = prefiller.prefill(llm::MultimodalInput(text1), pos, 1, 0);
    auto bos = std::vector<uint64_t>{1};
    auto tokens = executorch::extension::from_blob(bos.data(), {1, 1}, executorch::aten::ScalarType::Long);
    auto logits = decoder.step(tokens, pos);
    std::fprintf(stderr, "parts: load %d loaded %d token %lld pos %lld step %d logits %zd\n", static_cast<int>(load),
                 prefiller.is_method_loaded() ? 1 : 0, token.ok() ? static_cast<long long>(*token) : -1LL,
                 static_cast<long long>(pos), static_cast<int>(logits.error()),
                 logits.ok() ? static_cast<ssize_t>(logits->numel()) : -1);
  }

  // Failure paths: each an error code, the runner usable afterwards.
  auto fail = [&](const char* name, std::vector<llm::MultimodalInput> inputs, float temperature = 0.0f) {
    runner->reset();
    llm::GenerationConfig bad = config;
    bad.temperature = temperature;
    bad.warming = true;
    std::fprintf(stderr, "error %s: %d\n", name, static_cast<int>(runner->generate(inputs, bad)));
  };
  fail("image size", inputs_of(text1, llm::Image(std::vector<uint8_t>(10), w, h, c), text2));
  fail("image dtype", inputs_of(text1, llm::Image(std::vector<float>(pixels.size(), 0.5f), w, h, c), text2));
  {
    std::vector<llm::MultimodalInput> audio;
    audio.emplace_back(llm::make_audio_input(llm::Audio(std::vector<float>(16, 0.0f), 1, 4, 4)));
    fail("audio", std::move(audio));
  }
  {
    std::vector<llm::MultimodalInput> tokens;
    tokens.emplace_back(llm::make_token_input(std::vector<uint64_t>(200, 5)));
    fail("too long", std::move(tokens));
  }
  fail("no inputs", {});
  fail("temperature", inputs_of(text1, image(), text2), 2.0f);
  runner->reset();
  text.clear();
  err = runner->generate(inputs_of(text1, image(), text2), config, [&](const std::string& p) { text += p; });
  std::fprintf(stderr, "after errors: %d [%s]\n", static_cast<int>(err), text.c_str());

  // A text-only program: create_multimodal_runner succeeds (its metadata is there), generate() names what is
  // missing; a null tokenizer gives nullptr.
  auto text_only = llm::create_multimodal_runner(argv[10], llm::load_tokenizer(tokenizer_path));
  std::fprintf(stderr, "text-only program: %d\n",
               text_only ? static_cast<int>(text_only->generate(text1, config)) : -1);
  std::fprintf(stderr, "null tokenizer: %d\n", llm::create_multimodal_runner(model, nullptr) == nullptr ? 1 : 0);

  // util.h's convert_to_bfloat16 and MultimodalInput's accessors.
  std::vector<float> values = {1.0f, -2.5f, 3.14159f};
  auto bf16 = llm::convert_to_bfloat16(executorch::extension::from_blob(values.data(), {3}));
  std::vector<int32_t> ints = {1};
  auto wrong =
      llm::convert_to_bfloat16(executorch::extension::from_blob(ints.data(), {1}, executorch::aten::ScalarType::Int));
  std::fprintf(
      stderr, "bf16: %s %g %g %g wrong %d\n",
      executorch::runtime::toString(bf16.ok() ? (*bf16)->scalar_type() : executorch::aten::ScalarType::Undefined),
      static_cast<double>(static_cast<float>((*bf16)->const_data_ptr<executorch::aten::BFloat16>()[0])),
      static_cast<double>(static_cast<float>((*bf16)->const_data_ptr<executorch::aten::BFloat16>()[1])),
      static_cast<double>(static_cast<float>((*bf16)->const_data_ptr<executorch::aten::BFloat16>()[2])),
      static_cast<int>(wrong.error()));
  llm::MultimodalInput in(std::vector<uint64_t>{1, 2});
  std::fprintf(stderr, "input: %s %s %d %d %zu\n", in.type_name(),
               llm::MultimodalInput::TypeName(llm::MultimodalInput::Type::RAW_AUDIO), in.try_get_text() == nullptr,
               in.is_tokens(), in.get_tokens().size());
  // wav_loader.h: the samples of each file (empty, with the reason logged, for a file it cannot read).
  for (int i = 11; i < argc; ++i) {
    const auto header = llm::load_wav_header(std::string(argv[i]));
    const std::vector<float> samples = llm::load_wav_audio_data(argv[i]);
    std::fprintf(stderr, "wav %d: header %d rate %u samples %zu first %g last %g\n", i - 11, header != nullptr,
                 header ? header->SamplesPerSec : 0u, samples.size(),
                 samples.empty() ? 0.0 : static_cast<double>(samples.front()),
                 samples.empty() ? 0.0 : static_cast<double>(samples.back()));
  }
  return 0;
}
