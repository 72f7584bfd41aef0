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
#endif
