// SPTokenizer (pytorch/tokenizers/sentencepiece.h): reads SentencePiece's ModelProto (protobuf wire format) itself
// and encodes BPE models as SentencePiece does: identity normalization, then merges of the best-scoring adjacent
// pair (leftmost on ties), unknown pieces as bytes (<0xXX>) when byte_fallback is set.
#include <pytorch/tokenizers/sentencepiece.h>

#include <cinttypes>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "unicode.h"

namespace tokenizers {

namespace {

enum PieceType : int { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

// A protobuf wire-format reader over a byte range; every read checks the bounds.
class Wire {
 public:
  Wire(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  bool done() const { return p_ >= end_; }
  bool varint(uint64_t* value) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) return false;
      const uint8_t b = *p_++;
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) {
        *value = v;
        return true;
      }
    }
    return false;
  }
  bool bytes(const uint8_t** data, size_t* size) {
    uint64_t n = 0;
    if (!varint(&n) || n > static_cast<uint64_t>(end_ - p_)) return false;
    *data = p_, *size = static_cast<size_t>(n);
    p_ += n;
    return true;
  }
  bool fixed(size_t n, void* out) {
    if (static_cast<size_t>(end_ - p_) < n) return false;
    std::memcpy(out, p_, n);
    p_ += n;
    return true;
  }
  // Reads the next field's key; then value_* or skip.
  bool key(uint32_t* field, uint32_t* wire_type) {
    uint64_t k = 0;
    if (!varint(&k) || (k >> 3) == 0 || (k >> 3) > 0x1FFFFFFF) return false;
    *field = static_cast<uint32_t>(k >> 3), *wire_type = static_cast<uint32_t>(k & 7);
    return true;
  }
  bool skip(uint32_t wire_type) {
    uint64_t v = 0;
    const uint8_t* d = nullptr;
    size_t n = 0;
    char buf[8];
    switch (wire_type) {
      case 0: return varint(&v);
      case 1: return fixed(8, buf);
      case 2: return bytes(&d, &n);
      case 5: return fixed(4, buf);
      default: return false;
    }
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace

struct SPTokenizer::Model {
  struct Piece {
    std::string text;
    float score = 0;
    int type = kNormal;
  };
  std::vector<Piece> pieces;
  std::unordered_map<std::string, uint32_t> mergeable;  // normal and user-defined pieces
  std::unordered_map<std::string, uint32_t> all;        // every piece
  std::vector<uint32_t> user_defined;
  int model_type = 1;  // UNIGRAM = 1, BPE = 2
  bool byte_fallback = false;
  int64_t unk_id = 0, bos_id = 1, eos_id = 2;
  std::string normalizer_name;
  bool has_charsmap = false, add_dummy_prefix = true, remove_extra_whitespaces = true, escape_whitespaces = true;
  uint32_t byte_ids[256];
  bool has_bytes = false;

  std::string normalize(const std::string& input) const;
  void encode(const std::string& normalized, std::vector<uint64_t>& out) const;
};

namespace {

bool parse_piece(const uint8_t* data, size_t size, SPTokenizer::Model::Piece* piece) {
  Wire w(data, size);
  while (!w.done()) {
    uint32_t field = 0, type = 0;
    if (!w.key(&field, &type)) return false;
    if (field == 1 && type == 2) {
      const uint8_t* d = nullptr;
      size_t n = 0;
      if (!w.bytes(&d, &n)) return false;
      piece->text.assign(reinterpret_cast<const char*>(d), n);
    } else if (field == 2 && type == 5) {
      if (!w.fixed(4, &piece->score)) return false;
    } else if (field == 3 && type == 0) {
      uint64_t v = 0;
      if (!w.varint(&v)) return false;
      piece->type = static_cast<int>(v);
    } else if (!w.skip(type)) {
      return false;
    }
  }
  return true;
}

bool parse_trainer_spec(const uint8_t* data, size_t size, SPTokenizer::Model* m) {
  Wire w(data, size);
  while (!w.done()) {
    uint32_t field = 0, type = 0;
    if (!w.key(&field, &type)) return false;
    uint64_t v = 0;
    if (type == 0 && (field == 3 || field == 35 || field == 40 || field == 41 || field == 42)) {
      if (!w.varint(&v)) return false;
      if (field == 3) m->model_type = static_cast<int>(v);
      if (field == 35) m->byte_fallback = v != 0;
      if (field == 40) m->unk_id = static_cast<int32_t>(v);
      if (field == 41) m->bos_id = static_cast<int32_t>(v);
      if (field == 42) m->eos_id = static_cast<int32_t>(v);
    } else if (!w.skip(type)) {
      return false;
    }
  }
  return true;
}

bool parse_normalizer_spec(const uint8_t* data, size_t size, SPTokenizer::Model* m) {
  Wire w(data, size);
  while (!w.done()) {
    uint32_t field = 0, type = 0;
    if (!w.key(&field, &type)) return false;
    const uint8_t* d = nullptr;
    size_t n = 0;
    uint64_t v = 0;
    if (type == 2 && (field == 1 || field == 2)) {
      if (!w.bytes(&d, &n)) return false;
      if (field == 1) m->normalizer_name.assign(reinterpret_cast<const char*>(d), n);
      if (field == 2) m->has_charsmap = n > 0;
    } else if (type == 0 && field >= 3 && field <= 5) {
      if (!w.varint(&v)) return false;
      if (field == 3) m->add_dummy_prefix = v != 0;
      if (field == 4) m->remove_extra_whitespaces = v != 0;
      if (field == 5) m->escape_whitespaces = v != 0;
    } else if (!w.skip(type)) {
      return false;
    }
  }
  return true;
}

constexpr const char* kSpace = "\xE2\x96\x81";  // U+2581, SentencePiece's whitespace

}  // namespace

std::string SPTokenizer::Model::normalize(const std::string& input) const {
  std::string s = input;
  if (remove_extra_whitespaces) {
    std::string collapsed;
    bool space = true;  // drops leading spaces
    for (char c : s) {
      if (c == ' ') {
        if (!space) collapsed.push_back(' ');
        space = true;
      } else {
        collapsed.push_back(c);
        space = false;
      }
    }
    while (!collapsed.empty() && collapsed.back() == ' ') collapsed.pop_back();
    s = std::move(collapsed);
  }
  if (s.empty()) return s;
  if (add_dummy_prefix) s.insert(0, " ");
  if (escape_whitespaces) {
    std::string escaped;
    for (char c : s) {
      if (c == ' ') {
        escaped += kSpace;
      } else {
        escaped.push_back(c);
      }
    }
    s = std::move(escaped);
  }
  return s;
}

void SPTokenizer::Model::encode(const std::string& text, std::vector<uint64_t>& out) const {
  struct Symbol {
    std::string text;
    bool frozen;  // a user-defined piece: never merged
  };
  std::vector<Symbol> symbols;
  for (size_t pos = 0; pos < text.size();) {
    size_t best = 0;
    for (uint32_t id : user_defined) {
      const std::string& p = pieces[id].text;
      if (p.size() > best && text.compare(pos, p.size(), p) == 0) best = p.size();
    }
    if (best > 0) {
      symbols.push_back({text.substr(pos, best), true});
      pos += best;
      continue;
    }
    const size_t n = std::min(unicode::sequence_length(static_cast<unsigned char>(text[pos])), text.size() - pos);
    symbols.push_back({text.substr(pos, n), false});
    pos += n;
  }
  while (symbols.size() > 1) {
    float best_score = 0;
    std::optional<size_t> best;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      if (symbols[i].frozen || symbols[i + 1].frozen) continue;
      auto it = mergeable.find(symbols[i].text + symbols[i + 1].text);
      if (it == mergeable.end()) continue;
      const float score = pieces[it->second].score;
      if (!best || score > best_score) best = i, best_score = score;
    }
    if (!best) break;
    symbols[*best].text += symbols[*best + 1].text;
    symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(*best) + 1);
  }
  bool previous_unk = false;
  for (const Symbol& s : symbols) {
    auto it = all.find(s.text);
    const bool known = it != all.end() && pieces[it->second].type != kUnused;
    if (known) {
      out.push_back(it->second);
      previous_unk = false;
    } else if (byte_fallback && has_bytes) {
      for (unsigned char b : s.text) out.push_back(byte_ids[b]);
      previous_unk = false;
    } else if (!previous_unk) {  // consecutive unknown symbols become one <unk>
      out.push_back(static_cast<uint64_t>(unk_id));
      previous_unk = true;
    }
  }
}

