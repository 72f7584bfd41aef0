#pragma once
// A SentencePiece tokenizer for the text runner (a tokenizers::Tokenizer), header-only over the SentencePiece
// library (Debian's libsentencepiece-dev, conda-forge's libsentencepiece): the application links `sentencepiece`
// itself; the SDK's libraries do not depend on it. (tokenizers::SPTokenizer, pytorch/tokenizers/sentencepiece.h,
// reads the same files without the library.)
//
//   auto tok = std::make_unique<executorch::extension::llm::SentencePieceTokenizer>();
//   if (tok->load("tokenizer.model") != tokenizers::Error::Ok) ... tok->error() ...
#include <cstdint>
#include <string>
#include <vector>

#include <sentencepiece_processor.h>

#include <executorch/extension/llm/runner/tokenizer.h>
#include <pytorch/tokenizers/error.h>
#include <pytorch/tokenizers/result.h>

namespace executorch {
namespace extension {
namespace llm {

class SentencePieceTokenizer : public Tokenizer {
 public:
  // LoadFailure (with the library's reason in error()) when the file is not a SentencePiece model.
  ::tokenizers::Error load(const std::string& path) override {
    const auto status = sp_.Load(path);
    error_ = status.ok() ? "" : status.ToString();
    initialized_ = status.ok();
    if (!initialized_) return ::tokenizers::Error::LoadFailure;
    vocab_size_ = sp_.GetPieceSize();
    bos_tok_ = static_cast<uint64_t>(sp_.bos_id());
    eos_tok_ = static_cast<uint64_t>(sp_.eos_id());
    return ::tokenizers::Error::Ok;
  }
  const std::string& error() const { return error_; }

  ::tokenizers::Result<std::vector<uint64_t>> encode(const std::string& text, int8_t bos = 0,
                                                     int8_t eos = 0) const override {
    if (!initialized_) return ::tokenizers::Error::Uninitialized;
    std::vector<int> ids;
    if (!sp_.Encode(text, &ids).ok()) return ::tokenizers::Error::EncodeFailure;
    std::vector<uint64_t> out;
    for (int8_t i = 0; i < bos; ++i) out.push_back(bos_tok());
    for (int id : ids) out.push_back(static_cast<uint64_t>(id));
    for (int8_t i = 0; i < eos; ++i) out.push_back(eos_tok());
    return out;
  }

  ::tokenizers::Result<std::string> decode(uint64_t prev_token, uint64_t token) const override {
    if (!initialized_) return ::tokenizers::Error::Uninitialized;
    if (token >= static_cast<uint64_t>(sp_.GetPieceSize())) return ::tokenizers::Error::OutOfRange;
    const int id = static_cast<int>(token);
    if (sp_.IsControl(id)) return std::string();
    std::string piece = sp_.IdToPiece(id);
    if (sp_.IsByte(id) && piece.size() == 6)
      return std::string(1, static_cast<char>(std::stoi(piece.substr(3, 2), nullptr, 16)));
    std::string text;
    for (size_t i = 0; i < piece.size();) {
      if (piece.compare(i, 3, "\xe2\x96\x81") == 0) {  // U+2581, SentencePiece's word boundary
        text += ' ';
        i += 3;
      } else {
        text += piece[i++];
      }
    }
    if (prev_token == bos_tok() && !text.empty() && text[0] == ' ') text.erase(0, 1);
    return text;
  }

 private:
  sentencepiece::SentencePieceProcessor sp_;
  std::string error_;
};

}  // namespace llm
}  // namespace extension
}  // namespace executorch
