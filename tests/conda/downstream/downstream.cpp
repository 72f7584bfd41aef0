#include <executorch/extension/module/module.h>

#include <string>

// Number of methods in the program at `path`, or -1 when it cannot be loaded.
__attribute__((visibility("default"))) int et_downstream_method_count(const char* path) {
  executorch::extension::Module module(path);
  auto names = module.method_names();
  return names.ok() ? static_cast<int>(names->size()) : -1;
}
