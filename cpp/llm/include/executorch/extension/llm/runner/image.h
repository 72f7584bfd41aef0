#pragma once
// An image for a multimodal runner (upstream: extension/llm/runner/image.h, the same class and methods): uint8 or
// float pixels in CHW order with their width, height and channels; toTensor() views them as a [C, H, W] tensor
// ([1, C, H, W] with_batch) without copying.
#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {
namespace llm {

class Image {
 public:
  Image() : width_(0), height_(0), channels_(0) {}
  Image(std::vector<uint8_t>&& data, int32_t width, int32_t height, int32_t channels)
      : data_(std::move(data)), width_(width), height_(height), channels_(channels) {}
  Image(std::vector<float>&& data, int32_t width, int32_t height, int32_t channels)
      : data_(std::move(data)), width_(width), height_(height), channels_(channels) {}

  int32_t width() const { return width_; }
  int32_t height() const { return height_; }
  int32_t channels() const { return channels_; }
  bool is_uint8() const { return std::holds_alternative<std::vector<uint8_t>>(data_); }
  bool is_float() const { return std::holds_alternative<std::vector<float>>(data_); }
  const std::vector<uint8_t>& get_uint8_data() const& { return std::get<std::vector<uint8_t>>(data_); }
  std::vector<uint8_t>& get_uint8_data() & { return std::get<std::vector<uint8_t>>(data_); }
  const std::vector<float>& get_float_data() const& { return std::get<std::vector<float>>(data_); }
  std::vector<float>& get_float_data() & { return std::get<std::vector<float>>(data_); }

  // A view of the pixels (valid while the image lives). Error::InvalidArgument when the data's size is not
  // channels * height * width (upstream does not check).
  executorch::runtime::Result<executorch::extension::TensorPtr> toTensor(bool with_batch = false) const {
    std::vector<executorch::aten::SizesType> sizes = {channels(), height(), width()};
    if (with_batch) sizes.insert(sizes.begin(), 1);
    const size_t n = static_cast<size_t>(channels_) * static_cast<size_t>(height_) * static_cast<size_t>(width_);
    const size_t have = is_float() ? get_float_data().size() : get_uint8_data().size();
    if (channels_ <= 0 || height_ <= 0 || width_ <= 0 || have != n) {
      ET_LOG(Error, "Image: %zu values for %d channels x %d x %d pixels", have, channels_, height_, width_);
      return executorch::runtime::Error::InvalidArgument;
    }
    if (is_float()) {
      return executorch::extension::from_blob(const_cast<float*>(get_float_data().data()), sizes,
                                              executorch::aten::ScalarType::Float);
    }
    return executorch::extension::from_blob(const_cast<uint8_t*>(get_uint8_data().data()), sizes,
                                            executorch::aten::ScalarType::Byte);
  }

 private:
  std::variant<std::vector<uint8_t>, std::vector<float>> data_;
  int32_t width_;
  int32_t height_;
  int32_t channels_;
};

}  // namespace llm
}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::extension::llm::Image;
}  // namespace executor
}  // namespace torch
