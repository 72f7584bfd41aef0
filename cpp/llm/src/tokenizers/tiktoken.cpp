// Tiktoken (pytorch/tokenizers/tiktoken.h): the "<base64 token> <rank>" file, the pre-tokenization regex and
// tiktoken's byte-pair merge (BPETokenizerBase).
#include <pytorch/tokenizers/tiktoken.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <pytorch/tokenizers/base64.h>

namespace tokenizers {

Tiktoken::~Tiktoken() = default;

std::unique_ptr<std::vector<std::string>> Tiktoken::_get_default_special_tokens() {
  auto tokens = std::make_unique<std::vector<std::string>>(std::vector<std::string>{
      "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
      "<|finetune_right_pad_id|>", "<|step_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>",
      "<|eot_id|>", "<|python_tag|>"});
  for (int i = 2; tokens->size() < static_cast<size_t>(kSpecialTokensSize); ++i) {
    tokens->push_back("<|reserved_special_token_" + std::to_string(i) + "|>");
  }
  return tokens;
}

std::string Tiktoken::_get_default_patern() {
  return R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+)";
}

Error Tiktoken::load(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    TK_LOG(Error, "tiktoken: cannot open %s", path.c_str());
    return Error::LoadFailure;
  }
  std::vector<std::pair<std::string, uint64_t>> pairs;
  std::string line;
  size_t line_number = 0;
  while (std::getline(file, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const size_t space = line.find(' ');
    if (space == std::string::npos) {
      TK_LOG(Error, "tiktoken: %s:%zu: no space between the token and its rank", path.c_str(), line_number);
      return Error::ParseFailure;
    }
    auto token = base64::decode(std::string_view(line).substr(0, space));
    if (!token.ok()) {
      TK_LOG(Error, "tiktoken: %s:%zu: the token is not valid base64", path.c_str(), line_number);
      return Error::Base64DecodeFailure;
    }
    const std::string rank_text = line.substr(space + 1);
    char* end = nullptr;
    errno = 0;
    const unsigned long long rank = std::strtoull(rank_text.c_str(), &end, 10);
    if (rank_text.empty() || rank_text[0] == '-' || *end != '\0' || errno != 0 || rank > (1ull << 31)) {
      TK_LOG(Error, "tiktoken: %s:%zu: bad rank \"%.32s\"", path.c_str(), line_number, rank_text.c_str());
      return Error::ParseFailure;
    }
    pairs.emplace_back(std::move(*token), rank);
  }
  if (pairs.empty()) {
    TK_LOG(Error, "tiktoken: %s has no tokens", path.c_str());
    return Error::ParseFailure;
  }
  auto token_map = detail::build_token_map(std::move(pairs));
  if (!token_map.ok()) {
    TK_LOG(Error, "tiktoken: %s: repeated token or rank", path.c_str());
    return token_map.error();
  }
  const uint64_t num_base = token_map->size();
  std::vector<std::pair<std::string, uint64_t>> special;
  for (size_t i = 0; i < _special_tokens->size(); ++i) special.emplace_back((*_special_tokens)[i], num_base + i);
  auto special_map = detail::build_token_map(std::move(special));
  if (!special_map.ok()) return special_map.error();
  auto regex = create_regex(_pattern);
  if (!regex.ok()) {
    TK_LOG(Error, "tiktoken: the pre-tokenization pattern does not compile");
    return regex.error();
  }
  auto special_regex = detail::build_special_token_regex(*special_map);
  if (!special_regex.ok()) return special_regex.error();

  _regex = std::move(*regex);
  special_token_regex_ = std::move(*special_regex);
  token_map_.emplace(std::move(*token_map));
  special_token_map_.emplace(std::move(*special_map));
  vocab_size_ = static_cast<int32_t>(num_base + _special_tokens->size());
  bos_tok_ = num_base + _bos_token_index;
  eos_tok_ = num_base + _eos_token_index;
  initialized_ = true;
  return Error::Ok;
}

Error Tiktoken::_encode(const std::string& input, std::vector<uint64_t>& ret, uint64_t& last_piece_token_len) const {
  return split_and_byte_pair_encode_(*_regex, input, ret, last_piece_token_len);
}

void Tiktoken::_decode(const std::string& input, std::string& ret) const { ret += input; }

}  // namespace tokenizers
