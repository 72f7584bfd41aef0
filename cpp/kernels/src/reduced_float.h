#pragma once
// Half and BFloat16 for every kernel of this library: a call with any Half / BFloat16 tensor (or tensor list)
// argument runs the kernel on float32 copies of those tensors, then writes each copy the kernel changed (resized
// or written: the outputs, and self of in-place ops) back in its own dtype, rounding once to nearest even. The
// result is what computing in float and rounding each output gives (c10::Half / c10::BFloat16 arithmetic rounds
// every operation; reductions and matmuls here accumulate in float, as upstream's optimized kernels do).
#include "kernel_utils.h"

namespace etk {

bool has_reduced_float(Args args);
void run_in_float(KernelRuntimeContext& ctx, Args args, rt::OpFunction kernel);
// True inside run_in_float on this thread: a dtype argument naming Half or BFloat16 then means the float32 copies'
// Float (arg_opt_dtype maps it), so `sum(x, dtype=float16)` still matches its shadowed output.
bool in_float_call();

template <void (*F)(KernelRuntimeContext&, Args)>
void reduced_float(KernelRuntimeContext& ctx, Args args) {
  if (has_reduced_float(args)) {
    run_in_float(ctx, args, F);
  } else {
    F(ctx, args);
  }
}

}  // namespace etk
