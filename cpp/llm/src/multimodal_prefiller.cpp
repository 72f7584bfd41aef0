// MultimodalPrefiller (multimodal_prefiller.h): one input through its encoder (vision_encoder, audio_encoder) or
// token_embedding, then text_decoder at start_pos.
#include <executorch/extension/llm/runner/multimodal_prefiller.h>

#include <cinttypes>
#include <vector>

#include <executorch/extension/llm/runner/constants.h>
#include <executorch/extension/llm/runner/util.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/platform/log.h>

namespace executorch::extension::llm {

using ::executorch::aten::ScalarType;
using ::executorch::runtime::EValue;

namespace {

// The dtype the first input of an encoder method takes (the error of a program without the method, logged).
Result<::executorch::runtime::TensorInfo> encoder_input(Module* module, const char* method, const char* kind) {
  auto meta = module->method_meta(method);
  if (!meta.ok()) {
    ET_LOG(Error, "an %s input needs the program's %s method, which it does not have", kind, method);
    return meta.error();
  }
  if (meta->num_inputs() == 0) {
    ET_LOG(Error, "%s takes no input", method);
    return Error::InvalidProgram;
  }
  return meta->input_tensor_meta(0);
}

// `tensor` in `expected` dtype: as it is, or widened float -> bfloat16 (convert_to_bfloat16); else an error.
Result<TensorPtr> in_dtype(TensorPtr tensor, ScalarType expected, const char* method) {
  if (tensor->scalar_type() == expected) return tensor;
  if (expected == ScalarType::BFloat16 && tensor->scalar_type() == ScalarType::Float) {
    return convert_to_bfloat16(tensor);
  }
  ET_LOG(Error, "%s takes %s data; the input is %s", method, ::executorch::runtime::toString(expected),
         ::executorch::runtime::toString(tensor->scalar_type()));
  return Error::InvalidArgument;
}

// Runs `method` on `args` and returns its first output, which must be a tensor (`what` names it in the error).
Result<EValue> first_tensor(Module* module, const char* method, const std::vector<EValue>& args, const char* what) {
  auto out = module->execute(method, args);
  if (!out.ok()) {
    ET_LOG(Error, "%s failed (error 0x%x): %s", method, static_cast<unsigned>(out.error()),
           ::executorch::runtime::last_error_message());
    return out.error();
  }
  if (out->empty() || !(*out)[0].isTensor()) {
    ET_LOG(Error, "%s returned no %s", method, what);
    return Error::InvalidProgram;
  }
  return (*out)[0];
}

}  // namespace

MultimodalPrefiller::MultimodalPrefiller(Module* module, MultimodalDecoderRunner* decoder_runner, Tokenizer* tokenizer,
                                         IOManager* io_manager)
    : module_(module), text_decoder_runner_(decoder_runner), tokenizer_(tokenizer), io_manager_(io_manager) {}

Result<uint64_t> MultimodalPrefiller::prefill(const MultimodalInput& input, int64_t& start_pos, int32_t bos,
                                              int32_t eos) {
  EValue embeddings;
  std::vector<uint64_t> tokens;
  if (input.is_image() || input.is_audio()) {
    const bool image = input.is_image();
    const char* method = image ? kVisionEncoderMethod : kAudioEncoderMethod;
    auto meta = encoder_input(module_, method, image ? "image" : "audio");
    if (!meta.ok()) return meta.error();
    auto tensor =
        image ? input.get_image().toTensor(/*with_batch=*/meta->sizes().size() == 4) : input.get_audio().toTensor();
    if (!tensor.ok()) return tensor.error();
    auto converted = in_dtype(*tensor, meta->scalar_type(), method);
    if (!converted.ok()) return converted.error();
    auto out = first_tensor(module_, method, {*converted}, "tensor");
    if (!out.ok()) return out.error();
    embeddings = *out;
  } else if (input.is_text() || input.is_tokens()) {
    if (input.is_text()) {
      auto encoded = tokenizer_->encode(input.get_text(), bos, eos);
      if (!encoded.ok()) {
        ET_LOG(Error, "the tokenizer cannot encode the text (tokenizers error %d)", static_cast<int>(encoded.error()));
        return Error::InvalidArgument;
      }
      tokens = std::move(*encoded);
    } else {
      tokens = input.get_tokens();
    }
    if (tokens.empty()) {
      ET_LOG(Error, "an empty %s input", input.type_name());
      return Error::InvalidArgument;
    }
    auto ids = from_blob(tokens.data(), {1, static_cast<executorch::aten::SizesType>(tokens.size())}, ScalarType::Long);
    auto out = first_tensor(module_, kTokenEmbeddingMethod, {ids}, "tensor");
    if (!out.ok()) return out.error();
    embeddings = *out;
  } else {
    ET_LOG(Error, "a %s input is not supported by the multimodal prefiller", input.type_name());
    return Error::NotSupported;
  }

  const auto& emb = embeddings.toTensor();
  const int64_t seq_len = emb.dim() >= 2 ? emb.size(1) : 0;
  if (seq_len == 0) {
    ET_LOG(Error, "The encoder returned an empty output.");
    return Error::InvalidState;
  }
  // The program's context bounds the cache (when it says how long it is): past it, refuse rather than write out
  // of the cache.
  auto names = module_->method_names();
  if (names.ok() && names->count(kMaxContextLen) != 0) {
    auto context = module_->execute(kMaxContextLen);
    if (context.ok() && !context->empty() && (*context)[0].isInt() && start_pos + seq_len > (*context)[0].toInt()) {
      ET_LOG(Error, "the %s input's %" PRId64 " positions from position %" PRId64 " do not fit the context of %" PRId64,
             input.type_name(), seq_len, start_pos, (*context)[0].toInt());
      return Error::InvalidArgument;
    }
  }
  std::vector<int64_t> cache_positions;
  auto positions = populate_start_pos_or_cache_position(module_, start_pos, cache_positions, static_cast<int>(seq_len),
                                                        kTextModelMethod);
  if (!positions.ok()) return positions.error();
  auto logits = first_tensor(module_, kTextModelMethod, {embeddings, EValue(**positions)}, "logits");
  if (!logits.ok()) return logits.error();
  start_pos += seq_len;
  return static_cast<uint64_t>(text_decoder_runner_->logits_to_token(logits->toTensor()));
}

Error MultimodalPrefiller::load() {
  if (is_method_loaded()) return Error::Ok;
  auto names = module_->method_names();
  if (!names.ok()) return names.error();
  for (const char* method : {kTokenEmbeddingMethod, kTextModelMethod, kVisionEncoderMethod, kAudioEncoderMethod}) {
    const bool required = method == kTokenEmbeddingMethod || method == kTextModelMethod;
    if (names->count(method) == 0) {
      if (!required) continue;
      ET_LOG(Error, "the program has no %s method: it is not a multimodal LLM (methods %s, %s needed)", method,
             kTokenEmbeddingMethod, kTextModelMethod);
      return Error::InvalidProgram;
    }
    const Error err = module_->load_method(method);
    if (err != Error::Ok) {
      ET_LOG(Error, "Failed to load method '%s' (error 0x%x): %s", method, static_cast<unsigned>(err),
             ::executorch::runtime::last_error_message());
      return err;
    }
  }
  return Error::Ok;
}

bool MultimodalPrefiller::is_method_loaded() {
  auto names = module_->method_names();
  if (!names.ok()) return false;
  for (const char* method : {kTokenEmbeddingMethod, kTextModelMethod, kVisionEncoderMethod, kAudioEncoderMethod}) {
    const bool required = method == kTokenEmbeddingMethod || method == kTextModelMethod;
    if ((required || names->count(method) != 0) && !module_->is_method_loaded(method)) return false;
  }
  return true;
}

}  // namespace executorch::extension::llm
