// The platform abstraction layer: the runtime's default et_pal_*() functions (POSIX), the PAL function table that
// register_pal() edits, the pal_*() wrappers that dispatch through it, runtime_init() and runtime_abort().
//
// The defaults are weak and exported, so a strong et_pal_*() in the executable (or in a library found earlier in
// the lookup order) replaces them at load time. The table is filled with their addresses; since they are
// preemptible, those addresses resolve to the replacement as well, and the runtime never calls a default that an
// application has overridden.
#define ET_INTERNAL_PLATFORM_WEAKNESS ET_WEAK
#include <executorch/runtime/platform/platform.h>

#include <executorch/runtime/platform/abort.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/profiler.h>
#include <executorch/runtime/platform/runtime.h>
#include <executorch/runtime/version.h>

#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

extern "C" {

// Nothing to set up: the clock is absolute and the log sink is stderr.
void et_pal_init(void) {}

ET_NORETURN void et_pal_abort(void) { std::abort(); }

// CLOCK_MONOTONIC in nanoseconds (the clock of std::chrono::steady_clock), so one tick is one nanosecond.
et_timestamp_t et_pal_current_ticks(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<et_timestamp_t>(ts.tv_sec) * 1000000000u + static_cast<et_timestamp_t>(ts.tv_nsec);
}

et_tick_ratio_t et_pal_ticks_to_ns_multiplier(void) { return {1, 1}; }

// One line per message on stderr, "[executorch E program.cpp:42] message" (the format this SDK has always
// written; the timestamp and function are left out). One fprintf call, so concurrent lines do not interleave.
void et_pal_emit_log_message(et_timestamp_t timestamp, et_pal_log_level_t level, const char* filename,
                             const char* function, size_t line, const char* message, size_t length) {
  (void)timestamp, (void)function, (void)length;
  const char* base = filename != nullptr ? std::strrchr(filename, '/') : nullptr;
  base = base != nullptr ? base + 1 : (filename != nullptr ? filename : "?");
  std::fprintf(stderr, "[executorch %c %s:%zu] %s\n", static_cast<char>(level), base, line,
               message != nullptr ? message : "");
}

void* et_pal_allocate(size_t size) { return std::malloc(size); }

void et_pal_free(void* ptr) { std::free(ptr); }

}  // extern "C"

namespace executorch::runtime {
namespace {

// Constant-initialized (addresses only), so it is complete before any static constructor can call register_pal().
PalImpl g_pal = {et_pal_init,
                 et_pal_abort,
                 et_pal_current_ticks,
                 et_pal_ticks_to_ns_multiplier,
                 et_pal_emit_log_message,
                 et_pal_allocate,
                 et_pal_free,
                 __FILE__};
const char* g_registered_from = nullptr;  // source_filename of the last register_pal() call
std::mutex g_register_mutex;

}  // namespace

PalImpl PalImpl::create(pal_emit_log_message_method emit_log_message, const char* source_filename) {
  return create(nullptr, nullptr, nullptr, nullptr, emit_log_message, nullptr, nullptr, source_filename);
}

PalImpl PalImpl::create(pal_init_method init, pal_abort_method abort, pal_current_ticks_method current_ticks,
                        pal_ticks_to_ns_multiplier_method ticks_to_ns_multiplier,
                        pal_emit_log_message_method emit_log_message, pal_allocate_method allocate,
                        pal_free_method free, const char* source_filename) {
  return PalImpl{init, abort, current_ticks, ticks_to_ns_multiplier, emit_log_message, allocate, free, source_filename};
}

bool register_pal(PalImpl impl) {
  pal_init_method init = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_register_mutex);
    const char* from = impl.source_filename != nullptr ? impl.source_filename : "unknown";
    if (g_registered_from != nullptr)
      ET_LOG(Error, "register_pal() called again (from %s); it replaces the PAL registered from %s", from,
             g_registered_from);
    g_registered_from = from;
    if (impl.abort != nullptr) g_pal.abort = impl.abort;
    if (impl.current_ticks != nullptr) g_pal.current_ticks = impl.current_ticks;
    if (impl.ticks_to_ns_multiplier != nullptr) g_pal.ticks_to_ns_multiplier = impl.ticks_to_ns_multiplier;
    if (impl.emit_log_message != nullptr) g_pal.emit_log_message = impl.emit_log_message;
    if (impl.allocate != nullptr) g_pal.allocate = impl.allocate;
    if (impl.free != nullptr) g_pal.free = impl.free;
    if (impl.init != nullptr) g_pal.init = init = impl.init;
  }
  if (init != nullptr) init();  // outside the lock: an init may log, or register again
  return true;
}

const PalImpl* get_pal_impl() { return &g_pal; }

void pal_init() { g_pal.init(); }

ET_NORETURN void pal_abort() {
  g_pal.abort();
  std::abort();  // a registered abort must not return; make sure of it
}

et_timestamp_t pal_current_ticks() { return g_pal.current_ticks(); }

et_tick_ratio_t pal_ticks_to_ns_multiplier() { return g_pal.ticks_to_ns_multiplier(); }

void pal_emit_log_message(et_timestamp_t timestamp, et_pal_log_level_t level, const char* filename,
                          const char* function, size_t line, const char* message, size_t length) {
  g_pal.emit_log_message(timestamp, level, filename, function, line, message, length);
}

void* pal_allocate(size_t size) { return g_pal.allocate(size); }

void pal_free(void* ptr) { g_pal.free(ptr); }

ET_NORETURN void runtime_abort() { pal_abort(); }

// Calls the et_pal_init() symbol (the default or an application's strong replacement) once per process: the
// runtime itself calls runtime_init() on every Program::load() and Module, and a port's init (a UART, a timer)
// should not run again each time. An init given to register_pal() runs when it is registered.
void runtime_init() {
  static const bool initialized = [] {
    et_pal_init();
    EXECUTORCH_PROFILE_CREATE_BLOCK("default");
    return true;
  }();
  (void)initialized;
}

const char* runtime_version() { return EXECUTORCH_VERSION; }

}  // namespace executorch::runtime
