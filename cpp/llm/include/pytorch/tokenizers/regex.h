#pragma once
// Regular expressions of the C++ tokenizers (upstream's pytorch/tokenizers regex.h: the same API). The one
// implementation is PCRE2 (UTF-8, Unicode properties, look-around; JIT-compiled where available), linked into
// libexecutorch_llm, so patterns such as Llama 3's `\s+(?!\S)` and `\p{L}` work as written.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <executorch/runtime/export.h>
#include <pytorch/tokenizers/result.h>

namespace tokenizers {

struct Match {
  size_t start;  // byte offset of the first byte of the match
  size_t end;    // byte offset one past the last byte of the match
};

class EXECUTORCH_API IRegex {
 public:
  virtual ~IRegex() = default;
  // Compiles `pattern`; Error::RegexFailure (logged with the position and reason) if it is not valid.
  virtual Error compile(const std::string& pattern) = 0;
  // Every non-overlapping match, left to right (an empty match advances by one character).
  virtual std::vector<Match> find_all(const std::string& text) const = 0;
  // `input` with every regex metacharacter escaped, so that it matches literally.
  static std::string escape(const std::string& input);
};

using FallbackRegexFn = Result<std::unique_ptr<IRegex>> (*)(const std::string&);

// A compiled regex for `pattern` (PCRE2), or the fallback registered below if PCRE2 cannot compile it.
EXECUTORCH_API Result<std::unique_ptr<IRegex>> create_regex(const std::string& pattern);
EXECUTORCH_API bool register_override_fallback_regex(FallbackRegexFn fn);
EXECUTORCH_API FallbackRegexFn get_fallback_regex();

}  // namespace tokenizers
