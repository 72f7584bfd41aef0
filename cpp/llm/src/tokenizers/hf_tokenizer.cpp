// HFTokenizer (pytorch/tokenizers/hf_tokenizer.h): a Hugging Face tokenizer.json with a BPE model. The pipeline is
// the tokenizers library's: split off added tokens, normalize each remaining segment (then split off the
// "normalized" added tokens), pre-tokenize, BPE each piece; decoding runs the decoder chain.
#include <pytorch/tokenizers/hf_tokenizer.h>

#include <cinttypes>
#include <filesystem>
#include <fstream>
#include <functional>
#include <queue>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "unicode.h"

namespace tokenizers {

namespace {

using json = nlohmann::json;

// Every load-time problem is thrown as a ConfigError (caught in HFTokenizer::load, logged, turned into an Error).
struct ConfigError : std::runtime_error {
  ConfigError(Error e, const std::string& what) : std::runtime_error(what), error(e) {}
  Error error;
};

[[noreturn]] void fail(const std::string& message, Error error = Error::ParseFailure) {
  throw ConfigError(error, message);
}

std::unique_ptr<IRegex> compile_or_fail(const std::string& pattern, const std::string& where) {
  auto regex = create_regex(pattern);
  if (!regex.ok()) fail(where + ": bad regex: " + pattern, Error::RegexFailure);
  return std::move(*regex);
}

std::string replace_all(const std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t next = s.find(from, pos);
    if (next == std::string::npos) break;
    out.append(s, pos, next - pos);
    out += to;
    pos = next + from.size();
  }
  out.append(s, pos, std::string::npos);
  return out;
}

// A "pattern" object of tokenizer.json: {"String": "..."} or {"Regex": "..."}, as a regex.
std::unique_ptr<IRegex> pattern_regex(const json& pattern, const std::string& where) {
  if (pattern.is_object() && pattern.contains("String")) {
    return compile_or_fail(IRegex::escape(pattern.at("String").get<std::string>()), where);
  }
  if (pattern.is_object() && pattern.contains("Regex")) {
    return compile_or_fail(pattern.at("Regex").get<std::string>(), where);
  }
  fail(where + ": pattern must be {\"String\": ...} or {\"Regex\": ...}");
}

std::string regex_replace(const IRegex& regex, const std::string& s, const std::string& content) {
  std::string out;
  size_t pos = 0;
  for (const Match& m : regex.find_all(s)) {
    out.append(s, pos, m.start - pos);
    out += content;
    pos = m.end;
  }
  out.append(s, pos, std::string::npos);
  return out;
}

std::string type_of(const json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("type") || !j.at("type").is_string()) fail(where + ": no \"type\"");
  return j.at("type").get<std::string>();
}

// A non-negative integer field (an id, a count) below `limit`. nlohmann-json converts a float to an integer with a
// plain cast (undefined beyond the integer's range), so only integer JSON numbers are taken.
uint64_t unsigned_of(const json& v, uint64_t limit, const std::string& what) {
  if (!v.is_number_integer() ||
      (v.is_number_unsigned() ? v.get<uint64_t>() >= limit
                              : v.get<int64_t>() < 0 || static_cast<uint64_t>(v.get<int64_t>()) >= limit)) {
    fail(what + " is not an integer from 0 to " + std::to_string(limit - 1));
  }
  return v.is_number_unsigned() ? v.get<uint64_t>() : static_cast<uint64_t>(v.get<int64_t>());
}

template <typename T>
T value_or(const json& j, const char* key, T fallback) {
  if (!j.contains(key) || j.at(key).is_null()) return fallback;
  return j.at(key).get<T>();
}

// ---------------------------------------------------------------------------------------------- normalizers

class PrependNormalizer : public Normalizer {
 public:
  explicit PrependNormalizer(std::string prepend) : prepend_(std::move(prepend)) {}
  std::string normalize(const std::string& input) const override { return input.empty() ? input : prepend_ + input; }

 private:
  std::string prepend_;
};

class ReplaceNormalizer : public Normalizer {
 public:
  ReplaceNormalizer(std::unique_ptr<IRegex> regex, std::string content)
      : regex_(std::move(regex)), content_(std::move(content)) {}
  std::string normalize(const std::string& input) const override { return regex_replace(*regex_, input, content_); }

 private:
  std::unique_ptr<IRegex> regex_;
  std::string content_;
};

class StripNormalizer : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  std::string normalize(const std::string& input) const override {
    size_t begin = 0, end = input.size();
    if (left_) {
      while (begin < end) {
        size_t n = 0;
        if (!unicode::is_whitespace(unicode::decode_at(input, begin, &n))) break;
        begin += n;
      }
    }
    if (right_) {
      while (end > begin) {
        size_t start = end - 1;
        while (start > begin && (static_cast<unsigned char>(input[start]) & 0xC0) == 0x80) --start;
        size_t n = 0;
        if (!unicode::is_whitespace(unicode::decode_at(input, start, &n))) break;
        end = start;
      }
    }
    return input.substr(begin, end - begin);
  }

 private:
  bool left_, right_;
};

// Lowercases ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic capitals (not the whole of Unicode).
class LowercaseNormalizer : public Normalizer {
 public:
  std::string normalize(const std::string& input) const override {
    std::string out;
    out.reserve(input.size());
    for (size_t pos = 0; pos < input.size();) {
      size_t n = 0;
      uint32_t cp = unicode::decode_at(input, pos, &n);
      if (n == 1 && cp == 0xFFFD) {
        out.push_back(input[pos]);
        pos += 1;
        continue;
      }
      unicode::append(out, lower(cp));
      pos += n;
    }
    return out;
  }

