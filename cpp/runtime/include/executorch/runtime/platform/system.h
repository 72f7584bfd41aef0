#pragma once
// Which shared library a code or data address belongs to. Needs ET_USE_LIBDL (dladdr from <dlfcn.h>; on glibc
// before 2.34 also link -ldl); without it the answer is DYNAMIC_LIBRARY_NOT_SUPPORTED.
#if defined(ET_USE_LIBDL)
#include <dlfcn.h>
#endif

static constexpr const char* DYNAMIC_LIBRARY_NOT_SUPPORTED = "NOT_SUPPORTED";
static constexpr const char* DYNAMIC_LIBRARY_NOT_FOUND = "NOT_FOUND";

extern "C" {

// The path of the loaded object (executable or shared library) containing `addr`, as the dynamic loader knows it;
// DYNAMIC_LIBRARY_NOT_FOUND when no loaded object contains it.
inline const char* et_pal_get_shared_library_name(const void* addr) {
#if defined(ET_USE_LIBDL)
  Dl_info info;
  if (dladdr(addr, &info) != 0 && info.dli_fname != nullptr) return info.dli_fname;
  return DYNAMIC_LIBRARY_NOT_FOUND;
#else
  (void)addr;
  return DYNAMIC_LIBRARY_NOT_SUPPORTED;
#endif
}

}  // extern "C"
