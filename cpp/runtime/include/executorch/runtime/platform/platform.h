#pragma once
// The platform abstraction layer (PAL): the few things the runtime needs from the system (a clock, a log sink,
// abort, raw memory), as C functions so that a port can be written in C.
//
// libexecutorch defines every et_pal_*() function as a weak symbol with default visibility (POSIX: monotonic
// clock in nanoseconds, log lines on stderr, malloc/free, std::abort). There are two ways to replace them:
//  - link time: define any of them (with this header included) in the executable, or in a shared library that
//    comes before libexecutorch in the lookup order (LD_PRELOAD, or linked before it; with --as-needed, a library
//    the executable does not call itself is dropped, so link it with --no-as-needed). That strong definition
//    replaces the runtime's own everywhere, including calls made inside libexecutorch and the component libraries.
//  - run time: executorch::runtime::register_pal(PalImpl::create(...)) replaces the non-null entries of the
//    runtime's function table. Runtime code calls the executorch::runtime::pal_*() wrappers, which go through it.
#include <stddef.h>
#include <stdint.h>

#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/types.h>

// Internal: the runtime defines this as ET_WEAK where it provides the default implementations. Applications
// neither define nor use it.
#ifndef ET_INTERNAL_PLATFORM_WEAKNESS
#define ET_INTERNAL_PLATFORM_WEAKNESS
#endif

extern "C" {

// nanoseconds = ticks * numerator / denominator.
typedef struct {
  uint64_t numerator;
  uint64_t denominator;
} et_tick_ratio_t;

// Sets up global state. Called by runtime_init() (and by register_pal() for a registered init); must tolerate
// being called more than once.
EXECUTORCH_API void et_pal_init(void) ET_INTERNAL_PLATFORM_WEAKNESS;
using pal_init_method = void (*)();

// Stops the process (or puts the device in an error state) immediately.
ET_NORETURN EXECUTORCH_API void et_pal_abort(void) ET_INTERNAL_PLATFORM_WEAKNESS;
using pal_abort_method = void (*)();

// A monotonically non-decreasing timestamp in platform ticks.
EXECUTORCH_API et_timestamp_t et_pal_current_ticks(void) ET_INTERNAL_PLATFORM_WEAKNESS;
typedef et_timestamp_t (*et_pal_current_ticks_t)(void);
using pal_current_ticks_method = et_timestamp_t (*)();

// The tick length as a fraction of a nanosecond (see ticks_to_ns() in clock.h).
EXECUTORCH_API et_tick_ratio_t et_pal_ticks_to_ns_multiplier(void) ET_INTERNAL_PLATFORM_WEAKNESS;
using pal_ticks_to_ns_multiplier_method = et_tick_ratio_t (*)();

// Severity of a log line, as the printable character the default sink writes.
typedef enum {
  kDebug = 'D',
  kInfo = 'I',
  kError = 'E',
  kFatal = 'F',
  kUnknown = '?',
} et_pal_log_level_t;

// Writes one log line. `message` is NUL-terminated and `length` bytes long (without the NUL); `filename` is the
// source file's name without directories, `function` the calling function, `timestamp` in ticks.
EXECUTORCH_API void et_pal_emit_log_message(et_timestamp_t timestamp, et_pal_log_level_t level, const char* filename,
                                            const char* function, size_t line, const char* message,
                                            size_t length) ET_INTERNAL_PLATFORM_WEAKNESS;
using pal_emit_log_message_method = void (*)(et_timestamp_t timestamp, et_pal_log_level_t level, const char* filename,
                                             const char* function, size_t line, const char* message, size_t length);

// Raw memory for allocators that ask the platform for it; nullptr when none is left. Release with et_pal_free().
EXECUTORCH_API void* et_pal_allocate(size_t size) ET_INTERNAL_PLATFORM_WEAKNESS;
using pal_allocate_method = void* (*)(size_t size);

// Releases memory from et_pal_allocate(); nullptr is allowed.
EXECUTORCH_API void et_pal_free(void* ptr) ET_INTERNAL_PLATFORM_WEAKNESS;
using pal_free_method = void (*)(void* ptr);

}  // extern "C"

namespace executorch::runtime {

// A table of PAL functions for register_pal(); a null entry keeps what is registered now.
struct EXECUTORCH_API PalImpl {
  // Only a log sink.
  static PalImpl create(pal_emit_log_message_method emit_log_message, const char* source_filename);
  static PalImpl create(pal_init_method init, pal_abort_method abort, pal_current_ticks_method current_ticks,
                        pal_ticks_to_ns_multiplier_method ticks_to_ns_multiplier,
                        pal_emit_log_message_method emit_log_message, pal_allocate_method allocate,
                        pal_free_method free, const char* source_filename);

  pal_init_method init = nullptr;
  pal_abort_method abort = nullptr;
  pal_current_ticks_method current_ticks = nullptr;
  pal_ticks_to_ns_multiplier_method ticks_to_ns_multiplier = nullptr;
  pal_emit_log_message_method emit_log_message = nullptr;
  pal_allocate_method allocate = nullptr;
  pal_free_method free = nullptr;
  // Where the table comes from (usually __FILE__), named when a later registration replaces it.
  const char* source_filename;
};

// Replaces the non-null entries of the runtime's PAL table and calls impl.init if it is set. Returns true.
// Register before the runtime is used from other threads: the table is not synchronized.
EXECUTORCH_API bool register_pal(PalImpl impl);

// The table in use: the et_pal_*() functions (the runtime's or an application's strong definitions), with the
// entries replaced by register_pal().
EXECUTORCH_API const PalImpl* get_pal_impl();

// The functions of the table in use; runtime code calls these rather than et_pal_*() directly.
EXECUTORCH_API void pal_init();
ET_NORETURN EXECUTORCH_API void pal_abort();
EXECUTORCH_API et_timestamp_t pal_current_ticks();
EXECUTORCH_API et_tick_ratio_t pal_ticks_to_ns_multiplier();
EXECUTORCH_API void pal_emit_log_message(et_timestamp_t timestamp, et_pal_log_level_t level, const char* filename,
                                         const char* function, size_t line, const char* message, size_t length);
EXECUTORCH_API void* pal_allocate(size_t size);
EXECUTORCH_API void pal_free(void* ptr);

}  // namespace executorch::runtime
