#pragma once
// Basic types of the platform abstraction layer (executorch/runtime/platform/platform.h), usable from C.
#include <stdint.h>

extern "C" {

// A point in time in platform ticks (et_pal_current_ticks()); ticks_to_ns() converts it to nanoseconds.
typedef uint64_t et_timestamp_t;

}  // extern "C"