 private:
  static uint32_t lower(uint32_t cp) {
    if ((cp >= 'A' && cp <= 'Z') || (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7)) return cp + 32;
    if (cp >= 0x100 && cp <= 0x17F && cp != 0x130 && cp != 0x138 && cp != 0x149 && cp != 0x17F) {
      const bool odd_upper = (cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17E);
      if (odd_upper ? (cp % 2 == 1) : (cp % 2 == 0)) return cp + 1;
      return cp;
    }
    if ((cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2) || (cp >= 0x410 && cp <= 0x42F)) return cp + 32;
    if (cp >= 0x400 && cp <= 0x40F) return cp + 80;
    return cp;
  }
};

class SequenceNormalizer : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<Normalizer::Ptr> normalizers) : normalizers_(std::move(normalizers)) {}
  std::string normalize(const std::string& input) const override {
    std::string s = input;
    for (const auto& n : normalizers_) s = n->normalize(s);
    return s;
  }

 private:
  std::vector<Normalizer::Ptr> normalizers_;
};

Normalizer::Ptr parse_normalizer(const json& j) {
  if (j.is_null()) return nullptr;
  const std::string type = type_of(j, "normalizer");
  if (type == "Sequence") {
    std::vector<Normalizer::Ptr> list;
    for (const auto& item : j.at("normalizers")) {
      if (auto n = parse_normalizer(item)) list.push_back(std::move(n));
    }
    return std::make_shared<SequenceNormalizer>(std::move(list));
  }
  if (type == "Prepend") return std::make_shared<PrependNormalizer>(j.at("prepend").get<std::string>());
  if (type == "Replace") {
    return std::make_shared<ReplaceNormalizer>(pattern_regex(j.at("pattern"), "normalizer Replace"),
                                               j.at("content").get<std::string>());
  }
  if (type == "Strip") {
    return std::make_shared<StripNormalizer>(value_or(j, "strip_left", true), value_or(j, "strip_right", true));
  }
  if (type == "Lowercase") return std::make_shared<LowercaseNormalizer>();
  fail("unsupported normalizer type \"" + type + "\" (supported: Sequence, Prepend, Replace, Strip, Lowercase)",
       Error::LoadFailure);
}

// ------------------------------------------------------------------------------------------- pre-tokenizers

struct Piece {
  std::string text;
  bool at_start;  // the piece starts at offset 0 of the original input (Metaspace's prepend_scheme "first")
};

class PreTok {
 public:
  virtual ~PreTok() = default;
  virtual void apply(std::vector<Piece>& pieces) const = 0;
};
using PreTokPtr = std::unique_ptr<PreTok>;

enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

Behavior parse_behavior(const json& j, Behavior fallback) {
  if (!j.contains("behavior") || j.at("behavior").is_null()) return fallback;
  const std::string b = j.at("behavior").get<std::string>();
  if (b == "Removed") return Behavior::Removed;
  if (b == "Isolated") return Behavior::Isolated;
  if (b == "MergedWithPrevious") return Behavior::MergedWithPrevious;
  if (b == "MergedWithNext") return Behavior::MergedWithNext;
  if (b == "Contiguous") return Behavior::Contiguous;
  fail("unknown split behavior \"" + b + "\"");
}

// Splits `text` into matched and unmatched spans and combines them as the tokenizers library's SplitDelimiter-
// Behavior does.
std::vector<std::pair<size_t, size_t>> split_spans(const std::string& text, const std::vector<Match>& found,
                                                   Behavior behavior, bool invert) {
  struct Span {
    size_t start, end;
    bool is_match;
  };
  std::vector<Span> spans;
  size_t pos = 0;
  for (const Match& m : found) {
    if (m.start > pos) spans.push_back({pos, m.start, invert});
    spans.push_back({m.start, m.end, !invert});
    pos = m.end;
  }
  if (pos < text.size()) spans.push_back({pos, text.size(), invert});

  std::vector<std::pair<size_t, size_t>> out;
  bool previous_match = false;
  switch (behavior) {
    case Behavior::Isolated:
      for (const Span& s : spans) out.emplace_back(s.start, s.end);
      break;
    case Behavior::Removed:
      for (const Span& s : spans) {
        if (!s.is_match) out.emplace_back(s.start, s.end);
      }
      break;
    case Behavior::MergedWithPrevious:
      for (const Span& s : spans) {
        if (s.is_match && !previous_match && !out.empty()) {
          out.back().second = s.end;
        } else {
          out.emplace_back(s.start, s.end);
        }
        previous_match = s.is_match;
      }
      break;
    case Behavior::MergedWithNext:
      for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
        if (it->is_match && !previous_match && !out.empty()) {
          out.back().first = it->start;
        } else {
          out.emplace_back(it->start, it->end);
        }
        previous_match = it->is_match;
      }
      std::reverse(out.begin(), out.end());
      break;
    case Behavior::Contiguous:
      for (size_t i = 0; i < spans.size(); ++i) {
        if (i > 0 && spans[i].is_match == previous_match && !out.empty()) {
          out.back().second = spans[i].end;
        } else {
          out.emplace_back(spans[i].start, spans[i].end);
        }
        previous_match = spans[i].is_match;
      }
      break;
  }
  return out;
}

