// The process-wide backend registry. It lives here, in libexecutorch, and nowhere else.
#include <executorch/runtime/backend/interface.h>

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "internal.h"

namespace executorch {
namespace runtime {
namespace {

struct Entry {
  std::string name;
  BackendInterface* backend;
};

struct BackendRegistry {
  std::mutex mu;
  std::vector<Entry> entries;
};

BackendRegistry& registry() {
  static BackendRegistry* r = [] {
    auto* reg = new BackendRegistry();             // never destroyed
    reg->entries.reserve(kMaxRegisteredBackends);  // names handed out by get_backend_name stay where they are
    return reg;
  }();
  return *r;
}

}  // namespace

BackendInterface::~BackendInterface() = default;

Error BackendInterface::validate(BackendInitContext&, FreeableBuffer*, ArrayRef<CompileSpec>) const {
  return Error::Ok;
}

Error register_backend(const Backend& backend) {
  if (backend.name == nullptr || backend.backend == nullptr || std::strlen(backend.name) == 0) {
    return set_last_error(Error::InvalidArgument, "a backend needs a name and an implementation");
  }
  BackendRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const Entry& e : r.entries) {
    if (e.name == backend.name) {
      return set_last_error(Error::RegistrationAlreadyRegistered,
                            "backend %s is already registered; keeping the first registration", backend.name);
    }
  }
  if (r.entries.size() >= kMaxRegisteredBackends) {
    return set_last_error(Error::OutOfResources, "cannot register backend %s: the registry holds at most %zu",
                          backend.name, kMaxRegisteredBackends);
  }
  r.entries.push_back(Entry{backend.name, backend.backend});
  return Error::Ok;
}

BackendInterface* get_backend_class(const char* name) {
  if (name == nullptr) return nullptr;
  BackendRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const Entry& e : r.entries) {
    if (e.name == name) return e.backend;
  }
  return nullptr;
}

size_t get_num_registered_backends() {
  BackendRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.entries.size();
}

Result<const char*> get_backend_name(size_t index) {
  BackendRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (index >= r.entries.size()) return Error::InvalidArgument;
  return r.entries[index].name.c_str();  // entries are never removed, and the vector never reallocates
}

Error set_option(const char* backend_name, const Span<BackendOption> backend_options) {
  BackendInterface* backend = get_backend_class(backend_name);
  if (backend == nullptr) {
    return set_last_error(Error::NotFound, "no backend %s is registered", backend_name ? backend_name : "(null)");
  }
  BackendOptionContext context;
  return backend->set_option(context, backend_options);
}

Error get_option(const char* backend_name, Span<BackendOption> backend_options) {
  BackendInterface* backend = get_backend_class(backend_name);
  if (backend == nullptr) {
    return set_last_error(Error::NotFound, "no backend %s is registered", backend_name ? backend_name : "(null)");
  }
  BackendOptionContext context;
  return backend->get_option(context, backend_options);
}

}  // namespace runtime
}  // namespace executorch
