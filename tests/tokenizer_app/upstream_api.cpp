// Uses every public header of pytorch/tokenizers the way upstream's README, tests and ExecuTorch's llama runner
// do; it must compile unchanged against our headers. Run: upstream_api <tokenizer.json> <tiktoken file> <sp
// model> <llama2c bin>; prints "ok" when every call behaves.
#include <pytorch/tokenizers/base64.h>
#include <pytorch/tokenizers/bpe_tokenizer_base.h>
#include <pytorch/tokenizers/error.h>
#include <pytorch/tokenizers/hf_tokenizer.h>
#include <pytorch/tokenizers/llama2c_tokenizer.h>
#include <pytorch/tokenizers/log.h>
#include <pytorch/tokenizers/normalizer.h>
#include <pytorch/tokenizers/pcre2_regex.h>
#include <pytorch/tokenizers/pre_tokenizer.h>
#include <pytorch/tokenizers/regex.h>
#include <pytorch/tokenizers/result.h>
#include <pytorch/tokenizers/sentencepiece.h>
#include <pytorch/tokenizers/string_integer_map.h>
#include <pytorch/tokenizers/tekken.h>
#include <pytorch/tokenizers/tiktoken.h>
#include <pytorch/tokenizers/token_decoder.h>
#include <pytorch/tokenizers/tokenizer.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

using namespace tokenizers;

namespace {

int failures = 0;

#define EXPECT(cond)                                                 \
  do {                                                               \
    if (!(cond)) {                                                   \
      std::fprintf(stderr, "FAILED line %d: %s\n", __LINE__, #cond); \
      ++failures;                                                    \
    }                                                                \
  } while (0)

// The llama runner's get_special_tokens() shape: 256 special tokens, BOS at 0 and EOS at 1.
std::unique_ptr<std::vector<std::string>> llama3_special_tokens() {
  auto tokens = std::make_unique<std::vector<std::string>>(
      std::vector<std::string>{"<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>",
                               "<|eot_id|>", "<|python_tag|>"});
  return tokens;
}

Error uses_check_macros(bool cond) {
  TK_CHECK_OR_RETURN_ERROR(cond, ParseFailure, "condition %s failed", "cond");
  TK_CHECK_OK_OR_RETURN_ERROR(Error::Ok);
  return Error::Ok;
}

Result<size_t> uses_unwrap(Tokenizer& tok) {
  auto ids = TK_UNWRAP(tok.encode("hello world", 1, 0));
  return ids.size();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) return 2;
  TK_LOG(Info, "upstream_api: %d arguments", argc);

  std::unique_ptr<Tokenizer> hf = std::make_unique<HFTokenizer>();
  EXPECT(!hf->is_loaded());
  EXPECT(hf->encode("x", 0, 0).error() == Error::Uninitialized);
  EXPECT(hf->load(argv[1]) == Error::Ok);
  EXPECT(hf->is_loaded());
  Result<std::vector<uint64_t>> encoded = hf->encode("Hello world", 1, 0);
  EXPECT(encoded.ok() && encoded.get().size() >= 2 && (*encoded)[0] == hf->bos_tok());
  std::string text;
  uint64_t prev = hf->bos_tok();
  for (size_t i = 1; i < encoded->size(); ++i) {
    Result<std::string> piece = hf->decode(prev, (*encoded)[i]);
    EXPECT(piece.ok());
    text += piece.get();
    prev = (*encoded)[i];
  }
  EXPECT(text == "Hello world");
  EXPECT(hf->vocab_size() > 0);
  auto count = uses_unwrap(*hf);
  EXPECT(count.ok() && *count >= 2);

  Tiktoken tiktoken(llama3_special_tokens(), kBOSTokenIndex, kEOSTokenIndex);
  EXPECT(tiktoken.load(argv[2]) == Error::Ok);
  auto tt = tiktoken.encode("Hello world", 1, 1);
  EXPECT(tt.ok() && tt->front() == tiktoken.bos_tok() && tt->back() == tiktoken.eos_tok());
  Tiktoken default_tiktoken;
  EXPECT(default_tiktoken.load(argv[2]) == Error::Ok);
  EXPECT(default_tiktoken.vocab_size() == tiktoken.vocab_size() - 6 + kSpecialTokensSize);

  SPTokenizer sp;
  EXPECT(sp.load(argv[3]) == Error::Ok);
  auto sp_ids = sp.encode("Hello world", 1, 0);
  EXPECT(sp_ids.ok() && sp_ids->front() == sp.bos_tok());

  Llama2cTokenizer llama2c;
  EXPECT(llama2c.load(argv[4]) == Error::Ok);
  auto l2_ids = llama2c.encode("Hello world", 1, 0);
  EXPECT(l2_ids.ok() && *l2_ids == *sp_ids);
  EXPECT(llama2c.decode(llama2c.bos_tok(), 100000).error() == Error::OutOfRange);

  // As upstream's test_tekken.cpp: load, version, BOS / EOS, encode with BOS, decode back.
  auto tekken = std::make_unique<Tekken>();
  EXPECT(tekken->load(argv[5]) == Error::Ok);
  EXPECT(tekken->get_version() == "v7" && tekken->bos_tok() == 1 && tekken->eos_tok() == 2);
  auto tk_ids = tekken->encode("Hello world", 1, 0);
  EXPECT(tk_ids.ok() && tk_ids->front() == 1 && (*tk_ids)[1] >= 1000);
  std::string tk_text;
  for (size_t i = 1; tk_ids.ok() && i < tk_ids->size(); ++i)
    tk_text += tekken->decode((*tk_ids)[i - 1], (*tk_ids)[i]).get();
  EXPECT(tk_text == "Hello world");
  EXPECT(Tekken().load_with_special_tokens(argv[5], {{0, "<unk>", true}}) == Error::Ok);

  auto regex = create_regex(R"(\s+(?!\S)|\p{L}+)");
  EXPECT(regex.ok());
  auto matches = (*regex)->find_all("ab  cd");
  EXPECT(matches.size() == 3 && matches[0].start == 0 && matches[0].end == 2);
  EXPECT(create_regex("(unclosed").error() == Error::RegexFailure);
  Pcre2Regex pcre("a+");
  EXPECT(pcre.ok() && pcre.find_all("caaab").size() == 1);
  EXPECT(IRegex::escape("a.b") == "a\\.b");

  auto decoded = base64::decode("aGVsbG8=");
  EXPECT(decoded.ok() && *decoded == "hello");
  EXPECT(base64::decode("a$==").error() == Error::Base64DecodeFailure);

  std::vector<std::pair<std::string, uint64_t>> pairs = {{"a", 0}, {"b", 1}};
  auto map = detail::build_token_map(pairs);
  EXPECT(map.ok() && map->tryGetInteger("b") == 1u && map->tryGetString(0) == std::string_view("a"));
  std::vector<std::pair<std::string, uint64_t>> duplicate = {{"a", 0}, {"a", 1}};
  EXPECT(detail::build_token_map(duplicate).error() == Error::ParseFailure);
  detail::StringIntegerMap<> copy = *map;
  EXPECT(copy.size() == 2 && copy.getElement(1).first == "b");

  EXPECT(uses_check_macros(false) == Error::ParseFailure);
  EXPECT(uses_check_macros(true) == Error::Ok);
  Normalizer::Ptr normalizer;
  PreTokenizer::Ptr pre_tokenizer;
  TokenDecoder::Ptr token_decoder;
  EXPECT(!normalizer && !pre_tokenizer && !token_decoder);

  if (failures == 0) std::printf("ok\n");
  return failures == 0 ? 0 : 1;
}