void split_pieces(std::vector<Piece>& pieces, const IRegex& regex, Behavior behavior, bool invert) {
  std::vector<Piece> out;
  for (const Piece& p : pieces) {
    for (const auto& [start, end] : split_spans(p.text, regex.find_all(p.text), behavior, invert)) {
      if (end > start) out.push_back({p.text.substr(start, end - start), p.at_start && start == 0});
    }
  }
  pieces = std::move(out);
}

class SplitPreTok : public PreTok {
 public:
  SplitPreTok(std::unique_ptr<IRegex> regex, Behavior behavior, bool invert)
      : regex_(std::move(regex)), behavior_(behavior), invert_(invert) {}
  void apply(std::vector<Piece>& pieces) const override { split_pieces(pieces, *regex_, behavior_, invert_); }

 private:
  std::unique_ptr<IRegex> regex_;
  Behavior behavior_;
  bool invert_;
};

// GPT-2's byte <-> character table: printable Latin-1 bytes map to themselves, the others to U+0100 upwards.
const std::vector<std::string>& byte_to_char() {
  static const std::vector<std::string> table = [] {
    std::vector<std::string> t(256);
    uint32_t next = 256;
    for (uint32_t b = 0; b < 256; ++b) {
      const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
      unicode::append(t[b], printable ? b : next++);
    }
    return t;
  }();
  return table;
}

const std::unordered_map<std::string, unsigned char>& char_to_byte() {
  static const std::unordered_map<std::string, unsigned char> table = [] {
    std::unordered_map<std::string, unsigned char> t;
    for (int b = 0; b < 256; ++b) t.emplace(byte_to_char()[b], static_cast<unsigned char>(b));
    return t;
  }();
  return table;
}

constexpr const char* kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

class ByteLevelPreTok : public PreTok {
 public:
  ByteLevelPreTok(bool add_prefix_space, bool use_regex)
      : add_prefix_space_(add_prefix_space),
        regex_(use_regex ? compile_or_fail(kGpt2Pattern, "pre_tokenizer ByteLevel") : nullptr) {}
  void apply(std::vector<Piece>& pieces) const override {
    if (add_prefix_space_) {
      for (Piece& p : pieces) {
        if (p.text.empty() || p.text[0] != ' ') p.text.insert(0, " ");
      }
    }
    if (regex_) split_pieces(pieces, *regex_, Behavior::Isolated, false);
    const auto& table = byte_to_char();
    for (Piece& p : pieces) {
      std::string mapped;
      mapped.reserve(p.text.size() * 2);
      for (char c : p.text) mapped += table[static_cast<unsigned char>(c)];
      p.text = std::move(mapped);
    }
  }

 private:
  bool add_prefix_space_;
  std::unique_ptr<IRegex> regex_;
};

enum class PrependScheme { Always, First, Never };

PrependScheme parse_prepend_scheme(const json& j) {
  if (j.contains("prepend_scheme") && !j.at("prepend_scheme").is_null()) {
    const std::string s = j.at("prepend_scheme").get<std::string>();
    if (s == "always") return PrependScheme::Always;
    if (s == "first") return PrependScheme::First;
    if (s == "never") return PrependScheme::Never;
    fail("unknown Metaspace prepend_scheme \"" + s + "\"");
  }
  return value_or(j, "add_prefix_space", true) ? PrependScheme::Always : PrependScheme::Never;
}

std::string replacement_of(const json& j) {
  std::string r = value_or<std::string>(j, "replacement", "\xE2\x96\x81");
  if (r.empty()) fail("Metaspace: empty replacement");
  return r;
}

class MetaspacePreTok : public PreTok {
 public:
  MetaspacePreTok(std::string replacement, PrependScheme scheme, bool split)
      : replacement_(std::move(replacement)),
        scheme_(scheme),
        split_regex_(split ? compile_or_fail(IRegex::escape(replacement_), "pre_tokenizer Metaspace") : nullptr) {}
  void apply(std::vector<Piece>& pieces) const override {
    for (Piece& p : pieces) {
      p.text = replace_all(p.text, " ", replacement_);
      const bool starts = p.text.compare(0, replacement_.size(), replacement_) == 0;
      if (!starts && (scheme_ == PrependScheme::Always || (scheme_ == PrependScheme::First && p.at_start))) {
        p.text.insert(0, replacement_);
      }
    }
    if (split_regex_) split_pieces(pieces, *split_regex_, Behavior::MergedWithNext, false);
  }

 private:
  std::string replacement_;
  PrependScheme scheme_;
  std::unique_ptr<IRegex> split_regex_;
};

class SequencePreTok : public PreTok {
 public:
  explicit SequencePreTok(std::vector<PreTokPtr> list) : list_(std::move(list)) {}
  void apply(std::vector<Piece>& pieces) const override {
    for (const auto& p : list_) p->apply(pieces);
  }

 private:
  std::vector<PreTokPtr> list_;
};

