#pragma once
// Llama2cTokenizer: llama2.c's tokenizer.bin (upstream's pytorch/tokenizers llama2c_tokenizer.h), as upstream's
// converter writes it: int32 vocab_size, bos id, eos id, max_token_length, then per token a float32 score, an
// int32 byte length and the bytes (SentencePiece's "▁" written as a space). Encoding is SentencePiece BPE's: a
// leading space, characters (bytes <0xXX> at ids 3 + byte for unknown ones), then the best-scoring merges.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <executorch/runtime/export.h>
#include <pytorch/tokenizers/tokenizer.h>

namespace tokenizers {

class EXECUTORCH_API Llama2cTokenizer : public Tokenizer {
 public:
  explicit Llama2cTokenizer();
  ~Llama2cTokenizer() override;

  Error load(const std::string& tokenizer_path) override;
  Result<std::vector<uint64_t>> encode(const std::string& input, int8_t bos = 0, int8_t eos = 0) const override;
  Result<std::string> decode(uint64_t prev_token, uint64_t token) const override;

 private:
  std::vector<std::string> vocab_;
  std::vector<float> vocab_scores_;
  std::unordered_map<std::string, int32_t> lookup_;
  unsigned int max_token_length_ = 0;
};

}  // namespace tokenizers
