#pragma once
// The PCRE2 implementation of IRegex (upstream's pytorch/tokenizers pcre2_regex.h). PCRE2 itself is private to
// libexecutorch_llm: this header does not include pcre2.h.
#include <memory>
#include <string>
#include <vector>

#include <executorch/runtime/export.h>
#include <pytorch/tokenizers/regex.h>

namespace tokenizers {

class EXECUTORCH_API Pcre2Regex : public IRegex {
 public:
  explicit Pcre2Regex() = default;
  explicit Pcre2Regex(const std::string& pattern);
  ~Pcre2Regex() override;
  Pcre2Regex(const Pcre2Regex&) = delete;
  Pcre2Regex& operator=(const Pcre2Regex&) = delete;

  Error compile(const std::string& pattern) override;
  std::vector<Match> find_all(const std::string& text) const override;
  bool ok() const { return code_ != nullptr; }

 private:
  void* code_ = nullptr;  // pcre2_code_8*
};

}  // namespace tokenizers
