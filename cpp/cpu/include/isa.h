#pragma once
// Run-time choice of the instruction-set level, shared by every CPU component (kernels, XNNPACK delegate). The
// libraries target baseline x86-64 (or baseline armv8-a on aarch64); hot loops are compiled once per level and
// picked when called.

namespace etk {

// x86-64: 2: AVX-512F, 1: AVX2 + FMA, 0: baseline; EXECUTORCH_GEMM_ISA=avx2|baseline caps it. aarch64: 2: NEON
// and the int8 dot products (dotprod: SDOT), 1: NEON (part of armv8-a, so every aarch64 CPU: the NEON-tuned fp32
// micro-kernels), 0: baseline (the portable kernels, which GCC also compiles to 128-bit NEON);
// EXECUTORCH_GEMM_ISA=neon|baseline caps it. The caps are there to test the fallbacks. Read once per process.
int isa_level();

}  // namespace etk

// ETK_ISA_DISPATCH(name, (params...), (args...)) defines `template <typename F> void name(params...)`, which calls
// `name##_impl(args...)` (a template over F, written by the caller, ideally always_inline) compiled for the
// current ISA level. Pass vectors and structures by reference (by value they change the ABI per level).
#if defined(__x86_64__) || defined(__i386__)
#define ETK_ISA_DISPATCH(name, params, args)                              \
  template <typename F>                                                   \
  __attribute__((target("avx512f,avx2,fma"))) void name##_avx512 params { \
    name##_impl args;                                                     \
  }                                                                       \
  template <typename F>                                                   \
  __attribute__((target("avx2,fma"))) void name##_avx2 params {           \
    name##_impl args;                                                     \
  }                                                                       \
  template <typename F>                                                   \
  void name params {                                                      \
    const int level = etk::isa_level();                                   \
    if (level == 2) {                                                     \
      name##_avx512 args;                                                 \
    } else if (level == 1) {                                              \
      name##_avx2 args;                                                   \
    } else {                                                              \
      name##_impl args;                                                   \
    }                                                                     \
  }
#else
#define ETK_ISA_DISPATCH(name, params, args) \
  template <typename F>                      \
  void name params {                         \
    name##_impl args;                        \
  }
#endif
