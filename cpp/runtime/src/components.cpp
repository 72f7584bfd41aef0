#include <executorch/runtime/platform/components.h>
#include <executorch/runtime/version.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "internal.h"

namespace executorch {
namespace runtime {
namespace {

#define ET_COMPONENT_LIB(stem) "lib" stem ".so." EXECUTORCH_SOVERSION

const ComponentInfo kComponents[] = {
    {"kernels", ET_COMPONENT_LIB("executorch_kernels"), "executorch-kernels"},
    {"xnnpack", ET_COMPONENT_LIB("executorch_xnnpack"), "executorch-xnnpack"},
    {"cuda", ET_COMPONENT_LIB("executorch_cuda"), "executorch-cuda"},
};

const ComponentInfo* find_component(const char* name) {
  for (const ComponentInfo& c : kComponents) {
    if (std::strcmp(c.name, name) == 0) return &c;
  }
  return nullptr;
}

bool starts_with(const char* s, const char* prefix) { return std::strncmp(s, prefix, std::strlen(prefix)) == 0; }

std::mutex g_mu;
std::set<std::string> g_loaded;

}  // namespace

const ComponentInfo* component_for_operator(const char* op_name) {
  if (op_name == nullptr) return nullptr;
  if (starts_with(op_name, "aten::") || starts_with(op_name, "dim_order_ops::") ||
      starts_with(op_name, "quantized_decomposed::")) {
    return find_component("kernels");
  }
  return nullptr;
}

const ComponentInfo* component_for_backend(const char* backend_id) {
  if (backend_id == nullptr) return nullptr;
  if (std::strcmp(backend_id, "XnnpackBackend") == 0) return find_component("xnnpack");
  if (std::strcmp(backend_id, "CudaBackend") == 0) return find_component("cuda");
  return nullptr;
}

std::string component_dir() {
  if (const char* env = std::getenv("EXECUTORCH_COMPONENT_DIR")) {
    if (*env != '\0') return env;
  }
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&component_dir), &info) != 0 && info.dli_fname != nullptr) {
    std::string path = info.dli_fname;
    const size_t slash = path.rfind('/');
    if (slash != std::string::npos) return path.substr(0, slash);
  }
  return ".";
}

Error load_library(const char* path) {
  if (path == nullptr) return Error::InvalidArgument;
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_loaded.count(path) != 0) return Error::Ok;
  if (access(path, R_OK) != 0) {
    return internal::fail(Error::NotFound, "library %s does not exist or is not readable", path);
  }
  dlerror();
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return internal::fail(Error::AccessFailed, "could not load %s: %s", path, why ? why : "unknown error");
  }
  g_loaded.insert(path);  // never dlclose'd: the library registered kernels or backends into our tables
  return Error::Ok;
}

Error load_component(const char* name) {
  if (name == nullptr) return Error::InvalidArgument;
  const ComponentInfo* c = find_component(name);
  if (c == nullptr) return internal::fail(Error::InvalidArgument, "unknown component '%s'", name);
  const char* autoload = std::getenv("EXECUTORCH_AUTOLOAD");
  if (autoload != nullptr && std::strcmp(autoload, "0") == 0) {
    return internal::fail(Error::NotSupported, "component loading is turned off (EXECUTORCH_AUTOLOAD=0)");
  }
  const std::string path = component_dir() + "/" + c->library;
  if (access(path.c_str(), R_OK) != 0) {
    return internal::fail(Error::NotFound, "component library %s is not installed (looked in %s); install the %s "
                          "package", c->library, component_dir().c_str(), c->package);
  }
  return load_library(path.c_str());
}

}  // namespace runtime
}  // namespace executorch
