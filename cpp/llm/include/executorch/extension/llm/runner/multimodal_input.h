#pragma once
// One input of a multimodal runner (upstream: extension/llm/runner/multimodal_input.h, the same class, methods and
// make_*_input helpers): text, token ids, an Image, preprocessed Audio or RawAudio.
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <executorch/extension/llm/runner/audio.h>
#include <executorch/extension/llm/runner/image.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch::extension::llm {

class MultimodalInput {
 public:
  enum class Type { TEXT, TOKENS, IMAGE, AUDIO, RAW_AUDIO, UNSUPPORTED };

  static constexpr const char* TypeName(Type t) noexcept {
    switch (t) {
      case Type::TEXT: return "text";
      case Type::TOKENS: return "tokens";
      case Type::IMAGE: return "image";
      case Type::AUDIO: return "audio";
      case Type::RAW_AUDIO: return "raw_audio";
      default: return "unknown";
    }
  }
  static inline std::string TypeToString(Type t) { return TypeName(t); }

  explicit MultimodalInput(const std::string& text) : data_(text) {}
  explicit MultimodalInput(std::string&& text) : data_(std::move(text)) {}
  explicit MultimodalInput(const std::vector<uint64_t>& tokens) : data_(tokens) {}
  explicit MultimodalInput(std::vector<uint64_t>&& tokens) : data_(std::move(tokens)) {}
  explicit MultimodalInput(const Image& image) : data_(image) {}
  explicit MultimodalInput(Image&& image) : data_(std::move(image)) {}
  explicit MultimodalInput(const Audio& audio) : data_(audio) {}
  explicit MultimodalInput(Audio&& audio) : data_(std::move(audio)) {}
  explicit MultimodalInput(const RawAudio& raw_audio) : data_(raw_audio) {}
  explicit MultimodalInput(RawAudio&& raw_audio) : data_(std::move(raw_audio)) {}
  MultimodalInput(const MultimodalInput& other) = default;
  MultimodalInput& operator=(const MultimodalInput& other) = default;
  MultimodalInput(MultimodalInput&& other) noexcept = default;
  MultimodalInput& operator=(MultimodalInput&& other) noexcept = default;
  ~MultimodalInput() = default;

  bool is_text() const noexcept { return std::holds_alternative<std::string>(data_); }
  bool is_tokens() const noexcept { return std::holds_alternative<std::vector<uint64_t>>(data_); }
  bool is_image() const noexcept { return std::holds_alternative<Image>(data_); }
  bool is_audio() const noexcept { return std::holds_alternative<Audio>(data_); }
  bool is_raw_audio() const noexcept { return std::holds_alternative<RawAudio>(data_); }
  Type get_type() const noexcept {
    if (is_text()) return Type::TEXT;
    if (is_tokens()) return Type::TOKENS;
    if (is_image()) return Type::IMAGE;
    if (is_audio()) return Type::AUDIO;
    if (is_raw_audio()) return Type::RAW_AUDIO;
    return Type::UNSUPPORTED;
  }
  const char* type_name() const noexcept { return TypeName(get_type()); }

  // The value (std::bad_variant_access when the input holds another kind, as upstream).
  const std::string& get_text() const& { return std::get<std::string>(data_); }
  std::string& get_text() & { return std::get<std::string>(data_); }
  std::string&& get_text() && { return std::get<std::string>(std::move(data_)); }
  const std::vector<uint64_t>& get_tokens() const& { return std::get<std::vector<uint64_t>>(data_); }
  std::vector<uint64_t>& get_tokens() & { return std::get<std::vector<uint64_t>>(data_); }
  std::vector<uint64_t>&& get_tokens() && { return std::get<std::vector<uint64_t>>(std::move(data_)); }
  const Image& get_image() const& { return std::get<Image>(data_); }
  Image& get_image() & { return std::get<Image>(data_); }
  Image&& get_image() && { return std::get<Image>(std::move(data_)); }
  const Audio& get_audio() const& { return std::get<Audio>(data_); }
  Audio& get_audio() & { return std::get<Audio>(data_); }
  Audio&& get_audio() && { return std::get<Audio>(std::move(data_)); }
  const RawAudio& get_raw_audio() const& { return std::get<RawAudio>(data_); }
  RawAudio& get_raw_audio() & { return std::get<RawAudio>(data_); }
  RawAudio&& get_raw_audio() && { return std::get<RawAudio>(std::move(data_)); }

  // The value, or nullptr when the input holds another kind.
  const std::string* try_get_text() const noexcept { return std::get_if<std::string>(&data_); }
  std::string* try_get_text() noexcept { return std::get_if<std::string>(&data_); }
  const std::vector<uint64_t>* try_get_tokens() const noexcept { return std::get_if<std::vector<uint64_t>>(&data_); }
  std::vector<uint64_t>* try_get_tokens() noexcept { return std::get_if<std::vector<uint64_t>>(&data_); }
  const Image* try_get_image() const noexcept { return std::get_if<Image>(&data_); }
  Image* try_get_image() noexcept { return std::get_if<Image>(&data_); }
  const Audio* try_get_audio() const noexcept { return std::get_if<Audio>(&data_); }
  Audio* try_get_audio() noexcept { return std::get_if<Audio>(&data_); }
  const RawAudio* try_get_raw_audio() const noexcept { return std::get_if<RawAudio>(&data_); }
  RawAudio* try_get_raw_audio() noexcept { return std::get_if<RawAudio>(&data_); }

 private:
  std::variant<std::string, std::vector<uint64_t>, Image, Audio, RawAudio> data_;
};

inline MultimodalInput make_text_input(const std::string& text) noexcept { return MultimodalInput(text); }
inline MultimodalInput make_text_input(std::string&& text) noexcept { return MultimodalInput(std::move(text)); }
inline MultimodalInput make_image_input(const Image& image) noexcept { return MultimodalInput(image); }
inline MultimodalInput make_image_input(Image&& image) noexcept { return MultimodalInput(std::move(image)); }
inline MultimodalInput make_token_input(const std::vector<uint64_t>& tokens) noexcept {
  return MultimodalInput(tokens);
}
inline MultimodalInput make_token_input(std::vector<uint64_t>&& tokens) noexcept {
  return MultimodalInput(std::move(tokens));
}
inline MultimodalInput make_audio_input(const Audio& audio) noexcept { return MultimodalInput(audio); }
inline MultimodalInput make_audio_input(Audio&& audio) noexcept { return MultimodalInput(std::move(audio)); }
inline MultimodalInput make_raw_audio_input(const RawAudio& raw_audio) noexcept { return MultimodalInput(raw_audio); }
inline MultimodalInput make_raw_audio_input(RawAudio&& raw_audio) noexcept {
  return MultimodalInput(std::move(raw_audio));
}

}  // namespace executorch::extension::llm
