#pragma once
// Tiktoken: a tiktoken BPE file ("<base64 token> <rank>" per line; upstream's pytorch/tokenizers tiktoken.h).
// The special tokens get the ids after the last rank, in the order given; BOS and EOS are two of them, by index.
// The default pattern and special tokens are Llama 3's, as upstream's.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <executorch/runtime/export.h>
#include <pytorch/tokenizers/bpe_tokenizer_base.h>
#include <pytorch/tokenizers/regex.h>
#include <pytorch/tokenizers/result.h>
#include <pytorch/tokenizers/tokenizer.h>

namespace tokenizers {

static constexpr int32_t kSpecialTokensSize = 256;
static constexpr size_t kBOSTokenIndex = 0;
static constexpr size_t kEOSTokenIndex = 1;

class EXECUTORCH_API Tiktoken : public detail::BPETokenizerBase {
 public:
  // A BOS or EOS index past the special tokens aborts, as upstream's.
  explicit Tiktoken(std::string pattern, std::unique_ptr<std::vector<std::string>> special_tokens,
                    size_t bos_token_index, size_t eos_token_index)
      : _pattern(std::move(pattern)),
        _special_tokens(std::move(special_tokens)),
        _bos_token_index(bos_token_index),
        _eos_token_index(eos_token_index) {
    if (!_special_tokens || _bos_token_index >= _special_tokens->size() ||
        _eos_token_index >= _special_tokens->size()) {
      TK_LOG(Fatal, "Tiktoken: BOS index %zu or EOS index %zu is not an index of the %zu special tokens",
             _bos_token_index, _eos_token_index, _special_tokens ? _special_tokens->size() : size_t{0});
      std::abort();
    }
  }
  explicit Tiktoken(std::string pattern, const std::vector<std::string>& special_tokens, size_t bos_token_index,
                    size_t eos_token_index)
      : Tiktoken(std::move(pattern), std::make_unique<std::vector<std::string>>(special_tokens), bos_token_index,
                 eos_token_index) {}
  explicit Tiktoken(const std::vector<std::string>& special_tokens, size_t bos_token_index, size_t eos_token_index)
      : Tiktoken(_get_default_patern(), std::make_unique<std::vector<std::string>>(special_tokens), bos_token_index,
                 eos_token_index) {}
  explicit Tiktoken(std::unique_ptr<std::vector<std::string>> special_tokens, size_t bos_token_index,
                    size_t eos_token_index)
      : Tiktoken(_get_default_patern(), std::move(special_tokens), bos_token_index, eos_token_index) {}
  explicit Tiktoken()
      : Tiktoken(_get_default_patern(), _get_default_special_tokens(), kBOSTokenIndex, kEOSTokenIndex) {}
  ~Tiktoken() override;

  Error load(const std::string& tokenizer_path) override;

 private:
  // Llama 3's: <|begin_of_text|>, <|end_of_text|>, ..., <|python_tag|>, then reserved tokens up to 256.
  static std::unique_ptr<std::vector<std::string>> _get_default_special_tokens();
  // Llama 3's pre-tokenization pattern without its `\s+(?!\S)` alternative (upstream's default).
  static std::string _get_default_patern();

  Error _encode(const std::string& input, std::vector<uint64_t>& ret, uint64_t& last_piece_token_len) const override;
  void _decode(const std::string& input, std::string& ret) const override;

  std::string _pattern;
  std::unique_ptr<std::vector<std::string>> _special_tokens;
  size_t _bos_token_index;
  size_t _eos_token_index;
  std::unique_ptr<IRegex> _regex;
};

}  // namespace tokenizers