PreTokPtr parse_pre_tokenizer(const json& j) {
  if (j.is_null()) return nullptr;
  const std::string type = type_of(j, "pre_tokenizer");
  const std::string where = "pre_tokenizer " + type;
  if (type == "Sequence") {
    std::vector<PreTokPtr> list;
    for (const auto& item : j.at("pretokenizers")) {
      if (auto p = parse_pre_tokenizer(item)) list.push_back(std::move(p));
    }
    return std::make_unique<SequencePreTok>(std::move(list));
  }
  if (type == "Split") {
    return std::make_unique<SplitPreTok>(pattern_regex(j.at("pattern"), where), parse_behavior(j, Behavior::Isolated),
                                         value_or(j, "invert", false));
  }
  if (type == "ByteLevel") {
    return std::make_unique<ByteLevelPreTok>(value_or(j, "add_prefix_space", true), value_or(j, "use_regex", true));
  }
  if (type == "Metaspace") {
    return std::make_unique<MetaspacePreTok>(replacement_of(j), parse_prepend_scheme(j), value_or(j, "split", true));
  }
  if (type == "Digits") {
    return std::make_unique<SplitPreTok>(
        compile_or_fail(value_or(j, "individual_digits", false) ? R"(\p{N})" : R"(\p{N}+)", where), Behavior::Isolated,
        false);
  }
  if (type == "Whitespace") {
    return std::make_unique<SplitPreTok>(compile_or_fail(R"(\w+|[^\w\s]+)", where), Behavior::Removed, true);
  }
  if (type == "WhitespaceSplit") {
    return std::make_unique<SplitPreTok>(compile_or_fail(R"(\S+)", where), Behavior::Removed, true);
  }
  if (type == "Punctuation") {
    return std::make_unique<SplitPreTok>(compile_or_fail(R"([\p{P}!-/:-@\[-`{-~])", where),
                                         parse_behavior(j, Behavior::Isolated), false);
  }
  fail("unsupported pre_tokenizer type \"" + type +
           "\" (supported: Sequence, Split, ByteLevel, Metaspace, Digits, Whitespace, WhitespaceSplit, Punctuation)",
       Error::LoadFailure);
}

// ------------------------------------------------------------------------------------------------- decoders

// A decoder step maps the list of token strings (the whole sequence) to a new list, as decode_chain does.
class Dec {
 public:
  virtual ~Dec() = default;
  virtual void apply(std::vector<std::string>& tokens) const = 0;
};
using DecPtr = std::unique_ptr<Dec>;

class ByteLevelDec : public Dec {
 public:
  void apply(std::vector<std::string>& tokens) const override {
    const auto& table = char_to_byte();
    for (std::string& t : tokens) {
      std::string out;
      for (const std::string& ch : unicode::characters(t)) {
        auto it = table.find(ch);
        if (it != table.end()) {
          out.push_back(static_cast<char>(it->second));
        } else {
          out += ch;
        }
      }
      t = std::move(out);
    }
  }
};

class ReplaceDec : public Dec {
 public:
  ReplaceDec(std::unique_ptr<IRegex> regex, std::string content)
      : regex_(std::move(regex)), content_(std::move(content)) {}
  void apply(std::vector<std::string>& tokens) const override {
    for (std::string& t : tokens) t = regex_replace(*regex_, t, content_);
  }

 private:
  std::unique_ptr<IRegex> regex_;
  std::string content_;
};

// <0xHH> -> that byte. Unlike the tokenizers library, a byte sequence that is not valid UTF-8 is passed through
// rather than replaced by U+FFFD (a streaming decode gets the bytes of one character over several tokens).
class ByteFallbackDec : public Dec {
 public:
  void apply(std::vector<std::string>& tokens) const override {
    for (std::string& t : tokens) {
      const int byte = unicode::byte_piece(t);
      if (byte >= 0) t = std::string(1, static_cast<char>(byte));
    }
  }
};

class FuseDec : public Dec {
 public:
  void apply(std::vector<std::string>& tokens) const override {
    std::string all;
    for (const std::string& t : tokens) all += t;
    tokens.assign(1, std::move(all));
  }
};

class StripDec : public Dec {
 public:
  StripDec(std::string content, size_t start, size_t stop) : content_(std::move(content)), start_(start), stop_(stop) {}
  void apply(std::vector<std::string>& tokens) const override {
    for (std::string& t : tokens) {
      size_t begin = 0, end = t.size();
      for (size_t i = 0; i < start_ && t.compare(begin, content_.size(), content_) == 0 && begin < end; ++i) {
        begin += content_.size();
      }
      for (size_t i = 0; i < stop_ && end >= begin + content_.size() &&
                         t.compare(end - content_.size(), content_.size(), content_) == 0;
           ++i) {
        end -= content_.size();
      }
      t = t.substr(begin, end - begin);
    }
  }

 private:
  std::string content_;
  size_t start_, stop_;
};

class MetaspaceDec : public Dec {
 public:
  MetaspaceDec(std::string replacement, PrependScheme scheme) : replacement_(std::move(replacement)), scheme_(scheme) {}
  void apply(std::vector<std::string>& tokens) const override {
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::string t = replace_all(tokens[i], replacement_, " ");
      if (i == 0 && scheme_ != PrependScheme::Never && !t.empty() && t[0] == ' ') t.erase(0, 1);
      tokens[i] = std::move(t);
    }
  }

 private:
  std::string replacement_;
  PrependScheme scheme_;
};

class SequenceDec : public Dec {
 public:
  explicit SequenceDec(std::vector<DecPtr> list) : list_(std::move(list)) {}
  void apply(std::vector<std::string>& tokens) const override {
    for (const auto& d : list_) d->apply(tokens);
  }

 private:
  std::vector<DecPtr> list_;
};

