// Cache-blocked fp32 GEMM: B packed in NR-wide panels, A in MR-tall panels, a register-blocked micro-kernel
// written with GCC vector extensions, and one tile implementation per ISA level (AVX-512, AVX2+FMA, baseline)
// chosen at run time. Tiles of C are spread over the shared thread pool.
#include "gemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <executorch/extension/parallel/thread_parallel.h>

namespace etk {
namespace {

constexpr int64_t KC = 256;
constexpr int64_t kSmallGemm = 16384;

struct GemmArgs {
  int64_t M, N, K;
  float alpha, beta;
  const float* A;
  int64_t rsa, csa;
  const float* B;
  int64_t rsb, csb;
  float* C;
  int64_t rsc, csc;
};

typedef float v4f __attribute__((vector_size(16)));
typedef float v8f __attribute__((vector_size(32)));
typedef float v16f __attribute__((vector_size(64)));

template <int MR>
inline __attribute__((always_inline)) void pack_a(const GemmArgs& g, int64_t m0, int64_t mc, int64_t p0, int64_t kc,
                                                  float* dst) {
  for (int64_t i0 = 0; i0 < mc; i0 += MR) {
    float* P = dst + i0 * kc;
    const int64_t mr = std::min<int64_t>(MR, mc - i0);
    if (mr == MR && g.csa == 1) {
      for (int i = 0; i < MR; ++i) {
        const float* a = g.A + (m0 + i0 + i) * g.rsa + p0;
        for (int64_t k = 0; k < kc; ++k) P[k * MR + i] = a[k];
      }
    } else {
      for (int64_t k = 0; k < kc; ++k) {
        for (int i = 0; i < MR; ++i)
          P[k * MR + i] = i < mr ? g.A[(m0 + i0 + i) * g.rsa + (p0 + k) * g.csa] : 0.f;
      }
    }
  }
}

template <int NR>
inline __attribute__((always_inline)) void pack_b(const GemmArgs& g, int64_t n0, int64_t nc, int64_t p0, int64_t kc,
                                                  float* dst) {
  for (int64_t j0 = 0; j0 < nc; j0 += NR) {
    float* P = dst + j0 * kc;
    const int64_t nr = std::min<int64_t>(NR, nc - j0);
    if (nr == NR && g.csb == 1) {
      for (int64_t k = 0; k < kc; ++k) {
        const float* b = g.B + (p0 + k) * g.rsb + n0 + j0;
        for (int j = 0; j < NR; ++j) P[k * NR + j] = b[j];
      }
    } else if (g.rsb == 1) {
      for (int j = 0; j < NR; ++j) {
        if (j < nr) {
          const float* b = g.B + (n0 + j0 + j) * g.csb + p0;
          for (int64_t k = 0; k < kc; ++k) P[k * NR + j] = b[k];
        } else {
          for (int64_t k = 0; k < kc; ++k) P[k * NR + j] = 0.f;
        }
      }
    } else {
      for (int64_t k = 0; k < kc; ++k)
        for (int j = 0; j < NR; ++j)
          P[k * NR + j] = j < nr ? g.B[(p0 + k) * g.rsb + (n0 + j0 + j) * g.csb] : 0.f;
    }
  }
}

template <typename VT, int MR, int NV>
inline __attribute__((always_inline)) void micro(int64_t kc, const float* __restrict Ap, const float* __restrict Bp,
                                                 float* __restrict out) {
  constexpr int W = sizeof(VT) / sizeof(float);
  VT acc[MR][NV];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV; ++j) acc[i][j] = VT{};
  for (int64_t k = 0; k < kc; ++k) {
    VT b[NV];
    for (int j = 0; j < NV; ++j) std::memcpy(&b[j], Bp + j * W, sizeof(VT));
    for (int i = 0; i < MR; ++i) {
      const VT a = VT{} + Ap[i];
      for (int j = 0; j < NV; ++j) acc[i][j] += a * b[j];
    }
    Ap += MR;
    Bp += NV * W;
  }
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV; ++j) std::memcpy(out + i * NV * W + j * W, &acc[i][j], sizeof(VT));
}

