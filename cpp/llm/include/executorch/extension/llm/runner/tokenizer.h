#pragma once
// The tokenizer interface of the text runner. Its methods have the shape of upstream's tokenizers::Tokenizer
// (pytorch/tokenizers): encode with a number of BOS / EOS tokens, decode one token given the previous one (so
// a word-joining piece can drop its leading space after BOS). Implement it for your tokenizer, or use the
// SentencePiece adapter in executorch/extension/llm/tokenizers/sentencepiece.h.
#include <cstdint>
#include <string>
#include <vector>

#include <executorch/runtime/core/result.h>

namespace executorch {
namespace extension {
namespace llm {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  virtual executorch::runtime::Result<std::vector<uint64_t>> encode(const std::string& text, int8_t bos,
                                                                    int8_t eos) const = 0;
  virtual executorch::runtime::Result<std::string> decode(uint64_t prev_token, uint64_t token) const = 0;
  virtual uint64_t bos_tok() const = 0;
  virtual uint64_t eos_tok() const = 0;
  virtual int32_t vocab_size() const = 0;
};

}  // namespace llm
}  // namespace extension
}  // namespace executorch
