#pragma once
// The old place of parallel_for (upstream keeps it as a forwarding header): include
// executorch/runtime/kernel/thread_parallel_interface.h instead.
#include <executorch/runtime/kernel/thread_parallel_interface.h>