SPTokenizer::SPTokenizer() = default;
SPTokenizer::~SPTokenizer() = default;

Error SPTokenizer::load(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    TK_LOG(Error, "sentencepiece: cannot open %s", path.c_str());
    return Error::LoadFailure;
  }
  std::ostringstream buffer;
  buffer << file.rdbuf();
  const std::string data = buffer.str();
  auto m = std::make_unique<Model>();
  Wire w(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  while (!w.done()) {
    uint32_t field = 0, type = 0;
    const uint8_t* d = nullptr;
    size_t n = 0;
    bool ok = w.key(&field, &type);
    if (ok && type == 2 && field >= 1 && field <= 3) {
      ok = w.bytes(&d, &n);
      if (ok && field == 1) {
        Model::Piece piece;
        ok = parse_piece(d, n, &piece);
        m->pieces.push_back(std::move(piece));
      } else if (ok && field == 2) {
        ok = parse_trainer_spec(d, n, m.get());
      } else if (ok && field == 3) {
        ok = parse_normalizer_spec(d, n, m.get());
      }
    } else if (ok) {
      ok = w.skip(type);
    }
    if (!ok) {
      TK_LOG(Error, "sentencepiece: %s: not a SentencePiece model (bad or truncated protobuf data)", path.c_str());
      return Error::ParseFailure;
    }
  }
  if (m->pieces.empty()) {
    TK_LOG(Error, "sentencepiece: %s: not a SentencePiece model (no pieces)", path.c_str());
    return Error::ParseFailure;
  }
  if (m->model_type != 2) {
    TK_LOG(Error, "sentencepiece: %s: model type %d is not supported (supported: BPE = 2)", path.c_str(),
           m->model_type);
    return Error::LoadFailure;
  }
  if (m->has_charsmap) {
    TK_LOG(
        Error,
        "sentencepiece: %s: normalization rule \"%s\" (a precompiled charsmap) is not supported (supported: identity)",
        path.c_str(), m->normalizer_name.c_str());
    return Error::LoadFailure;
  }
  std::fill(std::begin(m->byte_ids), std::end(m->byte_ids), 0u);
  bool byte_seen[256] = {};
  int bytes_found = 0;
  for (uint32_t i = 0; i < m->pieces.size(); ++i) {
    const Model::Piece& p = m->pieces[i];
    if (p.type < kNormal || p.type > kByte) {
      TK_LOG(Error, "sentencepiece: %s: piece %u has an unknown type %d", path.c_str(), i, p.type);
      return Error::ParseFailure;
    }
    m->all.emplace(p.text, i);
    if (p.type == kNormal || p.type == kUserDefined) m->mergeable.emplace(p.text, i);
    if (p.type == kUserDefined) m->user_defined.push_back(i);
    const int byte = p.type == kByte ? unicode::byte_piece(p.text) : -1;
    if (byte >= 0) {
      m->byte_ids[byte] = i;
      if (!byte_seen[byte]) ++bytes_found;
      byte_seen[byte] = true;
    }
  }
  m->has_bytes = bytes_found == 256;
  if (m->byte_fallback && !m->has_bytes) {
    TK_LOG(Error, "sentencepiece: %s: byte_fallback without the 256 byte pieces", path.c_str());
    return Error::ParseFailure;
  }
  const auto size = static_cast<int64_t>(m->pieces.size());
  if (m->unk_id < 0 || m->unk_id >= size) {
    TK_LOG(Error, "sentencepiece: %s: unk_id %" PRId64 " is not a piece", path.c_str(), m->unk_id);
    return Error::ParseFailure;
  }
  vocab_size_ = static_cast<int32_t>(size);
  // As SentencePieceProcessor::bos_id(): -1 (here: as uint64_t) when disabled.
  bos_tok_ = static_cast<uint64_t>(m->bos_id >= 0 && m->bos_id < size ? m->bos_id : -1);
  eos_tok_ = static_cast<uint64_t>(m->eos_id >= 0 && m->eos_id < size ? m->eos_id : -1);
  model_ = std::move(m);
  initialized_ = true;
  return Error::Ok;
}

