// load_tokenizer, the metadata and EOS ids of a program, create_text_llm_runner (llm_runner_helper.h).
#include <executorch/extension/llm/runner/llm_runner_helper.h>

#include <cinttypes>
#include <string_view>

#include <executorch/extension/llm/runner/multimodal_runner.h>
#include <executorch/extension/llm/runner/text_llm_runner.h>

#include "runner_parts.h"
#include <executorch/extension/llm/sampler/sampler.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/runtime.h>
#include <pytorch/tokenizers/hf_tokenizer.h>
#include <pytorch/tokenizers/llama2c_tokenizer.h>
#include <pytorch/tokenizers/sentencepiece.h>
#include <pytorch/tokenizers/tekken.h>
#include <pytorch/tokenizers/tiktoken.h>

namespace executorch::extension::llm {

using ::executorch::runtime::Error;
using ::executorch::runtime::EValue;

namespace {

// An int-valued metadata output (Int, Bool or a whole Double).
bool metadata_int(const EValue& v, int64_t* out) {
  if (v.isInt())
    *out = v.toInt();
  else if (v.isBool())
    *out = v.toBool() ? 1 : 0;
  else if (v.isDouble())
    *out = static_cast<int64_t>(v.toDouble());
  else
    return false;
  return true;
}

}  // namespace

std::unique_ptr<tokenizers::Tokenizer> load_tokenizer(const std::string& tokenizer_path,
                                                      std::unique_ptr<std::vector<std::string>> special_tokens,
                                                      std::optional<std::string> pattern, size_t bos_token_index,
                                                      size_t eos_token_index) {
  runtime::runtime_init();
  // Only a file named tekken.json is tried as Tekken (upstream's rule): a Hugging Face tokenizer.json is JSON too.
  static constexpr std::string_view kTekkenName = "tekken.json";
  if (tokenizer_path.size() >= kTekkenName.size() &&
      tokenizer_path.compare(tokenizer_path.size() - kTekkenName.size(), kTekkenName.size(), kTekkenName) == 0) {
    auto tekken = std::make_unique<tokenizers::Tekken>();
    if (tekken->load(tokenizer_path) == tokenizers::Error::Ok) {
      ET_LOG(Info, "Loaded tekken tokenizer");
      return tekken;
    }
  }
  auto hf = std::make_unique<tokenizers::HFTokenizer>();
  if (hf->load(tokenizer_path) == tokenizers::Error::Ok) {
    ET_LOG(Info, "Loaded json tokenizer");
    return hf;
  }
  std::unique_ptr<tokenizers::Tiktoken> tiktoken;
  if (special_tokens != nullptr && !pattern.has_value()) {
    tiktoken = std::make_unique<tokenizers::Tiktoken>(std::move(special_tokens), bos_token_index, eos_token_index);
  } else if (special_tokens != nullptr) {
    tiktoken =
        std::make_unique<tokenizers::Tiktoken>(*pattern, std::move(special_tokens), bos_token_index, eos_token_index);
  } else {
    tiktoken = std::make_unique<tokenizers::Tiktoken>();
  }
  if (tiktoken->load(tokenizer_path) == tokenizers::Error::Ok) {
    ET_LOG(Info, "Loaded TikToken tokenizer");
    return tiktoken;
  }
  auto sp = std::make_unique<tokenizers::SPTokenizer>();
  if (sp->load(tokenizer_path) == tokenizers::Error::Ok) {
    ET_LOG(Info, "Loaded Sentencepiece tokenizer");
    return sp;
  }
  auto llama2c = std::make_unique<tokenizers::Llama2cTokenizer>();
  if (llama2c->load(tokenizer_path) == tokenizers::Error::Ok) {
    ET_LOG(Info, "Loaded BPE tokenizer");
    return llama2c;
  }
  ET_LOG(Error, "%s is not a tekken.json, tokenizer.json, tiktoken, SentencePiece or llama2.c tokenizer",
         tokenizer_path.c_str());
  return nullptr;
}

::executorch::runtime::Result<std::unordered_map<std::string, int64_t>> get_llm_metadata(
    tokenizers::Tokenizer* tokenizer, Module* module) {
  std::unordered_map<std::string, int64_t> metadata({
      {kEnableDynamicShape, 0},
      {kMaxSeqLen, 128},
      {kMaxContextLen, 128},
      {kUseKVCache, 1},
      {kUseSDPAWithKVCache, 0},
  });
  auto names = module->method_names();
  if (!names.ok()) {
    ET_LOG(Error, "Failed reading method names");
    return Error::InvalidArgument;
  }
  if (!names->count(kMaxSeqLen)) {
    ET_LOG(Error, "Required metadata method %s not found in model", kMaxSeqLen);
    return Error::InvalidArgument;
  }
  for (auto& [name, value] : metadata) {
    if (names->count(name)) {
      auto got = module->get(name);
      if (!got.ok()) return got.error();
      if (!metadata_int(*got, &value)) {
        ET_LOG(Error, "Metadata method %s does not return a number", name.c_str());
        return Error::InvalidProgram;
      }
    } else {
      ET_LOG(Info, "Method %s not found, using the default value %" PRId64, name.c_str(), value);
    }
    ET_LOG(Info, "Metadata: %s = %" PRId64, name.c_str(), value);
  }
  if (!names->count(kMaxContextLen)) metadata[kMaxContextLen] = metadata[kMaxSeqLen];
  metadata[kBosId] = static_cast<int64_t>(tokenizer->bos_tok());
  metadata[kVocabSize] = tokenizer->vocab_size();
  return metadata;
}

std::unordered_set<uint64_t> get_eos_ids(tokenizers::Tokenizer* tokenizer, Module* module) {
  std::unordered_set<uint64_t> eos_ids = {tokenizer->eos_tok()};
  auto names = module->method_names();
  if (!names.ok()) {
    ET_LOG(Error, "Failed reading method names");
    return eos_ids;
  }
  if (names->count(kEosIds)) {
    eos_ids.clear();
    auto out = module->execute(kEosIds);
    if (!out.ok()) {
      ET_LOG(Error, "Failed to execute %s", kEosIds);
      return eos_ids;
    }
    for (const EValue& v : *out) {
      int64_t id = 0;
      if (metadata_int(v, &id)) {
        eos_ids.emplace(static_cast<uint64_t>(id));
        ET_LOG(Info, "eos_id = %" PRId64, id);
      }
    }
  }
  return eos_ids;
}

std::unique_ptr<TextLLMRunner> create_text_llm_runner(const std::string& model_path,
                                                      std::unique_ptr<::tokenizers::Tokenizer> tokenizer,
                                                      std::optional<const std::string> data_path, float temperature,
                                                      const std::string& method_name, Module::LoadMode load_mode) {
  std::vector<std::string> data_files;
  if (data_path.has_value()) data_files.push_back(*data_path);
  return create_text_llm_runner(model_path, std::move(tokenizer), std::move(data_files), temperature, nullptr,
                                method_name, load_mode);
}

std::unique_ptr<TextLLMRunner> create_text_llm_runner(const std::string& model_path,
                                                      std::unique_ptr<::tokenizers::Tokenizer> tokenizer,
                                                      std::vector<std::string> data_files, float temperature,
                                                      std::unique_ptr<::executorch::runtime::EventTracer> event_tracer,
                                                      const std::string& method_name, Module::LoadMode load_mode) {
  if (!tokenizer || !tokenizer->is_loaded()) {
    ET_LOG(Error, "Tokenizer is null or not loaded");
    return nullptr;
  }
  std::unique_ptr<Module> module =
      data_files.empty()
          ? std::make_unique<Module>(model_path, load_mode, std::move(event_tracer))
          : std::make_unique<Module>(model_path, std::move(data_files), load_mode, std::move(event_tracer));
  // As upstream's: the program is read here, and a program without the metadata gives no runner; then the
  // parts (the IOManager, the decoder runner with a Sampler, the prefiller, the token generator and its stats).
  ET_LOG(Info, "Reading metadata from model");
  auto metadata = get_llm_metadata(tokenizer.get(), module.get());
  if (!metadata.ok()) {
    ET_LOG(Error, "Failed to get metadata from model %s", model_path.c_str());
    return nullptr;
  }
  ET_LOG(Info, "Using method: %s", method_name.c_str());
  auto stats = std::make_unique<Stats>();
  TextRunnerParts parts =
      make_text_runner_parts(*metadata, tokenizer.get(), module.get(), method_name, temperature, stats.get());
  return std::make_unique<TextLLMRunner>(std::move(*metadata), std::move(tokenizer), std::move(module),
                                         std::move(parts.decoder), std::move(parts.prefiller),
                                         std::move(parts.io_manager), std::move(parts.generator), std::move(stats),
                                         temperature);
}

TextRunnerParts make_text_runner_parts(const std::unordered_map<std::string, int64_t>& metadata,
                                       ::tokenizers::Tokenizer* tokenizer, Module* module,
                                       const std::string& method_name, float temperature, Stats* stats) {
  auto meta = [&metadata](const char* key) {
    auto it = metadata.find(key);
    return it == metadata.end() ? int64_t{0} : it->second;
  };
  TextRunnerParts p;
  p.io_manager = std::make_unique<IOManager>(*module);
  const float init_temp = temperature == -1.0f ? 0.0f : temperature;
  p.decoder =
      std::make_unique<TextDecoderRunner>(module, p.io_manager.get(), method_name,
                                          std::make_unique<Sampler>(static_cast<int32_t>(meta(kVocabSize)), init_temp));
  p.prefiller = std::make_unique<TextPrefiller>(p.decoder.get(), meta(kUseKVCache) != 0, meta(kEnableDynamicShape) != 0,
                                                meta(kMaxSeqLen));
  p.generator = std::make_unique<TextTokenGenerator>(
      tokenizer, p.decoder.get(), meta(kUseKVCache) != 0,
      std::make_unique<std::unordered_set<uint64_t>>(get_eos_ids(tokenizer, module)), stats);
  return p;
}

std::unique_ptr<MultimodalRunner> create_multimodal_runner(const std::string& model_path,
                                                           std::unique_ptr<::tokenizers::Tokenizer> tokenizer,
                                                           std::optional<const std::string> data_path,
                                                           Module::LoadMode load_mode) {
  runtime::runtime_init();
  if (!tokenizer || !tokenizer->is_loaded()) {
    ET_LOG(Error, "create_multimodal_runner(%s): the tokenizer is null or not loaded", model_path.c_str());
    return nullptr;
  }
  auto module = data_path.has_value() ? std::make_unique<Module>(model_path, *data_path, load_mode)
                                      : std::make_unique<Module>(model_path, load_mode);
  auto metadata = get_llm_metadata(tokenizer.get(), module.get());
  if (!metadata.ok()) {
    ET_LOG(Error, "create_multimodal_runner(%s): cannot read the program's metadata", model_path.c_str());
    return nullptr;
  }
  auto eos_ids = std::make_unique<std::unordered_set<uint64_t>>(get_eos_ids(tokenizer.get(), module.get()));
  auto io_manager = std::make_unique<IOManager>(*module);
  auto decoder = std::make_unique<MultimodalDecoderRunner>(
      module.get(), io_manager.get(), "forward",
      std::make_unique<Sampler>(static_cast<int32_t>(metadata->at(kVocabSize)), 0.0f));
  auto prefiller =
      std::make_unique<MultimodalPrefiller>(module.get(), decoder.get(), tokenizer.get(), io_manager.get());
  auto stats = std::make_unique<Stats>();
  auto generator = std::make_unique<TextTokenGenerator>(tokenizer.get(), decoder.get(), metadata->at(kUseKVCache) != 0,
                                                        std::move(eos_ids), stats.get());
  return std::make_unique<MultimodalRunner>(std::move(*metadata), std::move(tokenizer), std::move(module),
                                            std::move(decoder), std::move(prefiller), std::move(io_manager),
                                            std::move(generator), std::move(stats));
}

}  // namespace executorch::extension::llm