DecPtr parse_decoder(const json& j) {
  if (j.is_null()) return nullptr;
  const std::string type = type_of(j, "decoder");
  if (type == "Sequence") {
    std::vector<DecPtr> list;
    for (const auto& item : j.at("decoders")) {
      if (auto d = parse_decoder(item)) list.push_back(std::move(d));
    }
    return std::make_unique<SequenceDec>(std::move(list));
  }
  if (type == "ByteLevel") return std::make_unique<ByteLevelDec>();
  if (type == "Replace") {
    return std::make_unique<ReplaceDec>(pattern_regex(j.at("pattern"), "decoder Replace"),
                                        j.at("content").get<std::string>());
  }
  if (type == "ByteFallback") return std::make_unique<ByteFallbackDec>();
  if (type == "Fuse") return std::make_unique<FuseDec>();
  if (type == "Strip") {
    return std::make_unique<StripDec>(j.at("content").get<std::string>(),
                                      unsigned_of(j.at("start"), 1ull << 31, "decoder Strip.start"),
                                      unsigned_of(j.at("stop"), 1ull << 31, "decoder Strip.stop"));
  }
  if (type == "Metaspace") return std::make_unique<MetaspaceDec>(replacement_of(j), parse_prepend_scheme(j));
  fail("unsupported decoder type \"" + type +
           "\" (supported: Sequence, ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip)",
       Error::LoadFailure);
}

// ------------------------------------------------------------------------------------------------ BPE model

struct AddedToken {
  uint64_t id;
  std::string content;
  bool single_word, lstrip, rstrip, normalized, special;
};

struct Segment {
  std::string text;
  bool is_token;
  uint64_t id;
  size_t offset;  // in the original input (0 for the first segment)
};

}  // namespace

struct HFTokenizer::Impl {
  std::unordered_map<std::string, uint64_t> vocab;
  std::unordered_map<uint64_t, std::string> id_to_token;               // vocabulary and added tokens
  std::unordered_map<uint64_t, std::pair<uint32_t, uint64_t>> merges;  // (left << 32 | right) -> (rank, new id)
  std::optional<uint64_t> unk_id;
  bool byte_fallback = false, fuse_unk = false, ignore_merges = false;
  std::string continuing_subword_prefix, end_of_word_suffix;

  std::vector<AddedToken> added;
  Normalizer::Ptr normalizer;
  PreTokPtr pre_tokenizer;
  DecPtr decoder;

  static uint64_t key(uint64_t a, uint64_t b) { return (a << 32) | b; }

  void encode_word(const std::string& word, std::vector<uint64_t>& out) const;
  std::vector<Segment> split_added(const std::string& text, size_t offset, bool normalized_pass) const;
  void encode_text(const std::string& input, std::vector<uint64_t>& out) const;
  std::string decode_tokens(std::vector<std::string> tokens) const;
};

void HFTokenizer::Impl::encode_word(const std::string& word, std::vector<uint64_t>& out) const {
  if (word.empty()) return;
  if (ignore_merges) {
    auto it = vocab.find(word);
    if (it != vocab.end()) {
      out.push_back(it->second);
      return;
    }
  }
  struct Symbol {
    uint64_t id;
    ptrdiff_t prev, next;
    bool alive;
  };
  std::vector<Symbol> symbols;
  auto add = [&](uint64_t id) {
    const auto n = static_cast<ptrdiff_t>(symbols.size());
    symbols.push_back({id, n - 1, n + 1, true});
  };
  bool has_pending_unk = false;  // an <unk> not yet added (fuse_unk extends it)
  uint64_t pending_unk = 0;
  const std::vector<std::string> chars = unicode::characters(word);
  for (size_t i = 0; i < chars.size(); ++i) {
    std::string s = chars[i];
    if (i > 0) s = continuing_subword_prefix + s;
    if (i + 1 == chars.size()) s += end_of_word_suffix;
    auto it = vocab.find(s);
    if (it != vocab.end()) {
      if (has_pending_unk) add(pending_unk), has_pending_unk = false;
      add(it->second);
      continue;
    }
    if (byte_fallback) {
      std::vector<uint64_t> bytes;
      for (unsigned char b : s) {
        char name[8];
        std::snprintf(name, sizeof(name), "<0x%02X>", b);
        auto bt = vocab.find(name);
        if (bt == vocab.end()) break;
        bytes.push_back(bt->second);
      }
      if (bytes.size() == s.size()) {
        for (uint64_t b : bytes) add(b);
        continue;
      }
    }
    if (unk_id) {
      if (has_pending_unk && !fuse_unk) add(pending_unk);
      has_pending_unk = true;
      pending_unk = *unk_id;
    }
  }
  if (has_pending_unk) add(pending_unk);
  if (symbols.empty()) return;
  symbols.back().next = -1;

  struct Candidate {
    uint32_t rank;
    size_t pos;
    uint64_t new_id;
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
  auto push_pair = [&](size_t pos) {
    const ptrdiff_t next = symbols[pos].next;
    if (next < 0) return;
    auto it = merges.find(key(symbols[pos].id, symbols[static_cast<size_t>(next)].id));
    if (it != merges.end()) queue.push({it->second.first, pos, it->second.second});
  };
  for (size_t i = 0; i + 1 < symbols.size(); ++i) push_pair(i);
  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    Symbol& left = symbols[top.pos];
    if (!left.alive || left.next < 0) continue;
    const auto right_pos = static_cast<size_t>(left.next);
    auto it = merges.find(key(left.id, symbols[right_pos].id));
    if (it == merges.end() || it->second.second != top.new_id) continue;
    left.id = top.new_id;
    symbols[right_pos].alive = false;
    left.next = symbols[right_pos].next;
    if (left.next >= 0) symbols[static_cast<size_t>(left.next)].prev = static_cast<ptrdiff_t>(top.pos);
    if (left.prev >= 0) push_pair(static_cast<size_t>(left.prev));
    push_pair(top.pos);
  }
  for (const Symbol& s : symbols) {
    if (s.alive) out.push_back(s.id);
  }
}

