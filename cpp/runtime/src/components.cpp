// Component discovery: libexecutorch_<name>.so.<SOVERSION> files in the component directory describe themselves
// (platform/component.h); the runtime loads one only when a program needs what it declares.
#include <executorch/runtime/platform/component.h>
#include <executorch/runtime/platform/components.h>
#include <executorch/runtime/version.h>

#include <dirent.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "component_catalog.h"
#include "internal.h"

namespace executorch {
namespace runtime {
namespace {

constexpr char kPrefix[] = "libexecutorch_";
constexpr char kSuffix[] = ".so." EXECUTORCH_SOVERSION;

// A component library file, and what its descriptor said once loaded.
struct Found {
  std::string file;  // libexecutorch_<name>.so.<SOVERSION>
  bool probed = false;
  bool registered = false;
  const ExecutorchComponent* desc = nullptr;  // null: not loaded, not a component, or refused
  std::string error;                          // why it could not be used
  ComponentInfo info{};                       // points into desc and file
};

struct State {
  std::mutex mu;
  std::string dir;  // the directory `found` was listed from
  std::vector<std::unique_ptr<Found>> found;
  std::set<std::string> loaded_paths;
  // ComponentInfo for catalog entries whose library is absent (stable addresses for the public API).
  std::vector<std::unique_ptr<ComponentInfo>> absent;
};

State& state() {
  static State* s = new State();  // never destroyed: components stay loaded until exit
  return *s;
}

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

bool in_list(const char* const* list, const std::string& key) {
  for (; list != nullptr && *list != nullptr; ++list)
    if (key == *list) return true;
  return false;
}

bool in_csv(const char* csv, const std::string& key) {
  const std::string s = std::string(",") + csv + ",";
  return s.find("," + key + ",") != std::string::npos;
}

std::string name_of_file(const std::string& file) {
  return file.substr(sizeof(kPrefix) - 1, file.size() - (sizeof(kPrefix) - 1) - (sizeof(kSuffix) - 1));
}

const CatalogEntry* catalog_by_name(const std::string& name) {
  for (const CatalogEntry& c : kCatalog)
    if (name == c.name) return &c;
  return nullptr;
}

// Lists the component directory again when it changed (EXECUTORCH_COMPONENT_DIR may be set between calls).
void list_dir(State& s) {
  const std::string dir = component_dir();
  if (dir == s.dir && !s.found.empty()) return;
  std::vector<std::unique_ptr<Found>> keep;
  for (auto& f : s.found)
    if (f->desc != nullptr) keep.push_back(std::move(f));  // components loaded from the old directory stay known
  s.found = std::move(keep);
  s.dir = dir;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  std::vector<std::string> files;
  while (const dirent* e = readdir(d)) {
    const std::string f = e->d_name;
    if (f.size() > sizeof(kPrefix) - 1 + sizeof(kSuffix) - 1 && f.compare(0, sizeof(kPrefix) - 1, kPrefix) == 0 &&
        ends_with(f, kSuffix))
      files.push_back(f);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    const bool known = std::any_of(s.found.begin(), s.found.end(), [&](const auto& x) { return x->file == f; });
    if (known) continue;
    auto x = std::make_unique<Found>();
    x->file = f;
    s.found.push_back(std::move(x));
  }
}

Error dlopen_locked(State& s, const std::string& path, void** handle) {
  if (access(path.c_str(), R_OK) != 0)
    return set_last_error(Error::NotFound, "library %s does not exist or is not readable", path.c_str());
  dlerror();
  *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (*handle == nullptr) {
    const char* why = dlerror();
    return set_last_error(Error::AccessFailed, "could not load %s: %s", path.c_str(), why ? why : "unknown error");
  }
  s.loaded_paths.insert(path);  // never dlclose'd: it may register kernels or backends into our tables
  return Error::Ok;
}

// Loads f and reads its descriptor (once). A file without the entry point is a library, not a component.
void probe(State& s, Found& f) {
  if (f.probed) return;
  f.probed = true;
  const std::string path = s.dir + "/" + f.file;
  void* h = nullptr;
  if (dlopen_locked(s, path, &h) != Error::Ok) {
    f.error = last_error_message();
    return;
  }
  auto entry = reinterpret_cast<ExecutorchComponentEntryPoint>(dlsym(h, EXECUTORCH_COMPONENT_ENTRY_POINT));
  if (entry == nullptr) {
    f.error = f.file + " is not a component (it has no " EXECUTORCH_COMPONENT_ENTRY_POINT "() entry point)";
    return;
  }
  const ExecutorchComponent* d = entry();
  if (d == nullptr || d->name == nullptr || d->package == nullptr || d->version == nullptr) {
    f.error = f.file + ": its component descriptor is incomplete";
    return;
  }
  if (d->api_version != EXECUTORCH_COMPONENT_API_VERSION) {
    f.error = f.file + " (" + d->package + " " + d->version + ") was built for component API version " +
              std::to_string(d->api_version) + ", but this libexecutorch (" EXECUTORCH_VERSION ") has API version " +
              std::to_string(EXECUTORCH_COMPONENT_API_VERSION) + ": install " + d->package +
              " and executorch-runtime of the same release";
    return;
  }
  if (d->register_all == nullptr || name_of_file(f.file) != d->name) {
    f.error = f.file + ": its descriptor names component '" + d->name + "' or lacks register_all()";
    return;
  }
  f.desc = d;
  f.info = ComponentInfo{d->name, f.file.c_str(), d->package};
}

// Registers f's kernels / backends (once); false with f.error set when it cannot.
bool ensure_registered(State& s, Found& f) {
  probe(s, f);
  if (f.desc == nullptr) return false;
  if (f.registered) return true;
  const uint32_t e = f.desc->register_all();
  if (e != 0) {
    f.error = f.file + ": registering its kernels or backends failed (error " + std::to_string(e) + ")";
    f.desc = nullptr;
    return false;
  }
  f.registered = true;
  return true;
}

enum class Kind { kOperatorNamespace, kBackend };

bool declares(const ExecutorchComponent* d, Kind kind, const std::string& key) {
  return d != nullptr && in_list(kind == Kind::kBackend ? d->backends : d->operator_namespaces, key);
}
bool catalog_declares(const CatalogEntry& c, Kind kind, const std::string& key) {
  return in_csv(kind == Kind::kBackend ? c.backends : c.operator_namespaces, key);
}

bool autoload_enabled() {
  const char* autoload = std::getenv("EXECUTORCH_AUTOLOAD");
  return autoload == nullptr || std::strcmp(autoload, "0") != 0;
}

// The component that provides `key`, loading candidates in order: those already loaded, those the SDK's catalog
// names for it, then every other component file (none with EXECUTORCH_AUTOLOAD=0). Null when none does.
Found* find_provider(State& s, Kind kind, const std::string& key) {
  list_dir(s);
  for (auto& f : s.found)
    if (declares(f->desc, kind, key)) return f.get();
  if (!autoload_enabled()) return nullptr;
  for (int pass = 0; pass < 2; ++pass) {
    for (auto& f : s.found) {
      if (f->probed) continue;
      const CatalogEntry* c = catalog_by_name(name_of_file(f->file));
      if (pass == 0 && (c == nullptr || !catalog_declares(*c, kind, key))) continue;
      probe(s, *f);
      if (declares(f->desc, kind, key)) return f.get();
    }
  }
  return nullptr;
}

const ComponentInfo* info_for(State& s, Kind kind, const char* key) {
  if (key == nullptr) return nullptr;
  if (Found* f = find_provider(s, kind, key)) return &f->info;
  for (const CatalogEntry& c : kCatalog) {
    if (!catalog_declares(c, kind, key)) continue;
    for (auto& a : s.absent)
      if (std::strcmp(a->name, c.name) == 0) return a.get();
    s.absent.push_back(std::make_unique<ComponentInfo>(ComponentInfo{c.name, c.library, c.package}));
    return s.absent.back().get();
  }
  return nullptr;
}

std::string op_namespace(const char* op_name) {
  const char* sep = std::strstr(op_name, "::");
  return sep ? std::string(op_name, sep) : std::string();
}

}  // namespace

const ComponentInfo* component_for_operator(const char* op_name) {
  if (op_name == nullptr) return nullptr;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return info_for(s, Kind::kOperatorNamespace, op_namespace(op_name).c_str());
}

const ComponentInfo* component_for_backend(const char* backend_id) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return info_for(s, Kind::kBackend, backend_id);
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
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.loaded_paths.count(path) != 0) return Error::Ok;
  void* h = nullptr;
  return dlopen_locked(s, path, &h);
}

