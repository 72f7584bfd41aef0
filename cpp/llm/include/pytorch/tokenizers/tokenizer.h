#pragma once
// The abstract tokenizer of the C++ tokenizers (upstream's pytorch/tokenizers tokenizer.h: the same API).
// Implementations in libexecutorch_llm: HFTokenizer (hf_tokenizer.h), Tiktoken (tiktoken.h), Llama2cTokenizer
// (llama2c_tokenizer.h), SPTokenizer (sentencepiece.h). docs/llm.md, "C++ tokenizers".
#include <cstdint>
#include <string>
#include <vector>

#include <pytorch/tokenizers/error.h>
#include <pytorch/tokenizers/result.h>

namespace tokenizers {

struct TokenIndex {
  const char* str;
  int32_t id;
};

class Tokenizer {
 public:
  explicit Tokenizer() {}
  virtual ~Tokenizer() {}

  // Reads the tokenizer artifact; Error::Ok, or an error (logged with what is wrong and where).
  virtual Error load(const std::string& tokenizer_path) = 0;

  // The ids of `input`, after `bos` BOS tokens and before `eos` EOS tokens.
  virtual Result<std::vector<uint64_t>> encode(const std::string& input, int8_t bos = 0, int8_t eos = 0) const = 0;

  // The text of `token` when it follows `prev_token`: concatenating decode(prev, cur) over a sequence that starts
  // after BOS gives the text of the whole sequence.
  virtual Result<std::string> decode(uint64_t prev_token, uint64_t token) const = 0;

  int32_t vocab_size() const { return vocab_size_; }
  uint64_t bos_tok() const { return bos_tok_; }
  uint64_t eos_tok() const { return eos_tok_; }
  virtual bool is_loaded() const { return initialized_; }

 protected:
  bool initialized_ = false;
  int32_t vocab_size_ = 0;
  uint64_t bos_tok_ = 0, eos_tok_ = 0;
};

}  // namespace tokenizers
