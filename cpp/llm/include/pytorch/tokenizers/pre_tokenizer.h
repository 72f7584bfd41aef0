#pragma once
// The pre-tokenizer interface of HFTokenizer (upstream's pytorch/tokenizers pre_tokenizer.h: PreTokenizer, its
// Ptr). The pre-tokenizers of tokenizer.json (Sequence, Split, ByteLevel, Metaspace, Digits, Whitespace,
// WhitespaceSplit, Punctuation) are private to libexecutorch_llm; this header needs no JSON library.
#include <memory>
#include <string>
#include <vector>

namespace tokenizers {

class PreTokenizer {
 public:
  typedef std::shared_ptr<PreTokenizer> Ptr;
  // The pieces of `input`, each encoded by the model on its own.
  virtual std::vector<std::string> pre_tokenize(const std::string& input) const = 0;
  virtual ~PreTokenizer() = default;
};

}  // namespace tokenizers
