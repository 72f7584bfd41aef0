// BPETokenizerBase (pytorch/tokenizers/bpe_tokenizer_base.h): special-token splitting, tiktoken's byte-pair
// merge, and the encode / decode that Tiktoken uses.
#include <pytorch/tokenizers/bpe_tokenizer_base.h>

#include <cinttypes>
#include <limits>

namespace tokenizers {
namespace detail {

std::pair<std::optional<std::string>, std::string> BPETokenizerBase::split_with_allowed_special_token_(
    const std::string& input, const TokenMap& allowed_special) const {
  return split_with_allowed_special_token_(input, 0, allowed_special);
}

std::pair<std::optional<std::string>, std::string> BPETokenizerBase::split_with_allowed_special_token_(
    const std::string& input, size_t offset, const TokenMap& allowed_special) const {
  if (!special_token_regex_ || offset >= input.size())
    return {std::nullopt, input.substr(std::min(offset, input.size()))};
  const std::string rest = input.substr(offset);
  for (const Match& m : special_token_regex_->find_all(rest)) {
    std::string token = rest.substr(m.start, m.end - m.start);
    if (allowed_special.tryGetInteger(token)) return {std::move(token), rest.substr(0, m.start)};
  }
  return {std::nullopt, rest};
}

Result<std::pair<std::vector<uint64_t>, uint64_t>> BPETokenizerBase::encode_with_special_token_(
    const std::string& text, const TokenMap& allowed_special) const {
  std::vector<uint64_t> tokens;
  uint64_t last_piece_token_len = 0;
  size_t start = 0;
  while (true) {
    auto [special, sub_input] = split_with_allowed_special_token_(text, start, allowed_special);
    TK_CHECK_OK_OR_RETURN_ERROR(_encode(sub_input, tokens, last_piece_token_len));
    if (!special) break;
    tokens.push_back(*allowed_special.tryGetInteger(*special));
    last_piece_token_len = 0;
    start += sub_input.size() + special->size();
  }
  return std::make_pair(std::move(tokens), last_piece_token_len);
}

Result<std::vector<uint64_t>> BPETokenizerBase::byte_pair_encode_(const std::string& piece,
                                                                  const TokenMap& encoder) const {
  if (piece.size() == 1) {
    auto id = encoder.tryGetInteger(piece);
    TK_CHECK_OR_RETURN_ERROR(id.has_value(), EncodeFailure, "byte 0x%02x has no token",
                             static_cast<unsigned char>(piece[0]));
    return std::vector<uint64_t>{*id};
  }
  bool unknown = false;
  auto ids = _byte_pair_merge(piece, encoder, [&](uint64_t start, uint64_t stop) -> uint64_t {
    auto id = encoder.tryGetInteger(std::string_view(piece).substr(start, stop - start));
    if (!id) {
      unknown = true;
      return 0;
    }
    return *id;
  });
  TK_CHECK_OR_RETURN_ERROR(!unknown, EncodeFailure, "a piece of \"%.64s\" has no token (incomplete vocabulary)",
                           piece.c_str());
  return ids;
}

Error BPETokenizerBase::split_and_byte_pair_encode_(const IRegex& pattern, const std::string& input,
                                                    std::vector<uint64_t>& ret, uint64_t& last_piece_token_len) const {
  for (const Match& m : pattern.find_all(input)) {
    const std::string piece = input.substr(m.start, m.end - m.start);
    if (auto id = token_map_->tryGetInteger(piece)) {
      ret.push_back(*id);
      last_piece_token_len = 1;
      continue;
    }
    auto tokens = byte_pair_encode_(piece, *token_map_);
    if (!tokens.ok()) return tokens.error();
    last_piece_token_len = tokens->size();
    ret.insert(ret.end(), tokens->begin(), tokens->end());
  }
  return Error::Ok;
}

std::vector<uint64_t> BPETokenizerBase::_byte_pair_merge(const std::string& piece, const TokenMap& ranks,
                                                         std::function<uint64_t(uint64_t, uint64_t)> func) const {
  constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
  // parts[i] = (start of the i-th part, rank of the i-th part merged with the next one).
  std::vector<std::pair<size_t, uint64_t>> parts;
  parts.reserve(piece.size() + 1);
  for (size_t i = 0; i <= piece.size(); ++i) parts.emplace_back(i, kNone);
  auto rank_at = [&](size_t i) -> uint64_t {
    if (i + 2 >= parts.size()) return kNone;
    auto r = ranks.tryGetInteger(std::string_view(piece).substr(parts[i].first, parts[i + 2].first - parts[i].first));
    return r ? *r : kNone;
  };
  for (size_t i = 0; i + 2 < parts.size(); ++i) parts[i].second = rank_at(i);
  while (parts.size() > 2) {
    size_t best = 0;
    uint64_t best_rank = kNone;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      if (parts[i].second < best_rank) {
        best_rank = parts[i].second;
        best = i;
      }
    }
    if (best_rank == kNone) break;
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(best) + 1);
    parts[best].second = rank_at(best);
    if (best > 0) parts[best - 1].second = rank_at(best - 1);
  }
  std::vector<uint64_t> out;
  out.reserve(parts.size() - 1);
  for (size_t i = 0; i + 1 < parts.size(); ++i) out.push_back(func(parts[i].first, parts[i + 1].first));
  return out;
}

Result<std::vector<uint64_t>> BPETokenizerBase::encode(const std::string& input, int8_t bos, int8_t eos) const {
  if (!initialized_) {
    TK_LOG(Error, "encode: the tokenizer is not loaded");
    return Error::Uninitialized;
  }
  TK_CHECK_OR_RETURN_ERROR(bos >= 0 && eos >= 0, EncodeFailure, "encode: negative bos (%d) or eos (%d)", bos, eos);
  auto encoded = TK_UNWRAP(encode_with_special_token_(input, *special_token_map_));
  std::vector<uint64_t> tokens(static_cast<size_t>(bos), bos_tok_);
  tokens.insert(tokens.end(), encoded.first.begin(), encoded.first.end());
  tokens.insert(tokens.end(), static_cast<size_t>(eos), eos_tok_);
  return tokens;
}

Result<std::string> BPETokenizerBase::decode(uint64_t prev_token, uint64_t token) const {
  (void)prev_token;
  if (!initialized_) {
    TK_LOG(Error, "decode: the tokenizer is not loaded");
    return Error::Uninitialized;
  }
  auto bytes = token_map_->tryGetString(token);
  if (!bytes) bytes = special_token_map_->tryGetString(token);
  TK_CHECK_OR_RETURN_ERROR(bytes.has_value(), DecodeFailure, "decode: unknown token id %" PRIu64, token);
  std::string out;
  _decode(std::string(*bytes), out);
  return out;
}

}  // namespace detail
}  // namespace tokenizers
