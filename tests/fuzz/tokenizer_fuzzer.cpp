// libFuzzer target for tokenizer files (the C++ tokenizers of libexecutorch_llm): an input is one selector byte
// (which reader: HF tokenizer.json, tiktoken, SentencePiece .model, llama2.c tokenizer.bin, tekken.json) followed by
// the file's bytes; a file that loads encodes a fixed multilingual text and the input's own tail, and every id decodes.
// The seed corpus is made at test time from tests/fixtures/tokenizers (tests/test_robustness.py). Built with clang
// (-DEXECUTORCH_BUILD_FUZZER=ON).
#include <pytorch/tokenizers/hf_tokenizer.h>
#include <pytorch/tokenizers/llama2c_tokenizer.h>
#include <pytorch/tokenizers/sentencepiece.h>
#include <pytorch/tokenizers/tekken.h>
#include <pytorch/tokenizers/tiktoken.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace {

std::string g_path;

std::unique_ptr<tokenizers::Tokenizer> make(uint8_t selector) {
  switch (selector % 5) {
    case 0: return std::make_unique<tokenizers::HFTokenizer>();
    case 1: return std::make_unique<tokenizers::Tiktoken>();
    case 2: return std::make_unique<tokenizers::SPTokenizer>();
    case 3: return std::make_unique<tokenizers::Llama2cTokenizer>();
    default: return std::make_unique<tokenizers::Tekken>();
  }
}

void exercise(const tokenizers::Tokenizer& tok, const std::string& text) {
  auto ids = tok.encode(text, 1, 1);
  if (!ids.ok()) return;
  uint64_t prev = tok.bos_tok();
  for (uint64_t id : *ids) {
    (void)tok.decode(prev, id);
    prev = id;
  }
  (void)tok.decode(prev, static_cast<uint64_t>(tok.vocab_size()));  // one past the vocabulary: an error
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_path = "/tmp/tokenizer_fuzzer." + std::to_string(getpid());
  setenv("EXECUTORCH_LOG_LEVEL", "fatal", 0);  // the readers log every refused file (through the runtime's log)
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::FILE* f = std::fopen(g_path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data + 1, 1, size - 1, f);
  std::fclose(f);
  std::unique_ptr<tokenizers::Tokenizer> tok = make(data[0]);
  if (tok->load(g_path) == tokenizers::Error::Ok) {
    exercise(*tok, "Hello, world!  \t\n 123 caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80 <|begin_of_text|>x");
    exercise(*tok, std::string(reinterpret_cast<const char*>(data + 1), std::min<size_t>(size - 1, 256)));
  }
  return 0;
}
