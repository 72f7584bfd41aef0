// PCRE2 regexes of the C++ tokenizers (pytorch/tokenizers/regex.h, pcre2_regex.h): UTF-8 with Unicode
// properties (PCRE2_UTF | PCRE2_UCP), invalid UTF-8 in the subject tolerated (PCRE2_MATCH_INVALID_UTF), JIT when
// the library has it.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <pytorch/tokenizers/pcre2_regex.h>
#include <pytorch/tokenizers/regex.h>

#include <atomic>

namespace tokenizers {

namespace {
std::atomic<FallbackRegexFn> g_fallback{nullptr};

size_t utf8_char_length(const std::string& text, size_t pos) {
  const unsigned char c = static_cast<unsigned char>(text[pos]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  return pos + n > text.size() ? text.size() - pos : n;
}
}  // namespace

Pcre2Regex::Pcre2Regex(const std::string& pattern) { (void)compile(pattern); }

Pcre2Regex::~Pcre2Regex() {
  if (code_ != nullptr) pcre2_code_free(static_cast<pcre2_code*>(code_));
}

Error Pcre2Regex::compile(const std::string& pattern) {
  if (code_ != nullptr) {
    pcre2_code_free(static_cast<pcre2_code*>(code_));
    code_ = nullptr;
  }
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  pcre2_code* code =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                    PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &error_code, &error_offset, nullptr);
  if (code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error_code, message, sizeof(message));
    TK_LOG(Error, "bad regex at offset %zu: %s (pattern: %.200s)", static_cast<size_t>(error_offset),
           reinterpret_cast<const char*>(message), pattern.c_str());
    return Error::RegexFailure;
  }
  (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // an interpreter fallback is fine where JIT is absent
  code_ = code;
  return Error::Ok;
}

std::vector<Match> Pcre2Regex::find_all(const std::string& text) const {
  std::vector<Match> matches;
  if (code_ == nullptr) return matches;
  auto* code = static_cast<pcre2_code*>(code_);
  pcre2_match_data* data = pcre2_match_data_create_from_pattern(code, nullptr);
  if (data == nullptr) return matches;
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t offset = 0;
  while (offset <= text.size()) {
    const int rc = pcre2_match(code, subject, text.size(), offset, 0, data, nullptr);
    if (rc < 0) {
      if (rc != PCRE2_ERROR_NOMATCH) TK_LOG(Error, "regex match failed (PCRE2 error %d) at offset %zu", rc, offset);
      break;
    }
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data);
    const size_t start = ovector[0], end = ovector[1];
    if (end > start) {
      matches.push_back({start, end});
      offset = end;
    } else {
      if (start >= text.size()) break;
      offset = start + utf8_char_length(text, start);
    }
  }
  pcre2_match_data_free(data);
  return matches;
}

std::string IRegex::escape(const std::string& input) {
  std::string out;
  out.reserve(input.size() * 2);
  for (char c : input) {
    const unsigned char u = static_cast<unsigned char>(c);
    const bool word =
        u >= 0x80 || (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_';
    if (!word) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

Result<std::unique_ptr<IRegex>> create_regex(const std::string& pattern) {
  auto regex = std::make_unique<Pcre2Regex>();
  if (regex->compile(pattern) == Error::Ok) return std::unique_ptr<IRegex>(std::move(regex));
  if (FallbackRegexFn fallback = g_fallback.load()) return fallback(pattern);
  return Error::RegexFailure;
}

bool register_override_fallback_regex(FallbackRegexFn fn) {
  g_fallback.store(fn);
  return true;
}

FallbackRegexFn get_fallback_regex() { return g_fallback.load(); }

}  // namespace tokenizers
