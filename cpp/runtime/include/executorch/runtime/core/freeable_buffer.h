#pragma once
// FreeableBuffer: a read-only buffer that may own its memory. Free() (or destruction, or moving another buffer
// in) releases it once through the callback given at construction. The buffer is either a pointer (data()) or,
// for backends that hand out device addresses or handles, a 64-bit integer (data_uint64_type()).
#include <cstddef>
#include <cstdint>
#include <variant>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/assert.h>

namespace executorch {
namespace runtime {

class FreeableBuffer final {
 public:
  using FreeFn = void (*)(void* context, void* data, size_t size);
  using FreeUInt64Fn = void (*)(void* context, uint64_t data_uint64, size_t size);

 private:
  struct PointerData {
    const void* data_;
    FreeFn free_fn_;
  };
  struct UInt64Data {
    uint64_t data_;
    FreeUInt64Fn free_fn_;
  };

 public:
  // An empty pointer buffer.
  FreeableBuffer() : data_(PointerData{nullptr, nullptr}), free_fn_context_(nullptr), size_(0) {}
  // `free_fn` (may be null) is called with (free_fn_context, data, size) when the buffer is freed.
  FreeableBuffer(const void* data, size_t size, FreeFn free_fn, void* free_fn_context = nullptr)
      : data_(PointerData{data, free_fn}), free_fn_context_(free_fn_context), size_(size) {}
  // A buffer named by a 64-bit integer; `free_fn` (may be null) is called with (free_fn_context, data_uint64, size).
  explicit FreeableBuffer(const uint64_t data_uint64, size_t size, FreeUInt64Fn free_fn,
                          void* free_fn_context = nullptr)
      : data_(UInt64Data{data_uint64, free_fn}), free_fn_context_(free_fn_context), size_(size) {}

  // Takes over the buffer; `rhs` is left empty (of the same kind).
  FreeableBuffer(FreeableBuffer&& rhs) noexcept
      : data_(rhs.data_), free_fn_context_(rhs.free_fn_context_), size_(rhs.size_) {
    rhs.clear();
  }
  // Extension of this SDK: frees this buffer, then takes over `rhs`.
  FreeableBuffer& operator=(FreeableBuffer&& rhs) noexcept {
    if (this != &rhs) {
      Free();
      data_ = rhs.data_;
      free_fn_context_ = rhs.free_fn_context_;
      size_ = rhs.size_;
      rhs.clear();
    }
    return *this;
  }
  FreeableBuffer(const FreeableBuffer&) = delete;
  FreeableBuffer& operator=(const FreeableBuffer&) = delete;

  ~FreeableBuffer() { Free(); }

  // Releases the data through the free function (once) and leaves the buffer empty. Safe to call again.
  void Free() {
    if (auto* p = std::get_if<PointerData>(&data_)) {
      if (p->data_ != nullptr && p->free_fn_ != nullptr)
        p->free_fn_(free_fn_context_, const_cast<void*>(p->data_), size_);
      p->data_ = nullptr;
    } else {
      auto& u = std::get<UInt64Data>(data_);
      if (u.data_ != 0 && u.free_fn_ != nullptr) u.free_fn_(free_fn_context_, u.data_, size_);
      u.data_ = 0;
    }
    size_ = 0;
  }

  // Size in bytes (0 once freed).
  size_t size() const { return size_; }

  // The data of a pointer buffer (null once freed). Aborts for a uint64_t buffer: use data_uint64_type().
  const void* data() const {
    ET_CHECK_MSG(std::holds_alternative<PointerData>(data_),
                 "FreeableBuffer holds a uint64_t, not a pointer: use data_uint64_type()");
    return std::get<PointerData>(data_).data_;
  }
  // As data(), but InvalidType instead of aborting for a uint64_t buffer.
  Result<const void*> data_safe() const {
    if (!std::holds_alternative<PointerData>(data_)) {
      ET_LOG(Error, "FreeableBuffer holds a uint64_t, not a pointer: use data_uint64_type()");
      return Error::InvalidType;
    }
    return std::get<PointerData>(data_).data_;
  }
  // The value of a uint64_t buffer (0 once freed); InvalidType for a pointer buffer.
  Result<uint64_t> data_uint64_type() const {
    if (!std::holds_alternative<UInt64Data>(data_)) {
      ET_LOG(Error, "FreeableBuffer holds a pointer, not a uint64_t: use data()");
      return Error::InvalidType;
    }
    return std::get<UInt64Data>(data_).data_;
  }

 private:
  // Empty, keeping the kind; the free function is dropped so nothing is freed twice.
  void clear() {
    if (std::holds_alternative<PointerData>(data_)) {
      data_ = PointerData{nullptr, nullptr};
    } else {
      data_ = UInt64Data{0, nullptr};
    }
    free_fn_context_ = nullptr;
    size_ = 0;
  }

  std::variant<PointerData, UInt64Data> data_;
  void* free_fn_context_;
  size_t size_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::FreeableBuffer;
}  // namespace executor
}  // namespace torch
