#pragma once
// Half and BFloat16 for every kernel of this library: a call with any Half / BFloat16 tensor (or tensor list)
// argument runs the kernel on float32 copies of those tensors, then writes each copy the kernel changed (resized
// or written: the outputs, and self of in-place ops) back in its own dtype, rounding once to nearest even. The
// result is what computing in float and rounding each output gives (c10::Half / c10::BFloat16 arithmetic rounds
// every operation; reductions and matmuls here accumulate in float, as upstream's optimized kernels do).
#include <kernel_base.h>

namespace etk {

bool has_reduced_float(::etkb::Args args);
// Runs `kernel` on the float32 copies; while it runs, CallState::reduced_as_float is set on this thread, so a dtype
// argument naming Half or BFloat16 reads as the copies' Float (`sum(x, dtype=float16)` still matches its output).
void run_in_float(::etkb::KernelRuntimeContext& ctx, ::etkb::Args args, ::etkb::rt::OpFunction kernel);

// The call policy of every ET_KERNEL_OP of this library (kernel_base.h).
struct KernelPolicy {
  static void run(::etkb::KernelRuntimeContext& ctx, ::etkb::Args args, ::etkb::rt::OpFunction f) {
    if (has_reduced_float(args)) {
      run_in_float(ctx, args, f);
    } else {
      f(ctx, args);
    }
  }
};

}  // namespace etk