namespace {
bool is_word_char(uint32_t cp) {
  // Rust's char::is_alphanumeric() || '_' for ASCII; any non-ASCII letter-like code point counts as a word char.
  return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp == '_' ||
         (cp >= 0x80 && !unicode::is_whitespace(cp));
}
uint32_t last_code_point(const std::string& s, size_t end) {
  size_t start = end - 1;
  while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
  size_t n = 0;
  return unicode::decode_at(s, start, &n);
}
}  // namespace

std::vector<Segment> HFTokenizer::Impl::split_added(const std::string& text, size_t offset,
                                                    bool normalized_pass) const {
  std::vector<Segment> out;
  size_t pos = 0, last = 0;
  while (pos < text.size()) {
    const AddedToken* best = nullptr;
    for (const AddedToken& t : added) {
      if (t.normalized != normalized_pass || t.content.empty()) continue;
      if (best && t.content.size() <= best->content.size()) continue;
      if (text.compare(pos, t.content.size(), t.content) != 0) continue;
      if (t.single_word) {
        const size_t stop = pos + t.content.size();
        size_t n = 0;
        if (pos > 0 && is_word_char(last_code_point(text, pos))) continue;
        if (stop < text.size() && is_word_char(unicode::decode_at(text, stop, &n))) continue;
      }
      best = &t;
    }
    if (!best) {
      pos += unicode::sequence_length(static_cast<unsigned char>(text[pos]));
      continue;
    }
    size_t start = pos, stop = pos + best->content.size();
    if (best->lstrip) {
      while (start > last) {
        size_t prev = start - 1;
        while (prev > last && (static_cast<unsigned char>(text[prev]) & 0xC0) == 0x80) --prev;
        size_t n = 0;
        if (!unicode::is_whitespace(unicode::decode_at(text, prev, &n))) break;
        start = prev;
      }
    }
    if (best->rstrip) {
      while (stop < text.size()) {
        size_t n = 0;
        if (!unicode::is_whitespace(unicode::decode_at(text, stop, &n))) break;
        stop += n;
      }
    }
    if (start > last) out.push_back({text.substr(last, start - last), false, 0, offset + last});
    out.push_back({best->content, true, best->id, offset + start});
    last = pos = stop;
  }
  if (last < text.size()) out.push_back({text.substr(last), false, 0, offset + last});
  return out;
}

void HFTokenizer::Impl::encode_text(const std::string& input, std::vector<uint64_t>& out) const {
  for (const Segment& raw : split_added(input, 0, false)) {
    if (raw.is_token) {
      out.push_back(raw.id);
      continue;
    }
    const std::string normalized = normalizer ? normalizer->normalize(raw.text) : raw.text;
    for (const Segment& seg : split_added(normalized, raw.offset, true)) {
      if (seg.is_token) {
        out.push_back(seg.id);
        continue;
      }
      std::vector<Piece> pieces{{seg.text, seg.offset == 0}};
      if (pre_tokenizer) pre_tokenizer->apply(pieces);
      for (const Piece& p : pieces) encode_word(p.text, out);
    }
  }
}

std::string HFTokenizer::Impl::decode_tokens(std::vector<std::string> tokens) const {
  std::string out;
  if (!decoder) {  // the tokenizers library joins the tokens with spaces
    for (size_t i = 0; i < tokens.size(); ++i) out += (i ? " " : "") + tokens[i];
    return out;
  }
  decoder->apply(tokens);
  for (const std::string& t : tokens) out += t;
  return out;
}

HFTokenizer::HFTokenizer() = default;
HFTokenizer::~HFTokenizer() = default;

namespace {

std::string read_file(const std::string& path, bool* ok) {
  std::ifstream file(path, std::ios::binary);
  *ok = static_cast<bool>(file);
  if (!*ok) return {};
  std::ostringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

// bos_token / eos_token of tokenizer_config.json: a string or {"content": "..."}.
std::optional<std::string> config_token(const json& config, const char* key) {
  if (!config.contains(key) || config.at(key).is_null()) return std::nullopt;
  const json& v = config.at(key);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v.at("content").is_string()) return v.at("content").get<std::string>();
  return std::nullopt;
}

// The special tokens a post-processor puts first and last around a single sequence.
void post_processor_tokens(const json& j, std::optional<std::string>& first, std::optional<std::string>& last) {
  if (j.is_null() || !j.is_object()) return;
  const std::string type = value_or<std::string>(j, "type", "");
  if (type == "Sequence" && j.contains("processors")) {
    for (const auto& p : j.at("processors")) post_processor_tokens(p, first, last);
  } else if (type == "TemplateProcessing" && j.contains("single") && j.at("single").is_array()) {
    const json& single = j.at("single");
    if (!single.empty() && single.front().contains("SpecialToken")) {
      first = single.front().at("SpecialToken").at("id").get<std::string>();
    }
    if (!single.empty() && single.back().contains("SpecialToken")) {
      last = single.back().at("SpecialToken").at("id").get<std::string>();
    }
  } else if ((type == "RobertaProcessing" || type == "BertProcessing") && j.contains("cls") && j.contains("sep")) {
    first = j.at("cls").at(0).get<std::string>();
    last = j.at("sep").at(0).get<std::string>();
  }
}

}  // namespace

