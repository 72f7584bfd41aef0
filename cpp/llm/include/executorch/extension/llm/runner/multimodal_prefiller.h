#pragma once
// Prefills a multimodal program with one input (upstream: extension/llm/runner/multimodal_prefiller.h, the same
// class and methods): an image through vision_encoder, audio through audio_encoder, text (encoded with BOS / EOS)
// or tokens through token_embedding; then text_decoder on the embeddings at start_pos, which advances by their
// length. Returns the greedy next token.
#include <cstdint>

#include <executorch/extension/llm/runner/multimodal_decoder_runner.h>
#include <executorch/extension/llm/runner/multimodal_input.h>
#include <executorch/extension/llm/runner/text_decoder_runner.h>
#include <executorch/extension/llm/sampler/sampler.h>
#include <executorch/extension/module/module.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>
#include <pytorch/tokenizers/tokenizer.h>

namespace executorch::extension::llm {

using runtime::Error;
using runtime::Result;
using tokenizers::Tokenizer;

class EXECUTORCH_API MultimodalPrefiller {
 public:
  // None of the pointers is owned: they must outlive the prefiller.
  explicit MultimodalPrefiller(Module* module, MultimodalDecoderRunner* decoder_runner, Tokenizer* tokenizer,
                               IOManager* io_manager);

  // Errors name what is wrong: an image whose dtype or size the encoder does not take, a program without the
  // encoder an input needs, a prompt past the context, an empty encoder output.
  virtual Result<uint64_t> prefill(const MultimodalInput& input, int64_t& start_pos, int32_t bos = 0, int32_t eos = 0);
  // Loads token_embedding, text_decoder and the encoders the program has.
  virtual Error load();
  virtual bool is_method_loaded();
  virtual ~MultimodalPrefiller() = default;

 protected:
  Module* module_;
  MultimodalDecoderRunner* text_decoder_runner_;
  Tokenizer* tokenizer_;
  IOManager* io_manager_;
};

}  // namespace executorch::extension::llm