Error load_component(const char* name) {
  if (name == nullptr) return Error::InvalidArgument;
  if (!autoload_enabled()) {
    return set_last_error(Error::NotSupported, "component loading is turned off (EXECUTORCH_AUTOLOAD=0)");
  }
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  list_dir(s);
  for (auto& f : s.found) {
    if (name_of_file(f->file) != name) continue;
    if (ensure_registered(s, *f)) return Error::Ok;
    return set_last_error(Error::AccessFailed, "component '%s' cannot be used: %s", name, f->error.c_str());
  }
  if (const CatalogEntry* c = catalog_by_name(name)) {
    return set_last_error(Error::NotFound,
                          "component library %s is not installed (looked in %s); install the %s "
                          "package",
                          c->library, s.dir.c_str(), c->package);
  }
  return set_last_error(Error::InvalidArgument, "unknown component '%s' (no %s%s%s in %s)", name, kPrefix, name,
                        kSuffix, s.dir.c_str());
}

bool component_loaded(const char* name) {
  if (name == nullptr) return false;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  for (auto& f : s.found)
    if (f->registered && name_of_file(f->file) == name) return true;
  return false;
}

std::vector<std::string> installed_components() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  list_dir(s);
  std::vector<std::string> names;
  for (const auto& f : s.found) names.push_back(name_of_file(f->file));
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace runtime
}  // namespace executorch
