#pragma once
// The normalizer interface of HFTokenizer (upstream's pytorch/tokenizers normalizer.h: Normalizer, its Ptr).
// The normalizers of tokenizer.json (Sequence, Prepend, Replace, Strip, Lowercase; NFC is refused at load time)
// are private to libexecutorch_llm; this header needs no JSON library.
#include <memory>
#include <string>

namespace tokenizers {

class Normalizer {
 public:
  typedef std::shared_ptr<Normalizer> Ptr;
  virtual std::string normalize(const std::string& input) const = 0;
  virtual ~Normalizer() = default;
};

}  // namespace tokenizers
