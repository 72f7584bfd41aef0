#pragma once
// Audio for a multimodal runner (upstream: extension/llm/runner/audio.h, the same types and methods): RawAudio,
// samples straight from a file, and Audio, preprocessed features (uint8 or float, [batch, bins, frames]) that
// toTensor() views without copying.
#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {
namespace llm {

struct RawAudio {
  std::vector<uint8_t> data;
  int32_t batch_size;
  int32_t n_channels;  // 1 for mono
  int32_t n_samples;
};

class Audio final {
 public:
  Audio() : batch_size_(0), n_bins_(0), n_frames_(0) {}
  // The data must hold batch_size * n_bins * n_frames values (as upstream, a mismatch aborts).
  Audio(std::vector<uint8_t>&& data, int32_t batch_size, int32_t n_bins, int32_t n_frames)
      : data_(std::move(data)), batch_size_(batch_size), n_bins_(n_bins), n_frames_(n_frames) {
    ET_CHECK_MSG(get_uint8_data().size() == expected(),
                 "data.size() (%zu) does not match batch_size * n_bins * "
                 "n_frames (%zu)",
                 get_uint8_data().size(), expected());
  }
  Audio(std::vector<float>&& data, int32_t batch_size, int32_t n_bins, int32_t n_frames)
      : data_(std::move(data)), batch_size_(batch_size), n_bins_(n_bins), n_frames_(n_frames) {
    ET_CHECK_MSG(get_float_data().size() == expected(),
                 "data.size() (%zu) does not match batch_size * n_bins * "
                 "n_frames (%zu)",
                 get_float_data().size(), expected());
  }

  bool is_uint8() const { return std::holds_alternative<std::vector<uint8_t>>(data_); }
  bool is_float() const { return std::holds_alternative<std::vector<float>>(data_); }
  const std::vector<uint8_t>& get_uint8_data() const& { return std::get<std::vector<uint8_t>>(data_); }
  std::vector<uint8_t>& get_uint8_data() & { return std::get<std::vector<uint8_t>>(data_); }
  const std::vector<float>& get_float_data() const& { return std::get<std::vector<float>>(data_); }
  std::vector<float>& get_float_data() & { return std::get<std::vector<float>>(data_); }
  int32_t get_batch_size() const { return batch_size_; }
  int32_t get_n_bins() const { return n_bins_; }
  int32_t get_n_frames() const { return n_frames_; }

  // A [batch, bins, frames] view ([1, batch, bins, frames] with_batch), valid while the audio lives.
  executorch::runtime::Result<executorch::extension::TensorPtr> toTensor(bool with_batch = false) const {
    std::vector<executorch::aten::SizesType> sizes = {get_batch_size(), get_n_bins(), get_n_frames()};
    if (with_batch) sizes.insert(sizes.begin(), 1);
    if (is_float()) {
      return executorch::extension::from_blob(const_cast<float*>(get_float_data().data()), sizes,
                                              executorch::aten::ScalarType::Float);
    }
    return executorch::extension::from_blob(const_cast<uint8_t*>(get_uint8_data().data()), sizes,
                                            executorch::aten::ScalarType::Byte);
  }

 private:
  size_t expected() const {
    return static_cast<size_t>(batch_size_) * static_cast<size_t>(n_bins_) * static_cast<size_t>(n_frames_);
  }
  std::variant<std::vector<uint8_t>, std::vector<float>> data_;
  int32_t batch_size_;
  int32_t n_bins_;
  int32_t n_frames_;
};

}  // namespace llm
}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::extension::llm::Audio;
}  // namespace executor
}  // namespace torch
