#pragma once
// Tekken: Mistral's tekken.json (upstream's pytorch/tokenizers tekken.h). A tiktoken vocabulary in JSON (base64
// token bytes by rank), its pre-tokenization pattern, and special tokens that take the first
// config.default_num_special_tokens ids (the file's list, or the v3 defaults when it has none; the rest of the slots
// "<SPECIAL_i>"); vocabulary token r gets id r + default_num_special_tokens, as Mistral's mistral-common gives it.
// BOS is "<s>", EOS "</s>". The file's JSON is read inside the library: this header needs no JSON parser.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <executorch/runtime/export.h>
#include <pytorch/tokenizers/bpe_tokenizer_base.h>
#include <pytorch/tokenizers/error.h>
#include <pytorch/tokenizers/regex.h>
#include <pytorch/tokenizers/result.h>

namespace tokenizers {

class EXECUTORCH_API Tekken : public detail::BPETokenizerBase {
 public:
  struct TekkenConfig {
    std::string pattern;
    size_t num_vocab_tokens;
    size_t default_vocab_size;
    size_t default_num_special_tokens;
    std::string version;
  };

  struct TokenInfo {
    uint64_t rank;
    std::string token_bytes;  // base64
    std::optional<std::string> token_str;
  };

  struct SpecialTokenInfo {
    uint64_t rank;
    std::string token_str;
    bool is_control;
  };

  explicit Tekken();
  ~Tekken() override;

  // Reads tekken.json: its config, vocab and special_tokens.
  Error load(const std::string& tokenizer_path) override;

  // As upstream's: the same as load() (the file's special tokens win).
  Error load_with_special_tokens(const std::string& tokenizer_path,
                                 const std::vector<SpecialTokenInfo>& special_tokens);

  // config.version of the loaded file ("v7", ...).
  const std::string& get_version() const { return _version; }

 protected:
  Error _encode(const std::string& input, std::vector<uint64_t>& ret, uint64_t& last_piece_token_len) const override;
  void _decode(const std::string& input, std::string& ret) const override;

 private:
  // Mistral's special tokens of the files that list none (tokenizer v3 and older).
  static std::vector<SpecialTokenInfo> _get_default_special_tokens();

  size_t _num_special_tokens = 1000;
  std::string _version;
  std::string _pattern;
  std::unique_ptr<IRegex> _regex;
};

}  // namespace tokenizers
