// The process-wide kernel registry. It lives here, in libexecutorch, and nowhere else.
#include <executorch/runtime/kernel/operator_registry.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "internal.h"

namespace executorch {
namespace runtime {
namespace {

struct KernelRegistry {
  std::mutex mu;
  std::unordered_map<std::string, OpFunction> kernels;
};

KernelRegistry& registry() {
  static KernelRegistry* r = new KernelRegistry();  // never destroyed: lookups may run during exit
  return *r;
}

constexpr size_t kMaxNameLength = 255;

}  // namespace

Error register_kernels(Span<const Kernel> kernels) {
  KernelRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (size_t i = 0; i < kernels.size(); ++i) {
    const Kernel& k = kernels[i];
    if (k.name_ == nullptr || k.op_ == nullptr || std::strlen(k.name_) > kMaxNameLength) {
      return set_last_error(Error::InvalidArgument,
                            "kernel %zu of the batch has no name, no function or a name "
                            "longer than %zu characters",
                            i, kMaxNameLength);
    }
    if (r.kernels.count(k.name_) != 0) {
      return set_last_error(Error::RegistrationAlreadyRegistered,
                            "operator %s is already registered (is a second kernel library loaded?); the batch "
                            "was not registered",
                            k.name_);
    }
    for (size_t j = 0; j < i; ++j) {
      if (std::strcmp(kernels[j].name_, k.name_) == 0) {
        return set_last_error(Error::RegistrationAlreadyRegistered, "operator %s appears twice in one batch", k.name_);
      }
    }
  }
  if (r.kernels.size() + kernels.size() > kMaxRegisteredKernels) {
    return set_last_error(Error::RegistrationExceedingMaxKernels,
                          "registering %zu kernels would exceed the registry capacity of %zu", kernels.size(),
                          kMaxRegisteredKernels);
  }
  for (const Kernel& k : kernels) r.kernels.emplace(k.name_, k.op_);
  return Error::Ok;
}

Error register_kernel(const Kernel& kernel) { return register_kernels(Span<const Kernel>(&kernel, 1)); }

bool registry_has_op_function(const char* name) {
  if (name == nullptr) return false;
  KernelRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.kernels.count(name) != 0;
}

Result<OpFunction> get_op_function_from_registry(const char* name) {
  if (name == nullptr) return Error::InvalidArgument;
  KernelRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.kernels.find(name);
  if (it == r.kernels.end()) return Error::OperatorMissing;
  return it->second;
}

size_t get_num_registered_kernels() {
  KernelRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.kernels.size();
}

std::vector<std::string> get_registered_kernel_names() {
  KernelRegistry& r = registry();
  std::vector<std::string> names;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    names.reserve(r.kernels.size());
    for (const auto& kv : r.kernels) names.push_back(kv.first);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace runtime
}  // namespace executorch