Error HFTokenizer::load(const std::string& tokenizer_path) {
  namespace fs = std::filesystem;
  std::string json_path = tokenizer_path, config_path;
  std::error_code ec;
  if (fs::is_directory(tokenizer_path, ec)) {
    json_path = (fs::path(tokenizer_path) / "tokenizer.json").string();
    if (!fs::exists(json_path, ec)) {
      TK_LOG(Error, "HFTokenizer: no tokenizer.json in the directory %s", tokenizer_path.c_str());
      return Error::LoadFailure;
    }
    const fs::path config = fs::path(tokenizer_path) / "tokenizer_config.json";
    if (fs::exists(config, ec)) config_path = config.string();
  }
  bool ok = false;
  const std::string contents = read_file(json_path, &ok);
  if (!ok) {
    TK_LOG(Error, "HFTokenizer: cannot open %s", json_path.c_str());
    return Error::LoadFailure;
  }
  auto impl = std::make_unique<Impl>();
  std::optional<std::string> bos_name, eos_name, pp_first, pp_last;
  try {
    json root;
    try {
      root = json::parse(contents);
    } catch (const json::parse_error& e) {
      fail("not valid JSON: " + std::string(e.what()));
    }
    if (!root.is_object() || !root.contains("model")) fail("no \"model\" object (not a tokenizer.json?)");
    const json& model = root.at("model");
    std::string model_type = value_or<std::string>(model, "type", "");
    if (model_type.empty() && model.contains("merges")) model_type = "BPE";
    if (model_type != "BPE") {
      fail("unsupported model type \"" + model_type + "\" (supported: BPE)", Error::LoadFailure);
    }
    if (model.contains("dropout") && !model.at("dropout").is_null() && model.at("dropout").get<double>() != 0.0) {
      TK_LOG(Info, "HFTokenizer: BPE dropout is ignored (encoding is deterministic)");
    }
    if (!model.contains("vocab") || !model.at("vocab").is_object()) fail("model.vocab is not an object");
    for (const auto& [token, id] : model.at("vocab").items()) {
      const uint64_t value = unsigned_of(id, 1ull << 31, "the vocabulary id of token " + token);
      impl->vocab[token] = value;
      impl->id_to_token[value] = token;
    }
    impl->byte_fallback = value_or(model, "byte_fallback", false);
    impl->fuse_unk = value_or(model, "fuse_unk", false);
    impl->ignore_merges = value_or(model, "ignore_merges", false);
    impl->continuing_subword_prefix = value_or<std::string>(model, "continuing_subword_prefix", "");
    impl->end_of_word_suffix = value_or<std::string>(model, "end_of_word_suffix", "");
    if (auto unk = value_or<std::string>(model, "unk_token", ""); !unk.empty()) {
      auto it = impl->vocab.find(unk);
      if (it == impl->vocab.end()) fail("unk_token \"" + unk + "\" is not in the vocabulary");
      impl->unk_id = it->second;
    }
    uint32_t rank = 0;
    for (const auto& merge : value_or<json>(model, "merges", json::array())) {
      std::string a, b;
      if (merge.is_string()) {
        const std::string m = merge.get<std::string>();
        const size_t space = m.find(' ');
        if (space == std::string::npos || m.find(' ', space + 1) != std::string::npos) {
          fail("merge " + std::to_string(rank) + " \"" + m + "\" is not two tokens separated by one space");
        }
        a = m.substr(0, space), b = m.substr(space + 1);
      } else if (merge.is_array() && merge.size() == 2) {
        a = merge.at(0).get<std::string>(), b = merge.at(1).get<std::string>();
      } else {
        fail("merge " + std::to_string(rank) + " is neither \"a b\" nor [a, b]");
      }
      auto ia = impl->vocab.find(a), ib = impl->vocab.find(b), ic = impl->vocab.find(a + b);
      if (ia == impl->vocab.end() || ib == impl->vocab.end() || ic == impl->vocab.end()) {
        fail("merge " + std::to_string(rank) + " (" + a + ", " + b + ") uses a token that is not in the vocabulary");
      }
      impl->merges[Impl::key(ia->second, ib->second)] = {rank, ic->second};
      ++rank;
    }
    for (const auto& t : value_or<json>(root, "added_tokens", json::array())) {
      AddedToken a{unsigned_of(t.at("id"), 1ull << 31, "an added token's id"),
                   t.at("content").get<std::string>(),
                   value_or(t, "single_word", false),
                   value_or(t, "lstrip", false),
                   value_or(t, "rstrip", false),
                   value_or(t, "normalized", false),
                   value_or(t, "special", false)};
      impl->id_to_token[a.id] = a.content;
      impl->added.push_back(std::move(a));
    }
    impl->normalizer = parse_normalizer(value_or<json>(root, "normalizer", json()));
    impl->pre_tokenizer = parse_pre_tokenizer(value_or<json>(root, "pre_tokenizer", json()));
    impl->decoder = parse_decoder(value_or<json>(root, "decoder", json()));
    post_processor_tokens(value_or<json>(root, "post_processor", json()), pp_first, pp_last);

    if (!config_path.empty()) {
      bool config_ok = false;
      const std::string config_text = read_file(config_path, &config_ok);
      if (!config_ok) fail("cannot open " + config_path, Error::LoadFailure);
      json config;
      try {
        config = json::parse(config_text);
      } catch (const json::parse_error& e) {
        fail(config_path + ": not valid JSON: " + std::string(e.what()));
      }
      bos_name = config_token(config, "bos_token");
      eos_name = config_token(config, "eos_token");
    }
  } catch (const ConfigError& e) {
    TK_LOG(Error, "HFTokenizer: %s: %s", json_path.c_str(), e.what());
    return e.error;
  } catch (const std::exception& e) {  // a field of the wrong JSON type, a missing key
    TK_LOG(Error, "HFTokenizer: %s: malformed tokenizer.json: %s", json_path.c_str(), e.what());
    return Error::ParseFailure;
  }

  // The BPETokenizerBase maps: the vocabulary without the added tokens, and the added tokens.
  std::vector<std::pair<std::string, uint64_t>> base, special;
  std::unordered_map<uint64_t, bool> added_ids;
  for (const AddedToken& a : impl->added) {
    if (!added_ids.emplace(a.id, true).second) continue;
    special.emplace_back(a.content, a.id);
  }
  for (const auto& [token, id] : impl->vocab) {
    if (!added_ids.count(id)) base.emplace_back(token, id);
  }
  token_map_.emplace(base);
  special_token_map_.emplace(special);
  vocab_size_ = static_cast<int32_t>(impl->id_to_token.size());

  auto lookup = [&](const std::string& name) -> std::optional<uint64_t> {
    if (auto id = special_token_map_->tryGetInteger(name)) return id;
    auto it = impl->vocab.find(name);
    if (it != impl->vocab.end()) return it->second;
    return std::nullopt;
  };
  if (bos_name || eos_name) {  // tokenizer_config.json
    uint64_t ids[2] = {0, 0};
    bool found[2] = {false, false};
    const std::optional<std::string>* names[2] = {&bos_name, &eos_name};
    for (int i = 0; i < 2; ++i) {
      if (!*names[i]) continue;
      auto id = lookup(**names[i]);
      if (!id) {
        TK_LOG(Error, "HFTokenizer: %s: \"%s\" is not a token", config_path.c_str(), names[i]->value().c_str());
        return Error::LoadFailure;
      }
      ids[i] = *id, found[i] = true;
    }
    bos_tok_ = found[0] ? ids[0] : ids[1];
    eos_tok_ = found[1] ? ids[1] : ids[0];
  } else {  // special tokens named bos/begin and eos/end (sub-qualified by "text"), then the post-processor
    std::vector<std::pair<std::string_view, uint64_t>> bos_candidates, eos_candidates;
    for (size_t i = 0; i < special_token_map_->size(); ++i) {
      const auto [token, id] = special_token_map_->getElement(i);
      if (token.find("bos") != std::string_view::npos || token.find("begin") != std::string_view::npos) {
        bos_candidates.emplace_back(token, id);
      }
      if (token.find("eos") != std::string_view::npos || token.find("end") != std::string_view::npos) {
        eos_candidates.emplace_back(token, id);
      }
    }
    auto narrow = [](std::vector<std::pair<std::string_view, uint64_t>>& list) {
      if (list.size() <= 1) return;
      std::vector<std::pair<std::string_view, uint64_t>> kept;
      for (const auto& c : list) {
        if (c.first.find("text") != std::string_view::npos) kept.push_back(c);
      }
      list = std::move(kept);
    };
    narrow(bos_candidates);
    narrow(eos_candidates);
    std::optional<uint64_t> bos, eos;
    if (bos_candidates.size() == 1) bos = bos_candidates[0].second;
    if (eos_candidates.size() == 1) eos = eos_candidates[0].second;
    if (!bos && pp_first) bos = lookup(*pp_first);
    if (!eos && pp_last) eos = lookup(*pp_last);
    if (bos && !eos) eos = bos;
    if (eos && !bos) bos = eos;
    bos_tok_ = bos.value_or(0);
    eos_tok_ = eos.value_or(0);
  }
  impl_ = std::move(impl);
  initialized_ = true;
  return Error::Ok;
}

