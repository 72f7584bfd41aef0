// The component descriptor: registers every ET_KERNEL_OP of this library (src/ops/) into the runtime's registry when
// the runtime asks (platform/component.h); every kernel also takes Half / BFloat16 tensors (reduced_float.h).
#include <kernel_base.h>

ET_KERNEL_LIBRARY("kernels", "executorch-kernels", "executorch_kernels", "aten", "dim_order_ops")
