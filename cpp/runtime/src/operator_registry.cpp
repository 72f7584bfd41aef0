// The process-wide kernel registry. It lives here, in libexecutorch, and nowhere else.
//
// Kernels are appended to one fixed table that never moves, so get_registered_kernels() can hand out a span of it
// that stays valid while other threads (libraries loading) register more; the count is published after the entries.
// Lookups by name go through an index (name -> table slots), under the registry's mutex.
#include <executorch/runtime/kernel/operator_registry.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "internal.h"

namespace executorch {
namespace runtime {
namespace {

constexpr size_t kMaxNameLength = 255;

// Constant-initialised (Kernel's default constructor is constexpr): no static-initialisation order issue for
// libraries that register from their own static initialisers.
Kernel g_table[kMaxRegisteredKernels];

struct KernelIndex {
  std::mutex mu;
  std::atomic<size_t> count{0};
  std::unordered_map<std::string, std::vector<uint32_t>> slots_by_name;
};

KernelIndex& kernel_index() {
  static KernelIndex* r = new KernelIndex();  // never destroyed: lookups may run during exit
  return *r;
}

// A copy that lives as long as the process (the table keeps pointers to names and keys; the caller's strings may be
// temporaries).
const char* keep(const char* s) {
  const size_t n = std::strlen(s) + 1;
  char* copy = new char[n];
  std::memcpy(copy, s, n);
  return copy;
}

// Appends the decimal digits of v (0..99) to buf; false when it does not fit or v is outside the range.
bool put_number(int v, char*& buf, size_t& room) {
  if (v < 0 || v > 99) return false;
  const size_t n = v < 10 ? 1 : 2;
  if (room < n) return false;
  if (n == 2) *buf++ = static_cast<char>('0' + v / 10);
  *buf++ = static_cast<char>('0' + v % 10);
  room -= n;
  return true;
}

bool put_char(char c, char*& buf, size_t& room) {
  if (room < 1) return false;
  *buf++ = c;
  --room;
  return true;
}

}  // namespace

namespace internal {

Error make_kernel_key_string(Span<const TensorMeta> key, char* buf, size_t buf_size) {
  if (key.empty()) {
    // Operators without tensor arguments have no key.
    if (buf_size > 0) buf[0] = '\0';
    return Error::Ok;
  }
  if (buf == nullptr || buf_size < 1) return Error::InvalidArgument;
  size_t room = buf_size - 1;  // the terminator's byte
  for (const char c : {'v', '1', '/'}) {
    if (!put_char(c, buf, room)) return Error::InvalidArgument;
  }
  for (size_t i = 0; i < key.size(); ++i) {
    const TensorMeta& meta = key[i];
    if (!put_number(static_cast<int>(meta.dtype_), buf, room) || !put_char(';', buf, room)) {
      return Error::InvalidArgument;
    }
    for (size_t j = 0; j < meta.dim_order_.size(); ++j) {
      if (!put_number(static_cast<int>(meta.dim_order_[j]), buf, room)) return Error::InvalidArgument;
      if (j + 1 < meta.dim_order_.size() && !put_char(',', buf, room)) return Error::InvalidArgument;
    }
    if (i + 1 < key.size() && !put_char('|', buf, room)) return Error::InvalidArgument;
  }
  *buf = '\0';
  return Error::Ok;
}

}  // namespace internal

Error register_kernels(const Span<const Kernel> kernels) {
  KernelIndex& r = kernel_index();
  std::lock_guard<std::mutex> lock(r.mu);
  const size_t count = r.count.load(std::memory_order_relaxed);
  for (size_t i = 0; i < kernels.size(); ++i) {
    const Kernel& k = kernels[i];
    if (k.name_ == nullptr || k.op_ == nullptr || std::strlen(k.name_) > kMaxNameLength) {
      return set_last_error(Error::InvalidArgument,
                            "kernel %zu of the batch has no name, no function or a name longer than %zu characters", i,
                            kMaxNameLength);
    }
  }
  if (kernels.size() > kMaxRegisteredKernels - count) {
    return set_last_error(Error::RegistrationExceedingMaxKernels,
                          "registering %zu kernels would exceed the registry capacity of %zu (%zu registered)",
                          kernels.size(), kMaxRegisteredKernels, count);
  }
  for (size_t i = 0; i < kernels.size(); ++i) {
    const Kernel& k = kernels[i];
    const char* key = k.kernel_key_.is_fallback() ? "fallback" : k.kernel_key_.data();
    auto it = r.slots_by_name.find(k.name_);
    if (it != r.slots_by_name.end()) {
      for (const uint32_t slot : it->second) {
        if (g_table[slot].kernel_key_ == k.kernel_key_) {
          return set_last_error(Error::RegistrationAlreadyRegistered,
                                "operator %s (key %s) is already registered (is a second kernel library loaded?); "
                                "the batch was not registered",
                                k.name_, key);
        }
      }
    }
    for (size_t j = 0; j < i; ++j) {
      if (std::strcmp(kernels[j].name_, k.name_) == 0 && kernels[j].kernel_key_ == k.kernel_key_) {
        return set_last_error(Error::RegistrationAlreadyRegistered, "operator %s (key %s) appears twice in one batch",
                              k.name_, key);
      }
    }
  }
  for (size_t i = 0; i < kernels.size(); ++i) {
    const Kernel& k = kernels[i];
    const KernelKey key = k.kernel_key_.is_fallback() ? KernelKey() : KernelKey(keep(k.kernel_key_.data()));
    const uint32_t slot = static_cast<uint32_t>(count + i);
    g_table[slot] = Kernel(keep(k.name_), key, k.op_);
    r.slots_by_name[k.name_].push_back(slot);
  }
  r.count.store(count + kernels.size(), std::memory_order_release);
  return Error::Ok;
}

Result<OpFunction> get_op_function_from_registry(const char* name, Span<const TensorMeta> meta_list) {
  if (name == nullptr) return Error::InvalidArgument;
  std::array<char, internal::kKernelKeyBufSize> key_string;
  const Error err = internal::make_kernel_key_string(meta_list, key_string.data(), key_string.size());
  if (err != Error::Ok) return err;
  const KernelKey key(key_string.data());
  KernelIndex& r = kernel_index();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.slots_by_name.find(name);
  if (it == r.slots_by_name.end()) return Error::OperatorMissing;
  OpFunction fallback = nullptr;
  for (const uint32_t slot : it->second) {
    const Kernel& k = g_table[slot];
    if (k.kernel_key_ == key) return k.op_;
    if (k.kernel_key_.is_fallback()) fallback = k.op_;
  }
  if (fallback != nullptr) return fallback;
  return Error::OperatorMissing;
}

Result<OpFunction> get_op_function_from_registry(const char* name, Span<const TensorMeta> meta_list,
                                                 Span<const Kernel> kernel_list) {
  if (name == nullptr) return Error::InvalidArgument;
  std::array<char, internal::kKernelKeyBufSize> key_string;
  const Error err = internal::make_kernel_key_string(meta_list, key_string.data(), key_string.size());
  if (err != Error::Ok) return err;
  const KernelKey key(key_string.data());
  OpFunction fallback = nullptr;
  for (const Kernel& k : kernel_list) {
    if (k.name_ == nullptr || std::strcmp(k.name_, name) != 0) continue;
    if (k.kernel_key_ == key) return k.op_;
    if (k.kernel_key_.is_fallback()) fallback = k.op_;
  }
  if (fallback != nullptr) return fallback;
  return Error::OperatorMissing;
}

bool registry_has_op_function(const char* name, Span<const TensorMeta> meta_list) {
  return get_op_function_from_registry(name, meta_list).ok();
}

Span<const Kernel> get_registered_kernels() {
  return Span<const Kernel>(g_table, kernel_index().count.load(std::memory_order_acquire));
}

size_t get_num_registered_kernels() { return kernel_index().count.load(std::memory_order_acquire); }

std::vector<std::string> get_registered_kernel_names() {
  KernelIndex& r = kernel_index();
  std::vector<std::string> names;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    names.reserve(r.slots_by_name.size());
    for (const auto& kv : r.slots_by_name) names.push_back(kv.first);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace runtime
}  // namespace executorch
