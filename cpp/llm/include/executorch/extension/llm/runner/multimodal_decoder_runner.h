#pragma once
// The decoder of a multimodal program (upstream: extension/llm/runner/multimodal_decoder_runner.h, the same class
// and methods): step() embeds tokens with the program's token_embedding method and runs text_decoder on the
// embeddings at start_pos; decode() runs text_decoder on embeddings an encoder made.
//
// Differs from upstream: a program without those methods, or a text_decoder that returns other than one tensor, is
// an error (upstream aborts).
#include <string>
#include <unordered_set>

#include <executorch/extension/llm/runner/constants.h>
#include <executorch/extension/llm/runner/text_decoder_runner.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch::extension::llm {

class MultimodalDecoderRunner : public executorch::extension::llm::TextDecoderRunner {
 public:
  explicit MultimodalDecoderRunner(Module* module, IOManager* io_manager, std::string method_name = "forward",
                                   std::unique_ptr<Sampler> sampler = nullptr)
      : TextDecoderRunner(module, io_manager, std::move(method_name), std::move(sampler)) {}

  // The logits of the last of `tokens` ([1, n] int64) at KV-cache position start_pos.
  inline executorch::runtime::Result<executorch::aten::Tensor> step(executorch::extension::TensorPtr& tokens,
                                                                    int64_t start_pos) override {
    auto embedded = module_->execute(kTokenEmbeddingMethod, tokens);
    if (!embedded.ok()) return embedded.error();
    if (embedded->empty()) return executorch::runtime::Error::InvalidProgram;
    return decode((*embedded)[0], start_pos);
  }

  // text_decoder on `embeddings` ([1, n, dim]) at start_pos: its logits.
  inline executorch::runtime::Result<executorch::aten::Tensor> decode(const runtime::EValue& embeddings,
                                                                      int64_t start_pos) {
    auto start_pos_tensor = ::executorch::extension::from_blob(&start_pos, {1}, executorch::aten::ScalarType::Long);
    auto outputs = module_->execute(kTextModelMethod, {embeddings, runtime::EValue(*start_pos_tensor)});
    if (!outputs.ok()) return outputs.error();
    if (outputs->size() != 1 || !(*outputs)[0].isTensor()) {
      ET_LOG(Error, "%s returned %zu outputs; one tensor of logits expected", kTextModelMethod, outputs->size());
      return executorch::runtime::Error::InvalidProgram;
    }
    return (*outputs)[0].toTensor();
  }

  // Loads token_embedding and text_decoder.
  inline executorch::runtime::Error load() override {
    if (is_method_loaded()) return executorch::runtime::Error::Ok;
    for (const char* name : {kTokenEmbeddingMethod, kTextModelMethod}) {
      const auto err = module_->load_method(name);
      if (err != executorch::runtime::Error::Ok) {
        ET_LOG(Error, "Failed to load method '%s' of the multimodal program", name);
        return err;
      }
    }
    return executorch::runtime::Error::Ok;
  }

  // Whether token_embedding and text_decoder are loaded (false, with a log line, when the program lacks them).
  inline bool is_method_loaded() override {
    auto methods = module_->method_names();
    if (!methods.ok()) return false;
    if (methods->count(kTokenEmbeddingMethod) == 0 || methods->count(kTextModelMethod) == 0) {
      ET_LOG(Error, "Missing required methods (%s, %s) in the model", kTokenEmbeddingMethod, kTextModelMethod);
      return false;
    }
    return module_->is_method_loaded(kTokenEmbeddingMethod) && module_->is_method_loaded(kTextModelMethod);
  }
};

}  // namespace executorch::extension::llm
