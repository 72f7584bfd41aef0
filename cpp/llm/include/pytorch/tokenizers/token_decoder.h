#pragma once
// The decoder interface of HFTokenizer (upstream's pytorch/tokenizers token_decoder.h: TokenDecoder, its Ptr).
// The decoders of tokenizer.json (ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip, Sequence) are private
// to libexecutorch_llm; this header needs no JSON library.
#include <memory>
#include <string>

namespace tokenizers {

class TokenDecoder {
 public:
  typedef std::shared_ptr<TokenDecoder> Ptr;
  // The text of one token's string.
  virtual std::string decode(const std::string& token) const = 0;
  virtual ~TokenDecoder() = default;
};

}  // namespace tokenizers
