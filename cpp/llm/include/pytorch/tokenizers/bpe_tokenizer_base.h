#pragma once
// The byte-pair-encoding base of Tiktoken and HFTokenizer (upstream's pytorch/tokenizers bpe_tokenizer_base.h):
// the token maps, splitting on special tokens, and encode / decode over the implementation's _encode / _decode.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <executorch/runtime/export.h>
#include <pytorch/tokenizers/error.h>
#include <pytorch/tokenizers/regex.h>
#include <pytorch/tokenizers/result.h>
#include <pytorch/tokenizers/string_integer_map.h>
#include <pytorch/tokenizers/tokenizer.h>

namespace tokenizers {
namespace detail {

using TokenMap = StringIntegerMap<>;

// A TokenMap of (token, rank) pairs; a repeated token or rank -> Error::ParseFailure (logged).
template <typename TToken, typename TRank>
Result<TokenMap> build_token_map(std::vector<std::pair<TToken, TRank>> container) {
  static_assert(std::is_same_v<TToken, std::string> || std::is_same_v<TToken, std::string_view>,
                "TToken must be std::string or std::string_view");
  static_assert(std::is_integral_v<TRank> && std::is_unsigned_v<TRank>, "TRank must be an unsigned integer");
  std::sort(container.begin(), container.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 1; i < container.size(); ++i) {
    TK_CHECK_OR_RETURN_ERROR(container[i - 1].first != container[i].first, ParseFailure,
                             "duplicate token: %s (ranks %llu and %llu)", std::string(container[i].first).c_str(),
                             static_cast<unsigned long long>(container[i - 1].second),
                             static_cast<unsigned long long>(container[i].second));
  }
  std::sort(container.begin(), container.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  for (size_t i = 1; i < container.size(); ++i) {
    TK_CHECK_OR_RETURN_ERROR(container[i - 1].second != container[i].second, ParseFailure,
                             "duplicate rank: %llu (token %s)", static_cast<unsigned long long>(container[i].second),
                             std::string(container[i].first).c_str());
  }
  return TokenMap(container);
}

// The same from any container, with accessors for the token and the rank of an element.
template <typename TContainer, typename TTokenAccessor, typename TRankAccessor>
Result<TokenMap> build_token_map(const TContainer& container, TTokenAccessor token_accessor,
                                 TRankAccessor rank_accessor) {
  using TokenType = std::decay_t<decltype(token_accessor(*std::begin(container)))>;
  using RankType = std::decay_t<decltype(rank_accessor(*std::begin(container)))>;
  std::vector<std::pair<TokenType, RankType>> pairs;
  for (const auto& value : container) pairs.emplace_back(token_accessor(value), rank_accessor(value));
  return build_token_map(std::move(pairs));
}

// A regex that matches any of the special tokens literally (nullptr when there are none).
inline Result<std::unique_ptr<IRegex>> build_special_token_regex(const TokenMap& special_token_map) {
  std::string pattern;
  for (size_t i = 0; i < special_token_map.size(); ++i) {
    if (!pattern.empty()) pattern += "|";
    pattern += IRegex::escape(std::string(special_token_map.getElement(i).first));
  }
  if (pattern.empty()) return std::unique_ptr<IRegex>(nullptr);
  return create_regex(pattern);
}

class EXECUTORCH_API BPETokenizerBase : public Tokenizer {
 public:
  Result<std::vector<uint64_t>> encode(const std::string& input, int8_t bos = 0, int8_t eos = 0) const override;
  Result<std::string> decode(uint64_t prev_token, uint64_t token) const override;

 protected:
  explicit BPETokenizerBase() {}
  ~BPETokenizerBase() override {}

  // The text before the first special token of `allowed_special` at or after `offset` and that token (nullopt if
  // there is none: then the text is the whole rest of the input).
  std::pair<std::optional<std::string>, std::string> split_with_allowed_special_token_(
      const std::string& input, const TokenMap& allowed_special) const;
  std::pair<std::optional<std::string>, std::string> split_with_allowed_special_token_(
      const std::string& input, size_t offset, const TokenMap& allowed_special) const;

  // The ids of `text`, special tokens of `allowed_special` included, and the number of ids of its last piece.
  Result<std::pair<std::vector<uint64_t>, uint64_t>> encode_with_special_token_(const std::string& text,
                                                                                const TokenMap& allowed_special) const;

  // Byte-pair encoding of one piece with `encoder`'s ranks (tiktoken's algorithm).
  virtual Result<std::vector<uint64_t>> byte_pair_encode_(const std::string& piece, const TokenMap& encoder) const;
  // tiktoken's encoding of text without special tokens: each match of `pattern` a whole token of token_map_ or
  // byte-pair encoded with its ranks (Tiktoken's and Tekken's _encode).
  Error split_and_byte_pair_encode_(const IRegex& pattern, const std::string& input, std::vector<uint64_t>& ret,
                                    uint64_t& last_piece_token_len) const;
  virtual std::vector<uint64_t> _byte_pair_merge(const std::string& piece, const TokenMap& ranks,
                                                 std::function<uint64_t(uint64_t, uint64_t)> func) const;

  std::unique_ptr<IRegex> special_token_regex_;
  std::optional<TokenMap> token_map_;
  std::optional<TokenMap> special_token_map_;

 private:
  virtual Error _encode(const std::string& input, std::vector<uint64_t>& ret, uint64_t& last_piece_token_len) const = 0;
  virtual void _decode(const std::string& input, std::string& ret) const = 0;
};

}  // namespace detail
}  // namespace tokenizers
