#pragma once
// The tokenizer of the text runner is upstream's tokenizers::Tokenizer (pytorch/tokenizers/tokenizer.h);
// executorch::extension::llm::Tokenizer names the same class, for code written against this SDK's earlier
// interface. Subclass it (load, encode, decode; set vocab_size_, bos_tok_, eos_tok_, initialized_) or use the
// tokenizers of pytorch/tokenizers or the SentencePiece adapter in executorch/extension/llm/tokenizers.
#include <pytorch/tokenizers/tokenizer.h>

namespace executorch {
namespace extension {
namespace llm {

using Tokenizer = ::tokenizers::Tokenizer;

}  // namespace llm
}  // namespace extension
}  // namespace executorch
