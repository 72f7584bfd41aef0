#pragma once
// SPTokenizer: a SentencePiece .model file (upstream's pytorch/tokenizers sentencepiece.h). Unlike upstream's,
// it does not wrap libsentencepiece: libexecutorch_llm reads the ModelProto itself and encodes BPE models
// (merges by score) and unigram models (Viterbi), with byte fallback, user-defined pieces, and the identity
// normalization (add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces). A model with a normalization
// rule (precompiled charsmap, e.g. nmt_nfkc) or another model type -> Error::LoadFailure naming it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <executorch/runtime/export.h>
#include <pytorch/tokenizers/tokenizer.h>

namespace tokenizers {

class EXECUTORCH_API SPTokenizer : public Tokenizer {
 public:
  explicit SPTokenizer();
  ~SPTokenizer() override;

  Error load(const std::string& tokenizer_path) override;
  Result<std::vector<uint64_t>> encode(const std::string& input, int8_t bos = 0, int8_t eos = 0) const override;
  // A control token (BOS, EOS) decodes to "", a byte piece <0xXX> to its byte, "▁" to a space; after BOS the
  // leading space of the first piece is dropped.
  Result<std::string> decode(uint64_t prev_token, uint64_t token) const override;

  struct Model;

 private:
  std::unique_ptr<Model> model_;
};

}  // namespace tokenizers