Result<std::vector<uint64_t>> HFTokenizer::encode(const std::string& input, int8_t bos, int8_t eos) const {
  if (!initialized_) {
    TK_LOG(Error, "encode: the tokenizer is not loaded");
    return Error::Uninitialized;
  }
  TK_CHECK_OR_RETURN_ERROR(bos >= 0 && eos >= 0, EncodeFailure, "encode: negative bos (%d) or eos (%d)", bos, eos);
  std::vector<uint64_t> tokens(static_cast<size_t>(bos), bos_tok_);
  impl_->encode_text(input, tokens);
  tokens.insert(tokens.end(), static_cast<size_t>(eos), eos_tok_);
  return tokens;
}

Result<std::string> HFTokenizer::decode(uint64_t prev_token, uint64_t token) const {
  if (!initialized_) {
    TK_LOG(Error, "decode: the tokenizer is not loaded");
    return Error::Uninitialized;
  }
  auto it = impl_->id_to_token.find(token);
  TK_CHECK_OR_RETURN_ERROR(it != impl_->id_to_token.end(), DecodeFailure, "decode: unknown token id %" PRIu64, token);
  auto prev = impl_->id_to_token.find(prev_token);
  if (prev_token == bos_tok_ || prev == impl_->id_to_token.end()) return impl_->decode_tokens({it->second});
  // The text token adds after prev: decode(prev, token) minus decode(prev), as the decoder chain sees the pair.
  const std::string both = impl_->decode_tokens({prev->second, it->second});
  const std::string alone = impl_->decode_tokens({prev->second});
  if (both.compare(0, alone.size(), alone) == 0) return both.substr(alone.size());
  return impl_->decode_tokens({it->second});
}

Error HFTokenizer::_encode(const std::string& input, std::vector<uint64_t>& ret, uint64_t& last_piece_token_len) const {
  const size_t before = ret.size();
  impl_->encode_text(input, ret);
  last_piece_token_len = ret.size() - before;
  return Error::Ok;
}

void HFTokenizer::_decode(const std::string& input, std::string& ret) const { ret += impl_->decode_tokens({input}); }

}  // namespace tokenizers
