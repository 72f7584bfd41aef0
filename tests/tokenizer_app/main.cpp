// tokenize_app <kind> <tokenizer file or directory> <text file>
//   kind: hf | tiktoken | tekken | sp | llama2c | auto (llm_runner_helper.h's load_tokenizer, upstream's probing
//   order: Tekken for a tekken.json, HF, tiktoken, SentencePiece, llama2.c; prints "kind <kind>" first). Prints, one
//   per line:
//     bos <id> / eos <id> / vocab_size <n>
//     ids <id> <id> ...            encode(text, 0, 0)
//     ids_bos_eos <id> ...         encode(text, 1, 1)
//     decoded <hex>                decode(prev, cur) concatenated, starting with prev = BOS
//   Exits 1 (with the library's log line and "error: ..." on stderr) when loading, encoding or decoding fails.
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <pytorch/tokenizers/hf_tokenizer.h>
#include <pytorch/tokenizers/llama2c_tokenizer.h>
#include <executorch/extension/llm/runner/llm_runner_helper.h>
#include <pytorch/tokenizers/sentencepiece.h>
#include <pytorch/tokenizers/tekken.h>
#include <pytorch/tokenizers/tiktoken.h>

namespace {

// Llama 3's pre-tokenization regex, as the fixtures' tiktoken encoding uses it.
const char* kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

std::unique_ptr<tokenizers::Tokenizer> make(const std::string& kind) {
  if (kind == "hf") return std::make_unique<tokenizers::HFTokenizer>();
  if (kind == "tiktoken") {
    std::vector<std::string> special = {"<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>",
                                        "<|end_header_id|>", "<|eot_id|>",      "<|python_tag|>"};
    return std::make_unique<tokenizers::Tiktoken>(kLlama3Pattern, special, 0, 1);
  }
  if (kind == "tekken") return std::make_unique<tokenizers::Tekken>();
  if (kind == "sp") return std::make_unique<tokenizers::SPTokenizer>();
  if (kind == "llama2c") return std::make_unique<tokenizers::Llama2cTokenizer>();
  return nullptr;
}

int fail(const std::string& message, tokenizers::Error error) {
  std::fprintf(stderr, "error: %s: %s (%u)\n", message.c_str(), tokenizers::error_name(error),
               static_cast<unsigned>(error));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s hf|tiktoken|tekken|sp|llama2c|auto <tokenizer> <text file>\n", argv[0]);
    return 2;
  }
  const std::string kind = argv[1], path = argv[2];
  std::ifstream text_file(argv[3], std::ios::binary);
  if (!text_file) return fail(std::string("cannot read ") + argv[3], tokenizers::Error::LoadFailure);
  std::ostringstream buffer;
  buffer << text_file.rdbuf();
  const std::string text = buffer.str();

  std::unique_ptr<tokenizers::Tokenizer> tok;
  if (kind == "auto") {
    tok = executorch::extension::llm::load_tokenizer(path);
    if (!tok) return fail("no tokenizer could load " + path, tokenizers::Error::LoadFailure);
    const tokenizers::Tokenizer* t = tok.get();
    std::printf("kind %s\n", dynamic_cast<const tokenizers::Tekken*>(t)             ? "tekken"
                             : dynamic_cast<const tokenizers::HFTokenizer*>(t)      ? "hf"
                             : dynamic_cast<const tokenizers::Tiktoken*>(t)         ? "tiktoken"
                             : dynamic_cast<const tokenizers::SPTokenizer*>(t)      ? "sp"
                             : dynamic_cast<const tokenizers::Llama2cTokenizer*>(t) ? "llama2c"
                                                                                    : "?");
  } else {
    tok = make(kind);
    if (!tok) return fail("unknown kind " + kind, tokenizers::Error::Internal);
    const tokenizers::Error err = tok->load(path);
    if (err != tokenizers::Error::Ok) return fail("cannot load " + path, err);
  }
  if (!tok->is_loaded()) return fail("not loaded", tokenizers::Error::Uninitialized);
  std::printf("bos %llu\neos %llu\nvocab_size %d\n", static_cast<unsigned long long>(tok->bos_tok()),
              static_cast<unsigned long long>(tok->eos_tok()), tok->vocab_size());

  auto ids = tok->encode(text, 0, 0);
  if (!ids.ok()) return fail("encode", ids.error());
  std::printf("ids");
  for (uint64_t id : *ids) std::printf(" %llu", static_cast<unsigned long long>(id));
  std::printf("\n");
  auto framed = tok->encode(text, 1, 1);
  if (!framed.ok()) return fail("encode with BOS/EOS", framed.error());
  std::printf("ids_bos_eos");
  for (uint64_t id : *framed) std::printf(" %llu", static_cast<unsigned long long>(id));
  std::printf("\n");

  std::string decoded;
  uint64_t prev = tok->bos_tok();
  for (uint64_t id : *ids) {
    auto piece = tok->decode(prev, id);
    if (!piece.ok()) return fail("decode " + std::to_string(id), piece.error());
    decoded += *piece;
    prev = id;
  }
  std::printf("decoded ");
  for (unsigned char c : decoded) std::printf("%02x", c);
  std::printf("\n");
  // An id past the vocabulary is an error, not a crash.
  auto bad = tok->decode(prev, static_cast<uint64_t>(tok->vocab_size()) + 1000);
  std::printf("decode_out_of_range %s\n", bad.ok() ? "ok" : tokenizers::error_name(bad.error()));
  return 0;
}
