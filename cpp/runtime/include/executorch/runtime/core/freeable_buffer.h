#pragma once
#include <cstddef>
#include <utility>

namespace executorch {
namespace runtime {

// A read-only buffer that may own its memory; Free() (or destruction) releases it through the callback.
class FreeableBuffer final {
 public:
  using FreeFn = void (*)(void* context, void* data, size_t size);

  FreeableBuffer() = default;
  FreeableBuffer(const void* data, size_t size, FreeFn free_fn, void* free_fn_context = nullptr)
      : data_(data), size_(size), free_fn_(free_fn), context_(free_fn_context) {}
  FreeableBuffer(FreeableBuffer&& o) noexcept
      : data_(o.data_), size_(o.size_), free_fn_(o.free_fn_), context_(o.context_) {
    o.data_ = nullptr;
    o.size_ = 0;
    o.free_fn_ = nullptr;
  }
  FreeableBuffer& operator=(FreeableBuffer&& o) noexcept {
    if (this != &o) {
      Free();
      data_ = o.data_;
      size_ = o.size_;
      free_fn_ = o.free_fn_;
      context_ = o.context_;
      o.data_ = nullptr;
      o.size_ = 0;
      o.free_fn_ = nullptr;
    }
    return *this;
  }
  FreeableBuffer(const FreeableBuffer&) = delete;
  FreeableBuffer& operator=(const FreeableBuffer&) = delete;
  ~FreeableBuffer() { Free(); }

  void Free() {
    if (data_ != nullptr && free_fn_ != nullptr) free_fn_(context_, const_cast<void*>(data_), size_);
    data_ = nullptr;
    size_ = 0;
    free_fn_ = nullptr;
  }
  size_t size() const { return size_; }
  const void* data() const { return data_; }

 private:
  const void* data_ = nullptr;
  size_t size_ = 0;
  FreeFn free_fn_ = nullptr;
  void* context_ = nullptr;
};

}  // namespace runtime
}  // namespace executorch
