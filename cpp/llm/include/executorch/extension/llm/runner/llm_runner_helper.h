#pragma once
// Building LLM runners (upstream: extension/llm/runner/llm_runner_helper.h): the tokenizer for a file, the
// program's metadata and EOS ids, a text runner, a multimodal runner.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <executorch/extension/llm/runner/constants.h>
#include <executorch/extension/module/module.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>
#include <pytorch/tokenizers/tokenizer.h>

namespace executorch::extension::llm {

class TextLLMRunner;
class MultimodalRunner;

// The first tokenizer that loads tokenizer_path, tried in upstream's order: Mistral's Tekken (a file named
// tekken.json), a Hugging Face tokenizer.json (or a directory with one), tiktoken (with special_tokens, pattern and
// the BOS / EOS indices when given; Llama 3's defaults otherwise), SentencePiece, llama2.c. nullptr when none does.
EXECUTORCH_API std::unique_ptr<tokenizers::Tokenizer> load_tokenizer(
    const std::string& tokenizer_path, std::unique_ptr<std::vector<std::string>> special_tokens = nullptr,
    std::optional<std::string> pattern = std::nullopt, size_t bos_token_index = 0, size_t eos_token_index = 1);

// The metadata methods' values (defaults where a method is missing: enable_dynamic_shape 0, get_max_seq_len
// required, get_max_context_len = get_max_seq_len, use_kv_cache 1, use_sdpa_with_kv_cache 0), with get_bos_id and
// get_vocab_size taken from the tokenizer, as upstream.
EXECUTORCH_API ::executorch::runtime::Result<std::unordered_map<std::string, int64_t>> get_llm_metadata(
    tokenizers::Tokenizer* tokenizer, Module* module);

// The program's get_eos_ids, else the tokenizer's EOS.
EXECUTORCH_API std::unordered_set<uint64_t> get_eos_ids(tokenizers::Tokenizer* tokenizer, Module* module);

// A runner for the program at model_path (weights in the program or in data_path / data_files, .ptd);
// nullptr when the tokenizer is not loaded or the program or its metadata cannot be read.
EXECUTORCH_API std::unique_ptr<TextLLMRunner> create_text_llm_runner(
    const std::string& model_path, std::unique_ptr<::tokenizers::Tokenizer> tokenizer,
    std::optional<const std::string> data_path, float temperature = -1.0f, const std::string& method_name = "forward",
    Module::LoadMode load_mode = Module::LoadMode::MmapUseMlockIgnoreErrors);

EXECUTORCH_API std::unique_ptr<TextLLMRunner> create_text_llm_runner(
    const std::string& model_path, std::unique_ptr<::tokenizers::Tokenizer> tokenizer,
    std::vector<std::string> data_files = {}, float temperature = -1.0f,
    std::unique_ptr<::executorch::runtime::EventTracer> event_tracer = nullptr,
    const std::string& method_name = "forward",
    Module::LoadMode load_mode = Module::LoadMode::MmapUseMlockIgnoreErrors);

// A MultimodalRunner of the program at model_path (upstream's methods: token_embedding, text_decoder, and
// vision_encoder / audio_encoder; the metadata methods of get_llm_metadata) with `tokenizer`; its weights in
// data_path when given. nullptr, with the reason logged, when the tokenizer is not loaded or the program's metadata
// cannot be read.
EXECUTORCH_API std::unique_ptr<MultimodalRunner> create_multimodal_runner(
    const std::string& model_path, std::unique_ptr<::tokenizers::Tokenizer> tokenizer,
    std::optional<const std::string> data_path = std::nullopt, Module::LoadMode load_mode = Module::LoadMode::File);

}  // namespace executorch::extension::llm

// The runners' classes, so that the unique_ptrs above can be used with this header alone (upstream's needs
// text_llm_runner.h / multimodal_runner.h too).
#include <executorch/extension/llm/runner/multimodal_runner.h>
#include <executorch/extension/llm/runner/text_llm_runner.h>
