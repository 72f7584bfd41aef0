#pragma once
// Symbol visibility for every library of this SDK. Libraries are built with -fvisibility=hidden; only what is
// marked EXECUTORCH_API (or the component's own macro, which expands to the same attribute) is exported.
#include <executorch/runtime/platform/compiler.h>

#if defined(_WIN32)
#define EXECUTORCH_API
#else
#define EXECUTORCH_API __attribute__((visibility("default")))
#endif
