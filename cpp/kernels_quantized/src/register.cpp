// The component descriptor: registers every ET_KERNEL_OP of this library into the runtime's registry when the
// runtime asks (platform/component.h). No static initializer: the operator table is constant data.
#include <kernel_base.h>

ET_KERNEL_LIBRARY("kernels_quantized", "executorch-kernels-quantized", "executorch_kernels_quantized",
                  "quantized_decomposed")