Result<std::vector<uint64_t>> SPTokenizer::encode(const std::string& text, int8_t bos, int8_t eos) const {
  if (!initialized_) {
    TK_LOG(Error, "encode: the tokenizer is not loaded");
    return Error::Uninitialized;
  }
  TK_CHECK_OR_RETURN_ERROR(bos >= 0 && eos >= 0, EncodeFailure, "encode: negative bos (%d) or eos (%d)", bos, eos);
  std::vector<uint64_t> tokens(static_cast<size_t>(bos), bos_tok_);
  model_->encode(model_->normalize(text), tokens);
  tokens.insert(tokens.end(), static_cast<size_t>(eos), eos_tok_);
  return tokens;
}

Result<std::string> SPTokenizer::decode(uint64_t prev_token, uint64_t token) const {
  if (!initialized_) {
    TK_LOG(Error, "decode: the tokenizer is not loaded");
    return Error::Uninitialized;
  }
  TK_CHECK_OR_RETURN_ERROR(token < model_->pieces.size(), OutOfRange,
                           "decode: token id %" PRIu64 " is not below the vocabulary size %d", token, vocab_size_);
  const Model::Piece& piece = model_->pieces[token];
  if (piece.type == kControl) return std::string();
  if (piece.type == kByte) {
    const int byte = unicode::byte_piece(piece.text);
    if (byte >= 0) return std::string(1, static_cast<char>(byte));
  }
  const std::string text = piece.type == kUnknown ? std::string(" \xE2\x81\x87 ") : piece.text;  // " ⁇ "
  std::string out;
  for (size_t pos = 0; pos < text.size();) {
    if (text.compare(pos, 3, kSpace) == 0) {
      out.push_back(' ');
      pos += 3;
    } else {
      out.push_back(text[pos++]);
    }
  }
  if (prev_token == bos_tok_ && model_->add_dummy_prefix && !out.empty() && out[0] == ' ') out.erase(0, 1);
  return out;
}

}  // namespace tokenizers
