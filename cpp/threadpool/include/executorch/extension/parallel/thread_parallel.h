#pragma once
#include <cstdint>
#include <functional>

#include <executorch/runtime/export.h>

namespace executorch {
namespace extension {

// Splits [begin, end) into chunks of at least grain_size elements and calls f(chunk_begin, chunk_end) for each,
// in parallel on the process-wide thread pool. Returns false for invalid arguments (begin > end, grain_size < 1).
EXECUTORCH_API bool parallel_for(int64_t begin, int64_t end, int64_t grain_size,
                                 const std::function<void(int64_t, int64_t)>& f);

// Threads available to parallel_for.
EXECUTORCH_API int64_t get_thread_count();

}  // namespace extension
}  // namespace executorch