// One tile of C: rows [m0, m0 + mc), cols [n0, n0 + nc), all of K.
template <typename VT, int MR, int NV>
inline __attribute__((always_inline)) void tile_impl(const GemmArgs& g, int64_t m0, int64_t mc, int64_t n0, int64_t nc,
                                                     float* packA, float* packB) {
  constexpr int W = sizeof(VT) / sizeof(float);
  constexpr int NR = NV * W;
  alignas(64) float tmp[MR * NR];
  for (int64_t p0 = 0; p0 < g.K; p0 += KC) {
    const int64_t kc = std::min(KC, g.K - p0);
    const bool first = p0 == 0;
    pack_b<NR>(g, n0, nc, p0, kc, packB);
    pack_a<MR>(g, m0, mc, p0, kc, packA);
    for (int64_t j0 = 0; j0 < nc; j0 += NR) {
      const int64_t nr = std::min<int64_t>(NR, nc - j0);
      for (int64_t i0 = 0; i0 < mc; i0 += MR) {
        const int64_t mr = std::min<int64_t>(MR, mc - i0);
        micro<VT, MR, NV>(kc, packA + i0 * kc, packB + j0 * kc, tmp);
        float* c = g.C + (m0 + i0) * g.rsc + (n0 + j0) * g.csc;
        const float alpha = g.alpha;
        if (g.csc == 1 && nr == NR) {
          for (int64_t i = 0; i < mr; ++i) {
            float* cr = c + i * g.rsc;
            const float* t = tmp + i * NR;
            if (!first) {
              for (int j = 0; j < NR; ++j) cr[j] += alpha * t[j];
            } else if (g.beta == 0.f) {
              for (int j = 0; j < NR; ++j) cr[j] = alpha * t[j];
            } else {
              for (int j = 0; j < NR; ++j) cr[j] = alpha * t[j] + g.beta * cr[j];
            }
          }
        } else {
          for (int64_t i = 0; i < mr; ++i) {
            for (int64_t j = 0; j < nr; ++j) {
              float* cp = c + i * g.rsc + j * g.csc;
              const float v = alpha * tmp[i * NR + j];
              if (!first)
                *cp += v;
              else if (g.beta == 0.f)
                *cp = v;
              else
                *cp = v + g.beta * *cp;
            }
          }
        }
      }
    }
  }
}

// Small problems with unit column strides in B and C: no packing, rows of C updated by axpy over rows of B
// (four rows of C at a time so each B row is loaded once per four FMAs).
inline __attribute__((always_inline)) void small_impl(const GemmArgs& g) {
  const int64_t M = g.M, N = g.N, K = g.K;
  for (int64_t i = 0; i < M; ++i) {
    float* __restrict c = g.C + i * g.rsc;
    if (g.beta == 0.f) {
      for (int64_t j = 0; j < N; ++j) c[j] = 0.f;
    } else if (g.beta != 1.f) {
      for (int64_t j = 0; j < N; ++j) c[j] *= g.beta;
    }
  }
  int64_t i = 0;
  for (; i + 4 <= M; i += 4) {
    float* __restrict c0 = g.C + i * g.rsc;
    float* __restrict c1 = c0 + g.rsc;
    float* __restrict c2 = c1 + g.rsc;
    float* __restrict c3 = c2 + g.rsc;
    const float* a = g.A + i * g.rsa;
    for (int64_t k = 0; k < K; ++k) {
      const float a0 = g.alpha * a[k * g.csa], a1 = g.alpha * a[g.rsa + k * g.csa],
                  a2 = g.alpha * a[2 * g.rsa + k * g.csa], a3 = g.alpha * a[3 * g.rsa + k * g.csa];
      const float* __restrict b = g.B + k * g.rsb;
      for (int64_t j = 0; j < N; ++j) {
        const float bv = b[j];
        c0[j] += a0 * bv;
        c1[j] += a1 * bv;
        c2[j] += a2 * bv;
        c3[j] += a3 * bv;
      }
    }
  }
  for (; i < M; ++i) {
    float* __restrict c = g.C + i * g.rsc;
    const float* a = g.A + i * g.rsa;
    for (int64_t k = 0; k < K; ++k) {
      const float av = g.alpha * a[k * g.csa];
      const float* __restrict b = g.B + k * g.rsb;
      for (int64_t j = 0; j < N; ++j) c[j] += av * b[j];
    }
  }
}

