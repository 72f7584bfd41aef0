// Llama2cTokenizer (pytorch/tokenizers/llama2c_tokenizer.h): llama2.c's tokenizer.bin and its greedy BPE.
#include <pytorch/tokenizers/llama2c_tokenizer.h>

#include <cinttypes>
#include <cstring>
#include <fstream>

#include "unicode.h"

namespace tokenizers {

Llama2cTokenizer::Llama2cTokenizer() : Tokenizer() {}
Llama2cTokenizer::~Llama2cTokenizer() = default;

Error Llama2cTokenizer::load(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    TK_LOG(Error, "llama2c: cannot open %s", path.c_str());
    return Error::LoadFailure;
  }
  file.seekg(0, std::ios::end);
  const auto file_size = static_cast<uint64_t>(file.tellg());
  file.seekg(0, std::ios::beg);
  int32_t header[4];
  if (!file.read(reinterpret_cast<char*>(header), sizeof(header))) {
    TK_LOG(Error, "llama2c: %s: shorter than its 16-byte header", path.c_str());
    return Error::ParseFailure;
  }
  const int32_t n = header[0];
  if (n <= 0 || header[1] < 0 || header[1] >= n || header[2] < 0 || header[2] >= n || header[3] <= 0 ||
      header[3] > 1024) {
    TK_LOG(Error, "llama2c: %s: bad header (vocab_size %d, bos %d, eos %d, max_token_length %d)", path.c_str(), n,
           header[1], header[2], header[3]);
    return Error::ParseFailure;
  }
  // Each token takes at least 8 bytes (score and length).
  if (static_cast<uint64_t>(n) > (file_size - sizeof(header)) / 8) {
    TK_LOG(Error, "llama2c: %s: truncated: %d tokens need more than the file's %llu bytes", path.c_str(), n,
           static_cast<unsigned long long>(file_size));
    return Error::ParseFailure;
  }
  std::vector<std::string> vocab(static_cast<size_t>(n));
  std::vector<float> scores(static_cast<size_t>(n));
  std::unordered_map<std::string, int32_t> lookup;
  for (int32_t i = 0; i < n; ++i) {
    int32_t len = 0;
    if (!file.read(reinterpret_cast<char*>(&scores[i]), sizeof(float)) ||
        !file.read(reinterpret_cast<char*>(&len), sizeof(int32_t))) {
      TK_LOG(Error, "llama2c: %s: truncated at token %d of %d", path.c_str(), i, n);
      return Error::ParseFailure;
    }
    if (len < 0 || len > header[3]) {
      TK_LOG(Error, "llama2c: %s: token %d has length %d (max_token_length %d)", path.c_str(), i, len, header[3]);
      return Error::ParseFailure;
    }
    vocab[i].resize(static_cast<size_t>(len));
    if (len > 0 && !file.read(vocab[i].data(), len)) {
      TK_LOG(Error, "llama2c: %s: truncated in the bytes of token %d", path.c_str(), i);
      return Error::ParseFailure;
    }
    lookup.emplace(vocab[i], i);  // the first of equal strings wins
  }
  vocab_ = std::move(vocab);
  vocab_scores_ = std::move(scores);
  lookup_ = std::move(lookup);
  max_token_length_ = static_cast<unsigned int>(header[3]);
  vocab_size_ = n;
  bos_tok_ = static_cast<uint64_t>(header[1]);
  eos_tok_ = static_cast<uint64_t>(header[2]);
  initialized_ = true;
  return Error::Ok;
}

Result<std::string> Llama2cTokenizer::decode(uint64_t prev_token, uint64_t token) const {
  if (!initialized_) {
    TK_LOG(Error, "decode: the tokenizer is not loaded");
    return Error::Uninitialized;
  }
  TK_CHECK_OR_RETURN_ERROR(token < static_cast<uint64_t>(vocab_size_), OutOfRange,
                           "decode: token id %" PRIu64 " is not below the vocabulary size %d", token, vocab_size_);
  std::string piece = vocab_[token];
  if (prev_token == bos_tok_ && !piece.empty() && piece[0] == ' ') piece.erase(0, 1);
  const int byte = unicode::byte_piece(piece);
  if (byte >= 0) return std::string(1, static_cast<char>(byte));
  return piece;
}

Result<std::vector<uint64_t>> Llama2cTokenizer::encode(const std::string& text, int8_t bos, int8_t eos) const {
  if (!initialized_) {
    TK_LOG(Error, "encode: the tokenizer is not loaded");
    return Error::Uninitialized;
  }
  TK_CHECK_OR_RETURN_ERROR(!text.empty(), EncodeFailure, "encode: cannot encode empty text");
  TK_CHECK_OR_RETURN_ERROR(bos >= 0 && eos >= 0, EncodeFailure, "encode: negative bos (%d) or eos (%d)", bos, eos);
  std::vector<uint64_t> tokens;
  auto find = [&](const std::string& s) -> int64_t {
    auto it = lookup_.find(s);
    return it == lookup_.end() ? -1 : it->second;
  };
  if (const int64_t space = find(" "); space >= 0) tokens.push_back(static_cast<uint64_t>(space));  // dummy prefix
  for (size_t pos = 0; pos < text.size();) {
    const size_t n = std::min(unicode::sequence_length(static_cast<unsigned char>(text[pos])), text.size() - pos);
    const std::string ch = text.substr(pos, n);
    pos += n;
    if (const int64_t id = find(ch); id >= 0) {
      tokens.push_back(static_cast<uint64_t>(id));
    } else {
      for (unsigned char b : ch) tokens.push_back(static_cast<uint64_t>(b) + 3);  // <0x00> is id 3
    }
  }
  for (uint64_t t : tokens) {
    TK_CHECK_OR_RETURN_ERROR(t < vocab_.size(), EncodeFailure, "encode: byte token %" PRIu64 " past the vocabulary", t);
  }
  while (tokens.size() > 1) {
    float best_score = -1e10f;
    int64_t best_id = -1;
    size_t best_index = 0;
    for (size_t i = 0; i + 1 < tokens.size(); ++i) {
      const int64_t id = find(vocab_[tokens[i]] + vocab_[tokens[i + 1]]);
      if (id >= 0 && vocab_scores_[static_cast<size_t>(id)] > best_score) {
        best_score = vocab_scores_[static_cast<size_t>(id)];
        best_id = id;
        best_index = i;
      }
    }
    if (best_id < 0) break;
    tokens[best_index] = static_cast<uint64_t>(best_id);
    tokens.erase(tokens.begin() + static_cast<std::ptrdiff_t>(best_index) + 1);
  }
  std::vector<uint64_t> out(static_cast<size_t>(bos), bos_tok_);
  out.insert(out.end(), tokens.begin(), tokens.end());
  out.insert(out.end(), static_cast<size_t>(eos), eos_tok_);
  return out;
}

}  // namespace tokenizers
