#pragma once
// <immintrin.h> for the AVX-512 kernels of this folder (qgemm.cpp, qb4gemm.cpp, activations.cpp). GCC 12 reports the
// intrinsics' own _mm512_undefined_*() operands as (maybe) uninitialized (a known false positive inside immintrin.h);
// nothing in these files reads an undefined value, so the warning is off in the files that include this header.
#if defined(__x86_64__)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

// Assembly text of the AVX2 micro-kernels that keep 12 accumulators in ymm0-11 (qgemm.cpp's tile6,
// winograd_q8.cpp's gemm_tile6): zero them; store them to 12 consecutive 32-byte slots at operand %[acc].
// clang-format off
#define ETK_ASM_ZERO_YMM0_11 \
  "vpxor %%ymm0, %%ymm0, %%ymm0\n\t" \
  "vpxor %%ymm1, %%ymm1, %%ymm1\n\t" \
  "vpxor %%ymm2, %%ymm2, %%ymm2\n\t" \
  "vpxor %%ymm3, %%ymm3, %%ymm3\n\t" \
  "vpxor %%ymm4, %%ymm4, %%ymm4\n\t" \
  "vpxor %%ymm5, %%ymm5, %%ymm5\n\t" \
  "vpxor %%ymm6, %%ymm6, %%ymm6\n\t" \
  "vpxor %%ymm7, %%ymm7, %%ymm7\n\t" \
  "vpxor %%ymm8, %%ymm8, %%ymm8\n\t" \
  "vpxor %%ymm9, %%ymm9, %%ymm9\n\t" \
  "vpxor %%ymm10, %%ymm10, %%ymm10\n\t" \
  "vpxor %%ymm11, %%ymm11, %%ymm11\n\t"
#define ETK_ASM_STORE_YMM0_11 \
  "vmovdqa %%ymm0, 0(%[acc])\n\t" \
  "vmovdqa %%ymm1, 32(%[acc])\n\t" \
  "vmovdqa %%ymm2, 64(%[acc])\n\t" \
  "vmovdqa %%ymm3, 96(%[acc])\n\t" \
  "vmovdqa %%ymm4, 128(%[acc])\n\t" \
  "vmovdqa %%ymm5, 160(%[acc])\n\t" \
  "vmovdqa %%ymm6, 192(%[acc])\n\t" \
  "vmovdqa %%ymm7, 224(%[acc])\n\t" \
  "vmovdqa %%ymm8, 256(%[acc])\n\t" \
  "vmovdqa %%ymm9, 288(%[acc])\n\t" \
  "vmovdqa %%ymm10, 320(%[acc])\n\t" \
  "vmovdqa %%ymm11, 352(%[acc])\n\t"
// clang-format on
#endif
