// The component descriptor: registers every ET_KERNEL_OP of this library (sdpa.cpp, update_cache.cpp) into the
// runtime's registry when the runtime asks (platform/component.h).
#include <kernel_base.h>

ET_KERNEL_LIBRARY("llm", "executorch-llm", "executorch_llm", "llama")
