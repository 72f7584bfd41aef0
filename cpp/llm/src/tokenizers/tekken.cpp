// Tekken (pytorch/tokenizers/tekken.h): Mistral's tekken.json, read with nlohmann-json; encoding is tiktoken's
// (the file's pattern, then byte-pair merges by rank) with the ids shifted past the special tokens.
#include <pytorch/tokenizers/tekken.h>

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>
#include <pytorch/tokenizers/base64.h>
#include <pytorch/tokenizers/log.h>

namespace tokenizers {

using json = nlohmann::json;

Tekken::Tekken() = default;
Tekken::~Tekken() = default;

std::vector<Tekken::SpecialTokenInfo> Tekken::_get_default_special_tokens() {
  const char* names[] = {"<unk>",
                         "<s>",
                         "</s>",
                         "[INST]",
                         "[/INST]",
                         "[AVAILABLE_TOOLS]",
                         "[/AVAILABLE_TOOLS]",
                         "[TOOL_RESULTS]",
                         "[/TOOL_RESULTS]",
                         "[TOOL_CALLS]",
                         "[IMG]",
                         "<pad>",
                         "[IMG_BREAK]",
                         "[IMG_END]",
                         "[PREFIX]",
                         "[MIDDLE]",
                         "[SUFFIX]",
                         "[SYSTEM_PROMPT]",
                         "[/SYSTEM_PROMPT]",
                         "[TOOL_CONTENT]"};
  std::vector<SpecialTokenInfo> tokens;
  for (const char* name : names) tokens.push_back({tokens.size(), name, true});
  return tokens;
}

Error Tekken::load(const std::string& tokenizer_path) {
  std::ifstream file(tokenizer_path, std::ios::binary);
  if (!file) {
    TK_LOG(Error, "tekken: cannot open %s", tokenizer_path.c_str());
    return Error::LoadFailure;
  }
  TekkenConfig config;
  std::vector<SpecialTokenInfo> special;
  std::vector<std::pair<std::string, uint64_t>> vocab;
  try {
    const json j = json::parse(file);
    const json& c = j.at("config");
    config.pattern = c.at("pattern").get<std::string>();
    config.num_vocab_tokens = c.at("num_vocab_tokens").get<size_t>();
    config.default_vocab_size = c.at("default_vocab_size").get<size_t>();
    config.default_num_special_tokens = c.at("default_num_special_tokens").get<size_t>();
    config.version = c.at("version").get<std::string>();
    if (config.default_num_special_tokens > config.default_vocab_size) {
      TK_LOG(Error, "tekken: %s: %zu special tokens in a vocabulary of %zu", tokenizer_path.c_str(),
             config.default_num_special_tokens, config.default_vocab_size);
      return Error::ParseFailure;
    }
    if (j.contains("special_tokens") && !j["special_tokens"].is_null()) {
      for (const json& t : j["special_tokens"]) {
        special.push_back(
            {t.at("rank").get<uint64_t>(), t.at("token_str").get<std::string>(), t.value("is_control", true)});
      }
    } else {
      special = _get_default_special_tokens();
    }
    const json& v = j.at("vocab");
    const size_t n = std::min(v.size(), config.default_vocab_size - config.default_num_special_tokens);
    for (size_t i = 0; i < n; ++i) {
      const json& item = v.at(i);
      const auto rank = item.at("rank").get<uint64_t>();
      if (rank != i) {
        TK_LOG(Error, "tekken: %s: vocab entry %zu has rank %llu", tokenizer_path.c_str(), i,
               static_cast<unsigned long long>(rank));
        return Error::ParseFailure;
      }
      auto bytes = base64::decode(item.at("token_bytes").get<std::string>());
      if (!bytes.ok()) {
        TK_LOG(Error, "tekken: %s: vocab entry %zu: token_bytes is not valid base64", tokenizer_path.c_str(), i);
        return Error::ParseFailure;
      }
      vocab.emplace_back(std::move(*bytes), rank + config.default_num_special_tokens);
    }
  } catch (const json::exception& e) {
    TK_LOG(Error, "tekken: %s is not a tekken.json: %s", tokenizer_path.c_str(), e.what());
    return Error::ParseFailure;
  }

  // The listed special tokens, then "<SPECIAL_i>" in the reserved slots they leave free (mistral-common's filler
  // when the list is ranks 0..n-1, as Mistral's files are).
  std::vector<bool> taken(config.default_num_special_tokens, false);
  for (const SpecialTokenInfo& t : special) {
    if (t.rank < taken.size()) taken[t.rank] = true;
  }
  for (size_t i = 0; i < taken.size(); ++i) {
    if (!taken[i]) special.push_back({i, "<SPECIAL_" + std::to_string(i) + ">", true});
  }
  std::vector<std::pair<std::string, uint64_t>> special_pairs;
  for (const SpecialTokenInfo& t : special) {
    if (t.rank >= config.default_num_special_tokens) {
      TK_LOG(Error, "tekken: %s: special token %s has rank %llu, past the %zu reserved ids", tokenizer_path.c_str(),
             t.token_str.c_str(), static_cast<unsigned long long>(t.rank), config.default_num_special_tokens);
      return Error::ParseFailure;
    }
    special_pairs.emplace_back(t.token_str, t.rank);
  }
  auto token_map = detail::build_token_map(std::move(vocab));
  if (!token_map.ok()) {
    TK_LOG(Error, "tekken: %s: repeated vocab token", tokenizer_path.c_str());
    return token_map.error();
  }
  auto special_map = detail::build_token_map(std::move(special_pairs));
  if (!special_map.ok()) {
    TK_LOG(Error, "tekken: %s: repeated special token or rank", tokenizer_path.c_str());
    return special_map.error();
  }
  const auto bos = special_map->tryGetInteger("<s>"), eos = special_map->tryGetInteger("</s>");
  if (!bos || !eos) {
    TK_LOG(Error, "tekken: %s: no <s> or </s> among the special tokens", tokenizer_path.c_str());
    return Error::LoadFailure;
  }
  auto regex = create_regex(config.pattern);
  if (!regex.ok()) {
    TK_LOG(Error, "tekken: %s: the pattern does not compile", tokenizer_path.c_str());
    return regex.error();
  }
  auto special_regex = detail::build_special_token_regex(*special_map);
  if (!special_regex.ok()) return special_regex.error();

  _pattern = std::move(config.pattern);
  _version = std::move(config.version);
  _num_special_tokens = config.default_num_special_tokens;
  _regex = std::move(*regex);
  special_token_regex_ = std::move(*special_regex);
  vocab_size_ = static_cast<int32_t>(token_map->size() + special_map->size());
  token_map_.emplace(std::move(*token_map));
  special_token_map_.emplace(std::move(*special_map));
  bos_tok_ = *bos;
  eos_tok_ = *eos;
  initialized_ = true;
  return Error::Ok;
}

Error Tekken::load_with_special_tokens(const std::string& tokenizer_path,
                                       const std::vector<SpecialTokenInfo>& /*special_tokens*/) {
  return load(tokenizer_path);
}

Error Tekken::_encode(const std::string& input, std::vector<uint64_t>& ret, uint64_t& last_piece_token_len) const {
  return split_and_byte_pair_encode_(*_regex, input, ret, last_piece_token_len);
}

void Tekken::_decode(const std::string& input, std::string& ret) const { ret += input; }

}  // namespace tokenizers