struct Kernel {
  int mr, nr;
  void (*tile)(const GemmArgs&, int64_t, int64_t, int64_t, int64_t, float*, float*);
  void (*small)(const GemmArgs&);
};

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx512f,avx2,fma"))) void tile_avx512(const GemmArgs& g, int64_t m0, int64_t mc, int64_t n0,
                                                               int64_t nc, float* pa, float* pb) {
  tile_impl<v16f, 8, 2>(g, m0, mc, n0, nc, pa, pb);
}
__attribute__((target("avx2,fma"))) void tile_avx2(const GemmArgs& g, int64_t m0, int64_t mc, int64_t n0, int64_t nc,
                                                   float* pa, float* pb) {
  tile_impl<v8f, 6, 2>(g, m0, mc, n0, nc, pa, pb);
}
__attribute__((target("avx512f,avx2,fma"))) void small_avx512(const GemmArgs& g) { small_impl(g); }
__attribute__((target("avx2,fma"))) void small_avx2(const GemmArgs& g) { small_impl(g); }
#endif
void small_base(const GemmArgs& g) { small_impl(g); }
void tile_base(const GemmArgs& g, int64_t m0, int64_t mc, int64_t n0, int64_t nc, float* pa, float* pb) {
  tile_impl<v4f, 6, 2>(g, m0, mc, n0, nc, pa, pb);
}

Kernel pick_kernel() {
  // EXECUTORCH_GEMM_ISA=avx2|baseline caps the instruction set (for testing the fallbacks).
  const char* cap = std::getenv("EXECUTORCH_GEMM_ISA");
  const std::string c = cap ? cap : "";
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (c != "avx2" && c != "baseline" && __builtin_cpu_supports("avx512f")) return Kernel{8, 32, tile_avx512, small_avx512};
  if (c != "baseline" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return Kernel{6, 16, tile_avx2, small_avx2};
#endif
  return Kernel{6, 8, tile_base, small_base};
}

const Kernel& kernel() {
  static const Kernel k = pick_kernel();
  return k;
}

inline int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

void naive(const GemmArgs& g) {
  for (int64_t i = 0; i < g.M; ++i) {
    for (int64_t j = 0; j < g.N; ++j) {
      float acc = 0.f;
      for (int64_t k = 0; k < g.K; ++k) acc += g.A[i * g.rsa + k * g.csa] * g.B[k * g.rsb + j * g.csb];
      float* cp = g.C + i * g.rsc + j * g.csc;
      *cp = g.beta == 0.f ? g.alpha * acc : g.alpha * acc + g.beta * *cp;
    }
  }
}

}  // namespace

void sgemm(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t rsa, int64_t csa, const float* B,
           int64_t rsb, int64_t csb, float beta, float* C, int64_t rsc, int64_t csc, bool parallel) {
  if (M <= 0 || N <= 0) return;
  GemmArgs g{M, N, K, alpha, beta, A, rsa, csa, B, rsb, csb, C, rsc, csc};
  if (K <= 0) {
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        float* cp = C + i * rsc + j * csc;
        *cp = beta == 0.f ? 0.f : beta * *cp;
      }
    return;
  }
  if (M * N * K <= 512) {
    naive(g);
    return;
  }
  const Kernel& kr = kernel();
  // Small products with unit column strides (im2col convolutions of small layers, tiny linears): packing costs
  // more than it saves.
  if (csb == 1 && csc == 1 && M * N * K <= kSmallGemm) {
    kr.small(g);
    return;
  }
  const int64_t MR = kr.mr, NR = kr.nr;
  int64_t MC = std::min(round_up(M, MR), MR * 18);
  int64_t NC = std::min(round_up(N, NR), NR * 64);
  const double flops = 2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  const int64_t threads = parallel && flops > 2e6 ? ::executorch::extension::get_thread_count() : 1;
  auto tiles = [&]() { return ((M + MC - 1) / MC) * ((N + NC - 1) / NC); };
  while (tiles() < threads && NC > 4 * NR) NC = round_up(NC / 2, NR);
  while (tiles() < threads && MC > 2 * MR) MC = round_up(MC / 2, MR);
  const int64_t mt = (M + MC - 1) / MC, nt = (N + NC - 1) / NC;
  const int64_t kc_max = std::min(KC, K);
  auto run = [&](int64_t b, int64_t e) {
    thread_local std::vector<float> bufA, bufB;
    const size_t na = static_cast<size_t>(MC * kc_max), nb = static_cast<size_t>(NC * kc_max);
    if (bufA.size() < na) bufA.resize(na);
    if (bufB.size() < nb) bufB.resize(nb);
    for (int64_t t = b; t < e; ++t) {
      // n-major order so neighbouring tiles share B panels.
      const int64_t ti = t % mt, tj = t / mt;
      const int64_t m0 = ti * MC, n0 = tj * NC;
      kr.tile(g, m0, std::min(MC, M - m0), n0, std::min(NC, N - n0), bufA.data(), bufB.data());
    }
  };
  if (threads > 1 && mt * nt > 1) {
    ::executorch::extension::parallel_for(0, mt * nt, 1, run);
  } else {
    run(0, mt * nt);
  }
}

}  // namespace etk
