#pragma once
// HFTokenizer: a Hugging Face tokenizer.json with a BPE model (upstream's pytorch/tokenizers hf_tokenizer.h).
// load() takes the tokenizer.json file or a directory holding tokenizer.json (and optionally
// tokenizer_config.json, whose bos_token / eos_token then name BOS and EOS). Supported: byte-level and Metaspace
// BPE (byte_fallback, ignore_merges, fuse_unk, continuing_subword_prefix, end_of_word_suffix; merges as "a b"
// strings or [a, b] pairs), added tokens (special or not; lstrip, rstrip, single_word, normalized), the
// normalizers, pre-tokenizers and decoders listed in docs/llm.md ("C++ tokenizers"). Anything else -> an Error
// at load time, with a log line naming it.
#include <memory>
#include <string>
#include <vector>

#include <executorch/runtime/export.h>
#include <pytorch/tokenizers/bpe_tokenizer_base.h>
#include <pytorch/tokenizers/error.h>
#include <pytorch/tokenizers/normalizer.h>
#include <pytorch/tokenizers/pre_tokenizer.h>
#include <pytorch/tokenizers/result.h>
#include <pytorch/tokenizers/token_decoder.h>

namespace tokenizers {

class EXECUTORCH_API HFTokenizer : public detail::BPETokenizerBase {
 public:
  explicit HFTokenizer();
  ~HFTokenizer() override;

  Error load(const std::string& tokenizer_path) override;

  Result<std::vector<uint64_t>> encode(const std::string& input, int8_t bos = 0, int8_t eos = 0) const override;
  // After BOS (prev_token == bos_tok()) a token is decoded as the first of the text (a Metaspace / Strip decoder
  // drops its leading space); otherwise as the continuation of prev_token.
  Result<std::string> decode(uint64_t prev_token, uint64_t token) const override;

  struct Impl;

 private:
  Error _encode(const std::string& input, std::vector<uint64_t>& ret, uint64_t& last_piece_token_len) const override;
  void _decode(const std::string& input, std::string& ret) const override;

  std::unique_ptr<Impl> impl_;
};

}  // namespace tokenizers
