// Cache-blocked fp32 GEMM (GotoBLAS loop order): B packed in NR-wide panels, A in MR-tall panels, a
// register-blocked micro-kernel written with GCC vector extensions that updates C from its registers, and one block
// implementation per ISA level (AVX-512, AVX2+FMA, baseline; on aarch64 NEON and baseline) chosen at run time. Ranges
// of rows (or, with few rows, of columns) of C are spread over the shared thread pool.
//
// Also the pre-packed / indirect GEMM (weights packed once, A rows given as segment pointers, bias and clamp
// fused) and the NHWC depthwise convolution the XNNPACK delegate runs on.
#include "gemm.h"
#include "isa.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <executorch/extension/parallel/thread_parallel.h>

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace etk {
namespace {

constexpr int64_t KC = 256;
// Widest block of B packed at once: KC x kMaxNC floats (1 MiB) stay in a core's L2 next to its packed A.
constexpr int64_t kMaxNC = 1024;
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

// Rows [m0, m0 + mc) of A times alpha, columns [p0, p0 + kc): MR-tall panels, each [kc][MR] (short panels padded
// with zeros).
template <int MR>
inline __attribute__((always_inline)) void pack_a(const GemmArgs& g, int64_t m0, int64_t mc, int64_t p0, int64_t kc,
                                                  float* dst) {
  const float alpha = g.alpha;
  for (int64_t i0 = 0; i0 < mc; i0 += MR) {
    float* P = dst + i0 * kc;
    const int64_t mr = std::min<int64_t>(MR, mc - i0);
    if (mr == MR && g.csa == 1) {
      for (int i = 0; i < MR; ++i) {
        const float* a = g.A + (m0 + i0 + i) * g.rsa + p0;
        if (alpha == 1.f) {
          for (int64_t k = 0; k < kc; ++k) P[k * MR + i] = a[k];
        } else {
          for (int64_t k = 0; k < kc; ++k) P[k * MR + i] = alpha * a[k];
        }
      }
    } else {
      for (int64_t k = 0; k < kc; ++k) {
        for (int i = 0; i < MR; ++i)
          P[k * MR + i] = i < mr ? alpha * g.A[(m0 + i0 + i) * g.rsa + (p0 + k) * g.csa] : 0.f;
      }
    }
  }
}

// Columns [n0, n0 + nc) of B, rows [p0, p0 + kc): NR-wide panels, each [kc][NR] (the last padded with zeros).
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
        for (int j = 0; j < NR; ++j) P[k * NR + j] = j < nr ? g.B[(p0 + k) * g.rsb + (n0 + j0 + j) * g.csb] : 0.f;
    }
  }
}

// One MR x NR tile of packed A times packed B over kc, kept in registers, then stored to c (row stride rsc, unit
// column stride): c = acc when `overwrite`, else c = acc + cb * c.
template <typename VT, int MR, int NV>
inline __attribute__((always_inline)) void micro(int64_t kc, const float* __restrict Ap, const float* __restrict Bp,
                                                 float* __restrict c, int64_t rsc, bool overwrite, float cb) {
  constexpr int W = sizeof(VT) / sizeof(float);
  // The C tile is read or written only after the k loop: fetch it now (it is often in L3 by then).
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV * W; j += 16) __builtin_prefetch(c + i * rsc + j, 1);
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
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < NV; ++j) {
      float* d = c + i * rsc + j * W;
      VT v = acc[i][j];
      if (!overwrite) {
        VT old;
        std::memcpy(&old, d, sizeof(VT));
        v += cb * old;
      }
      std::memcpy(d, &v, sizeof(VT));
    }
  }
}

#if defined(__aarch64__)
// The NEON 8 x 12 micro-kernel (aarch64's 32 vector registers: 24 accumulators, 3 of B, 2 of A): the 8 values of
// A for one k are loaded as two vectors and each multiplies B by lane (FMLA by element), so no broadcast is needed.
// The same fused multiply-adds in the same k order as the generic kernel.
template <>
inline __attribute__((always_inline)) void micro<v4f, 8, 3>(int64_t kc, const float* __restrict Ap,
                                                            const float* __restrict Bp, float* __restrict c,
                                                            int64_t rsc, bool overwrite, float cb) {
  float32x4_t acc[8][3];
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 3; ++j) acc[i][j] = vdupq_n_f32(0.f);
  for (int64_t k = 0; k < kc; ++k) {
    const float32x4_t b0 = vld1q_f32(Bp), b1 = vld1q_f32(Bp + 4), b2 = vld1q_f32(Bp + 8);
    const float32x4_t a0 = vld1q_f32(Ap), a1 = vld1q_f32(Ap + 4);
#define ETK_NEON_ROW(i, a, lane)                       \
  acc[i][0] = vfmaq_laneq_f32(acc[i][0], b0, a, lane); \
  acc[i][1] = vfmaq_laneq_f32(acc[i][1], b1, a, lane); \
  acc[i][2] = vfmaq_laneq_f32(acc[i][2], b2, a, lane)
    ETK_NEON_ROW(0, a0, 0);
    ETK_NEON_ROW(1, a0, 1);
    ETK_NEON_ROW(2, a0, 2);
    ETK_NEON_ROW(3, a0, 3);
    ETK_NEON_ROW(4, a1, 0);
    ETK_NEON_ROW(5, a1, 1);
    ETK_NEON_ROW(6, a1, 2);
    ETK_NEON_ROW(7, a1, 3);
#undef ETK_NEON_ROW
    Ap += 8;
    Bp += 12;
  }
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 3; ++j) {
      float* d = c + i * rsc + j * 4;
      vst1q_f32(d, overwrite ? acc[i][j] : vfmaq_n_f32(acc[i][j], vld1q_f32(d), cb));
    }
  }
}
#endif

// Rows [m0, m0 + mc) and columns [n0, n0 + nc) of C for the k-block [p0, p0 + kc), against `pb`, the packed B block
// of that k-block whose first panel starts at column n0: packs A into `pa`, then runs the micro-kernel over every
// tile, NR panel outer (it stays in L1) and MR panel inner (the packed A stays in L2). The first k-block applies
// beta, the later ones accumulate.
template <typename VT, int MR, int NV>
inline __attribute__((always_inline)) void block_impl(const GemmArgs& g, int64_t m0, int64_t mc, int64_t n0, int64_t nc,
                                                      int64_t p0, int64_t kc, const float* pb, float* pa) {
  constexpr int W = sizeof(VT) / sizeof(float);
  constexpr int NR = NV * W;
  pack_a<MR>(g, m0, mc, p0, kc, pa);
  const bool first = p0 == 0;
  const bool overwrite = first && g.beta == 0.f;
  const float cb = first ? g.beta : 1.f;
  alignas(64) float tmp[MR * NR];
  for (int64_t j0 = 0; j0 < nc; j0 += NR) {
    const int64_t nr = std::min<int64_t>(NR, nc - j0);
    for (int64_t i0 = 0; i0 < mc; i0 += MR) {
      const int64_t mr = std::min<int64_t>(MR, mc - i0);
      float* c = g.C + (m0 + i0) * g.rsc + (n0 + j0) * g.csc;
      if (g.csc == 1 && nr == NR && mr == MR) {
        micro<VT, MR, NV>(kc, pa + i0 * kc, pb + j0 * kc, c, g.rsc, overwrite, cb);
        continue;
      }
      micro<VT, MR, NV>(kc, pa + i0 * kc, pb + j0 * kc, tmp, NR, true, 0.f);
      for (int64_t i = 0; i < mr; ++i) {
        for (int64_t j = 0; j < nr; ++j) {
          float* cp = c + i * g.rsc + j * g.csc;
          *cp = overwrite ? tmp[i * NR + j] : tmp[i * NR + j] + cb * *cp;
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

using BlockFn = void (*)(const GemmArgs&, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, const float*, float*);
using PackBFn = void (*)(const GemmArgs&, int64_t, int64_t, int64_t, int64_t, float*);

struct Kernel {
  int mr, nr;
  BlockFn block;
  PackBFn pack_b;
  void (*small)(const GemmArgs&);
};

// One block and one B packing function per micro-kernel shape, compiled for its ISA level.
#define ETK_GEMM_KERNEL(name, target, VT, MR, NV)                                                                     \
  target void block_##name(const GemmArgs& g, int64_t m0, int64_t mc, int64_t n0, int64_t nc, int64_t p0, int64_t kc, \
                           const float* pb, float* pa) {                                                              \
    block_impl<VT, MR, NV>(g, m0, mc, n0, nc, p0, kc, pb, pa);                                                        \
  }                                                                                                                   \
  target void pack_b_##name(const GemmArgs& g, int64_t n0, int64_t nc, int64_t p0, int64_t kc, float* dst) {          \
    pack_b<NV* static_cast<int>(sizeof(VT) / sizeof(float))>(g, n0, nc, p0, kc, dst);                                 \
  }                                                                                                                   \
  target void small_##name(const GemmArgs& g) { small_impl(g); }

#if defined(__x86_64__) || defined(__i386__)
ETK_GEMM_KERNEL(avx512, __attribute__((target("avx512f,avx2,fma"))), v16f, 12, 2)
ETK_GEMM_KERNEL(avx2, __attribute__((target("avx2,fma"))), v8f, 6, 2)
#endif
#if defined(__aarch64__)
ETK_GEMM_KERNEL(neon, , v4f, 8, 3)
#endif
ETK_GEMM_KERNEL(base, , v4f, 6, 2)
#undef ETK_GEMM_KERNEL

Kernel pick_kernel() {
#if defined(__x86_64__) || defined(__i386__)
  if (isa_level() == 2) return Kernel{12, 32, block_avx512, pack_b_avx512, small_avx512};
  if (isa_level() == 1) return Kernel{6, 16, block_avx2, pack_b_avx2, small_avx2};
#elif defined(__aarch64__)
  if (isa_level() >= 1) return Kernel{8, 12, block_neon, pack_b_neon, small_neon};
#endif
  return Kernel{6, 8, block_base, pack_b_base, small_base};
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

namespace {

// One row of A (contiguous) times B whose columns are contiguous (rsb == 1: B is a row-major weight [N, K] read as
// its transpose, as linear layers store it): each output is one dot product, reading the weights once, in order.
template <typename F>
inline __attribute__((always_inline)) void gemv_columns_impl(int64_t j0, int64_t j1, int64_t K, float alpha,
                                                             const float* a, const float* B, int64_t csb, float beta,
                                                             float* c, int64_t csc, F) {
  for (int64_t j = j0; j < j1; ++j) {
    const float* b = B + j * csb;
    float acc[16] = {};
    int64_t k = 0;
    for (; k + 16 <= K; k += 16)
      for (int i = 0; i < 16; ++i) acc[i] += a[k + i] * b[k + i];
    float t = 0.f;
    for (; k < K; ++k) t += a[k] * b[k];
    for (float v : acc) t += v;
    float* cp = c + j * csc;
    *cp = alpha * t + (beta == 0.f ? 0.f : beta * *cp);
  }
}
ETK_ISA_DISPATCH(gemv_columns,
                 (int64_t j0, int64_t j1, int64_t K, float alpha, const float* a, const float* B, int64_t csb,
                  float beta, float* c, int64_t csc, F f),
                 (j0, j1, K, alpha, a, B, csb, beta, c, csc, f))

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
  if (M == 1 && csa == 1 && rsb == 1 && K >= 16) {
    // A matrix-vector product (a decode step of a linear layer): packing would cost a second pass over the weights.
    const double flops = 2.0 * static_cast<double>(N) * static_cast<double>(K);
    auto run = [&](int64_t j0, int64_t j1) { gemv_columns(j0, j1, K, alpha, A, B, csb, beta, C, csc, 0); };
    if (parallel && flops > 2e5) {
      ::executorch::extension::parallel_for(0, N, std::max<int64_t>(1, 8192 / K), run);
    } else {
      run(0, N);
    }
    return;
  }
  const Kernel& kr = kernel();
  // Small products with unit column strides (im2col convolutions of small layers, tiny linears): packing costs
  // more than it saves.
  if (csb == 1 && csc == 1 && M * N * K <= kSmallGemm) {
    kr.small(g);
    return;
  }
  // GotoBLAS / BLIS order inside each unit of work: for each block of columns and of K, B is packed once into
  // the thread's own buffer (kept in L2; a shared packed B costs a cross-core miss per cache line the next time it
  // is written, and a barrier), then each block of rows packs its A and runs against all of it. A unit is a range
  // of rows (a few per thread, so a late worker's share can be taken over), or with few rows a range of columns.
  const int64_t MR = kr.mr, NR = kr.nr;
  const double flops = 2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  const int64_t threads = parallel && flops > 2e6 ? ::executorch::extension::get_thread_count() : 1;
  const int64_t panels = (N + NR - 1) / NR;
  int64_t mt = 1, ng = 1;
  if (threads > 1 && M >= 2 * MR * threads) {
    mt = threads * std::clamp<int64_t>(M / (threads * 16 * MR), 1, 2);
  } else if (threads > 1) {
    ng = std::min(threads, panels);
  }
  const int64_t rows = round_up((M + mt - 1) / mt, MR);
  mt = (M + rows - 1) / rows;
  const int64_t nk = (K + KC - 1) / KC, kcb = (K + nk - 1) / nk;
  auto unit = [&](int64_t u0, int64_t u1) {
    thread_local std::vector<float> packed_a, packed_b;
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t r0 = (u / ng) * rows, r1 = std::min(M, r0 + rows);
      const int64_t c0 = (u % ng) * panels / ng * NR, c1 = std::min(N, (u % ng + 1) * panels / ng * NR);
      if (c0 >= c1) continue;
      const int64_t nn = (c1 - c0 + kMaxNC - 1) / kMaxNC, ncb = round_up((c1 - c0 + nn - 1) / nn, NR);
      const int64_t mb = (r1 - r0 + 16 * MR - 1) / (16 * MR), mcb = round_up((r1 - r0 + mb - 1) / mb, MR);
      if (packed_b.size() < static_cast<size_t>(kcb * ncb)) packed_b.resize(static_cast<size_t>(kcb * ncb));
      if (packed_a.size() < static_cast<size_t>(kcb * mcb)) packed_a.resize(static_cast<size_t>(kcb * mcb));
      for (int64_t jc = c0; jc < c1; jc += ncb) {
        const int64_t nc = std::min(ncb, c1 - jc);
        for (int64_t pc = 0; pc < K; pc += kcb) {
          const int64_t kc = std::min(kcb, K - pc);
          kr.pack_b(g, jc, nc, pc, kc, packed_b.data());
          for (int64_t m0 = r0; m0 < r1; m0 += mcb)
            kr.block(g, m0, std::min(mcb, r1 - m0), jc, nc, pc, kc, packed_b.data(), packed_a.data());
        }
      }
    }
  };
  if (threads > 1 && mt * ng > 1) {
    ::executorch::extension::parallel_for(0, mt * ng, 1, unit);
  } else {
    unit(0, 1);
  }
}

// ---------------------------------------------------------------- pre-packed / indirect GEMM

double parallel_min_flops() {
  static const double v = [] {
    const char* env = std::getenv("EXECUTORCH_GEMM_PARALLEL_MIN");
    if (env != nullptr && *env != '\0') {
      char* end = nullptr;
      const double d = std::strtod(env, &end);
      if (end != env && *end == '\0' && d >= 0) return d;
    }
    return 2e5;
  }();
  return v;
}

namespace {

struct IgArgs {
  int64_t M, T, L;
  RowSegments rows;
  const void* ctx;
  const PackedB* B;
  float* C;
  int64_t rsc;
  float lo, hi;
  const PostOp* post;  // or null
};

// The post-op over rows [m0, m1), columns [n0, n1) of C.
void apply_post(const IgArgs& g, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  if (g.post == nullptr || n1 <= n0) return;
  const PostOp& op = *g.post;
  for (int64_t m = m0; m < m1; ++m)
    op.fn(g.C + m * g.rsc + n0, op.other != nullptr ? op.other + m * op.ld + n0 : nullptr, n1 - n0, op.lo, op.hi);
}

// One MR x NR block of C over one block of K: taps [t0, t1) of the T segments of L floats of each A row, floats
// [l0, l1) of each; B one packed panel. The first block of K starts from the bias, a later one from the partial sums
// in C; the last one clamps.
template <typename VT, int MR, int NV>
inline __attribute__((always_inline)) void ukernel(int64_t T, int64_t L, int64_t t0, int64_t t1, int64_t l0, int64_t l1,
                                                   const float* const* a, const float* __restrict Bp, const float* bias,
                                                   float* c, int64_t rsc, int64_t mr, int64_t nr, bool first, bool last,
                                                   float lo, float hi) {
  constexpr int W = sizeof(VT) / sizeof(float);
  constexpr int NR = NV * W;
  VT acc[MR][NV];
  if (first) {
    for (int j = 0; j < NV; ++j) {
      VT b;
      std::memcpy(&b, bias + j * W, sizeof(VT));
      for (int i = 0; i < MR; ++i) acc[i][j] = b;
    }
  } else if (nr == NR) {
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NV; ++j) std::memcpy(&acc[i][j], c + (i < mr ? i : mr - 1) * rsc + j * W, sizeof(VT));
  } else {
    alignas(64) float tmp[MR * NR] = {};
    for (int64_t i = 0; i < mr; ++i)
      for (int64_t j = 0; j < nr; ++j) tmp[i * NR + j] = c[i * rsc + j];
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NV; ++j) std::memcpy(&acc[i][j], tmp + i * NR + j * W, sizeof(VT));
  }
  for (int64_t t = t0; t < t1; ++t) {
    const float* ap[MR];
    for (int i = 0; i < MR; ++i) ap[i] = a[(i < mr ? i : mr - 1) * T + t];
    const float* bp = Bp + (t * L + l0) * NR;
    for (int64_t l = l0; l < l1; ++l) {
      // One row streams the panel from memory (a matrix-vector product): fetch ahead of the loads.
      if (MR == 1) __builtin_prefetch(bp + 32 * NR);
      VT b[NV];
      for (int j = 0; j < NV; ++j) std::memcpy(&b[j], bp + j * W, sizeof(VT));
      for (int i = 0; i < MR; ++i) {
        const VT av = VT{} + ap[i][l];  // one broadcast (-fno-signed-zeros)
        for (int j = 0; j < NV; ++j) acc[i][j] += av * b[j];
      }
      bp += NR;
    }
  }
  // Every index into acc is a constant once the loops unroll, so it stays in registers (a loop that stops at a
  // run-time row count would index it at run time and keep it on the stack); partial tiles go through a buffer.
  // Each accumulator is clamped on its way out (not all of them first: with AVX2's 16 registers, twelve
  // accumulators and the two bounds pushed the tile through the stack, a third of a small-K layer's time).
  const VT lov = VT{} + lo, hiv = VT{} + hi;
  const bool full = nr == NR && mr == MR;
  alignas(64) float tmp[MR * NR];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV; ++j) {
      VT v = acc[i][j];
      if (last) {
        v = v < lov ? lov : v;
        v = v > hiv ? hiv : v;
      }
      std::memcpy(full ? c + i * rsc + j * W : tmp + i * NR + j * W, &v, sizeof(VT));
    }
  if (full) return;
  for (int64_t i = 0; i < mr; ++i)
    for (int64_t j = 0; j < nr; ++j) c[i * rsc + j] = tmp[i * NR + j];
}

// Bytes of A rows igemm keeps in L2 while the weight panels stream by (half of a core's L2 on current x86 and arm64).
constexpr int64_t kChunkBytes = int64_t{1} << 20;

// Rows [m0, m1) of C, panels [p0, p1). Rows go in chunks whose A fits in half of L2 (at least 4 MR rows); within a
// chunk, each weight panel is taken in blocks of about kKBlock multiply-adds per row (whole taps, or a share of one
// long tap), and each block runs against every row block of the chunk: the block of the panel (up to 32 KB) stays
// in L1 while the rows use it, and B streams from memory once per chunk (a late layer's B is larger than L2:
// ResNet-18's 3 x 3 x 512 x 512 floats are 9.4 MB, and its 49 rows read it once instead of once per 8 rows). Partial
// sums wait in C; the order of the sums over k is unchanged.
template <typename VT, int MR, int NV>
inline __attribute__((always_inline)) void igemm_impl(const IgArgs& g, int64_t m0, int64_t m1, int64_t p0, int64_t p1) {
  constexpr int NR = NV * (sizeof(VT) / sizeof(float));
  constexpr int64_t kKBlock = 256;
  // Not a std::vector: its out-of-line members would be exported (std:: templates keep default visibility).
  thread_local std::unique_ptr<const float*[]> ptrs;
  thread_local int64_t cap = 0;
  if (cap < MR * g.T) {
    ptrs.reset(new const float*[static_cast<size_t>(MR * g.T)]);
    cap = MR * g.T;
  }
  // Once: each use of a thread_local in a shared library is a __tls_get_addr call, and in a thread that started
  // before the library was loaded (the pool's workers; this one is loaded on demand) glibc 2.36 takes its slow
  // path every time (8 % of a 1x1 layer's time on a worker).
  const float** const row_ptrs = ptrs.get();
  const PackedB& B = *g.B;
  const int64_t T = g.T, L = g.L, K = T * L;
  const int64_t lblocks = (L + kKBlock - 1) / kKBlock, lchunk = (L + lblocks - 1) / lblocks;
  const int64_t tpb = L >= kKBlock ? 1 : kKBlock / L;  // taps per block
  // K within one block: the old order, each block of rows against all panels (its rows stay in L1; a large 1x1
  // layer's A would be re-read from L2 once per panel otherwise), or with few rows each panel once for all of them.
  const int64_t chunk = K > kKBlock         ? std::max<int64_t>(4, kChunkBytes / (K * int64_t{sizeof(float)} * MR)) * MR
                        : m1 - m0 <= 4 * MR ? 4 * MR
                                            : MR;
  // (Plain loops: a lambda would not inherit this function's target ISA.)
  for (int64_t mc = m0; mc < m1; mc += chunk) {
    const int64_t mc1 = std::min(m1, mc + chunk);
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t nr = std::min<int64_t>(NR, B.N - p * NR);
      const float* bp = B.data.data() + p * K * NR;
      const float* bias = B.bias.data() + p * NR;
      for (int64_t t0 = 0; t0 < T; t0 += tpb) {
        const int64_t t1 = std::min(T, t0 + tpb);
        for (int64_t l0 = 0; l0 < L; l0 += lchunk) {
          const int64_t l1 = std::min(L, l0 + lchunk);
          const bool first = t0 == 0 && l0 == 0, last = t1 == T && l1 == L;
          for (int64_t m = mc; m < mc1; m += MR) {
            const int64_t mr = std::min<int64_t>(MR, mc1 - m);
            const float* const* rp = g.rows(g.ctx, m, mr, row_ptrs);
            float* cp = g.C + m * g.rsc + p * NR;
            // A single row (a decode step's matrix-vector product, or the last rows of a block) gets a one-row
            // kernel: the full-height one would repeat the row MR times and turn a memory-bound pass into a
            // compute-bound one. Each row's sum is the same either way.
            if (mr == 1) {
              ukernel<VT, 1, NV>(T, L, t0, t1, l0, l1, rp, bp, bias, cp, g.rsc, mr, nr, first, last, g.lo, g.hi);
            } else {
              ukernel<VT, MR, NV>(T, L, t0, t1, l0, l1, rp, bp, bias, cp, g.rsc, mr, nr, first, last, g.lo, g.hi);
            }
          }
        }
      }
    }
    apply_post(g, mc, mc1, p0 * NR, std::min(B.N, p1 * NR));
  }
}

using IgFn = void (*)(const IgArgs&, int64_t, int64_t, int64_t, int64_t);
struct IgKernel {
  int mr, nr;
  IgFn fn;
};

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx512f,avx2,fma"))) void ig_avx512_32(const IgArgs& g, int64_t a, int64_t b, int64_t c,
                                                              int64_t d) {
  igemm_impl<v16f, 8, 2>(g, a, b, c, d);
}
__attribute__((target("avx512f,avx2,fma"))) void ig_avx512_16(const IgArgs& g, int64_t a, int64_t b, int64_t c,
                                                              int64_t d) {
  igemm_impl<v16f, 8, 1>(g, a, b, c, d);
}
__attribute__((target("avx2,fma"))) void ig_avx2_16(const IgArgs& g, int64_t a, int64_t b, int64_t c, int64_t d) {
  igemm_impl<v8f, 6, 2>(g, a, b, c, d);
}
__attribute__((target("avx2,fma"))) void ig_avx2_8(const IgArgs& g, int64_t a, int64_t b, int64_t c, int64_t d) {
  igemm_impl<v8f, 8, 1>(g, a, b, c, d);
}
#endif
void ig_base_8(const IgArgs& g, int64_t a, int64_t b, int64_t c, int64_t d) { igemm_impl<v4f, 6, 2>(g, a, b, c, d); }
#if defined(__aarch64__)
// NEON: 8 rows x 12 columns (24 accumulators of aarch64's 32 vector registers) and 8 x 8; each A value is one
// scalar load feeding FMLA by element.
void ig_neon_12(const IgArgs& g, int64_t a, int64_t b, int64_t c, int64_t d) { igemm_impl<v4f, 8, 3>(g, a, b, c, d); }
void ig_neon_8(const IgArgs& g, int64_t a, int64_t b, int64_t c, int64_t d) { igemm_impl<v4f, 8, 2>(g, a, b, c, d); }
#endif

#if defined(__x86_64__) || defined(__i386__)
typedef int v16i __attribute__((vector_size(64)));
typedef unsigned long long v8u64 __attribute__((vector_size(64)));

// N <= 8 on AVX-512 (kind 5): one zmm per row holds two k-phases of the 8 columns, lanes [2j, 2j + 1] =
// (k even, k odd) of column j, so each FMA does 16 useful multiply-adds and each A load (a 64-bit broadcast of
// two neighbouring floats) feeds it. B is packed per segment as pairs [B(k, j), B(k + 1, j)] (an odd segment
// length ends with a pair whose second half is 0), the bias in the even lanes; the lane pairs are summed at the end.
template <int MR>
inline __attribute__((always_inline)) void pair_kernel(const IgArgs& g, int64_t m0, int64_t m1) {
  thread_local std::unique_ptr<const float*[]> ptrs;
  thread_local int64_t cap = 0;
  if (cap < MR * g.T) {
    ptrs.reset(new const float*[static_cast<size_t>(MR * g.T)]);
    cap = MR * g.T;
  }
  const float** const row_ptrs = ptrs.get();  // once (see igemm_impl)
  const PackedB& B = *g.B;
  const int64_t L = g.L, L2 = L / 2, nr = B.N;
  const v16i even = {-1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0};
  v16f bias;
  std::memcpy(&bias, B.bias.data(), sizeof(v16f));
  const v8f lov = v8f{} + g.lo, hiv = v8f{} + g.hi;
  for (int64_t m = m0; m < m1; m += MR) {
    const int64_t mr = std::min<int64_t>(MR, m1 - m);
    const float* const* a = g.rows(g.ctx, m, mr, row_ptrs);
    v16f acc[MR];
    for (int i = 0; i < MR; ++i) acc[i] = bias;
    const float* Bp = B.data.data();
    for (int64_t t = 0; t < g.T; ++t) {
      const float* ap[MR];
      for (int i = 0; i < MR; ++i) ap[i] = a[(i < mr ? i : mr - 1) * g.T + t];
      for (int64_t q = 0; q < L2; ++q) {
        v16f b;
        std::memcpy(&b, Bp, sizeof(v16f));
        for (int i = 0; i < MR; ++i) {
          unsigned long long u;
          std::memcpy(&u, ap[i] + 2 * q, sizeof(u));
          acc[i] += reinterpret_cast<v16f>(v8u64{} + u) * b;
        }
        Bp += 16;
      }
      if (L & 1) {
        v16f b;
        std::memcpy(&b, Bp, sizeof(v16f));
        for (int i = 0; i < MR; ++i) {
          const v16f av = reinterpret_cast<v16f>(reinterpret_cast<v16i>(v16f{} + ap[i][L - 1]) & even);
          acc[i] += av * b;
        }
        Bp += 16;
      }
    }
    for (int i = 0; i < MR; ++i) {
      if (i >= mr) break;
      const v16f s2 =
          acc[i] + __builtin_shufflevector(acc[i], acc[i], 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
      v8f r = __builtin_shufflevector(s2, s2, 0, 2, 4, 6, 8, 10, 12, 14);
      r = r < lov ? lov : r;
      r = r > hiv ? hiv : r;
      float* c = g.C + (m + i) * g.rsc;
      if (nr == 8) {
        std::memcpy(c, &r, sizeof(v8f));
      } else {
        float tmp[8];
        std::memcpy(tmp, &r, sizeof(v8f));
        for (int64_t j = 0; j < nr; ++j) c[j] = tmp[j];
      }
    }
    apply_post(g, m, m + mr, 0, nr);
  }
}

__attribute__((target("avx512f,avx2,fma"))) void ig_avx512_pair(const IgArgs& g, int64_t a, int64_t b, int64_t,
                                                                int64_t) {
  pair_kernel<16>(g, a, b);
}
#endif

// kind -> micro-kernel (see choose_kind).
IgKernel ig_kernel(int kind) {
  switch (kind) {
#if defined(__x86_64__) || defined(__i386__)
    case 1: return IgKernel{6, 16, ig_avx2_16};
    case 2: return IgKernel{8, 8, ig_avx2_8};
    case 3: return IgKernel{8, 32, ig_avx512_32};
    case 4: return IgKernel{8, 16, ig_avx512_16};
    case 5: return IgKernel{16, 8, ig_avx512_pair};
#elif defined(__aarch64__)
    case 6: return IgKernel{8, 12, ig_neon_12};
    case 7: return IgKernel{8, 8, ig_neon_8};
#endif
    default: return IgKernel{6, 8, ig_base_8};
  }
}

int choose_kind(int64_t N, int64_t seg) {
#if defined(__x86_64__) || defined(__i386__)
  if (isa_level() == 2) return N <= 8 ? (seg > 1 ? 5 : 2) : N <= 16 ? 4 : 3;
  if (isa_level() == 1) return N <= 8 ? 2 : 1;
#elif defined(__aarch64__)
  // 12-wide panels unless 8-wide ones pad less (N = 8, 16, 40, ...).
  if (isa_level() >= 1) return (N + 11) / 12 * 12 - N <= (N + 7) / 8 * 8 - N ? 6 : 7;
#endif
  (void)N;
  (void)seg;
  return 0;
}

struct DenseRows {
  const float* A;
  int64_t rsa;
};

const float* const* dense_rows(const void* ctx, int64_t m0, int64_t mr, const float** ptrs) {
  const DenseRows& d = *static_cast<const DenseRows*>(ctx);
  for (int64_t i = 0; i < mr; ++i) ptrs[i] = d.A + (m0 + i) * d.rsa;
  return ptrs;
}

}  // namespace

void pack_b(int64_t K, int64_t N, const float* B, int64_t rsb, int64_t csb, const float* bias, PackedB* out,
            int64_t seg) {
  if (seg <= 0 || K % seg != 0) seg = K;
  out->K = K;
  out->N = N;
  out->seg = seg;
  out->kind = choose_kind(N, seg);
  const int64_t NR = ig_kernel(out->kind).nr;
  out->nr = static_cast<int>(NR);
  if (out->kind == 5) {  // one panel of k-pairs per segment (see pair_kernel)
    const int64_t T = K / seg, pairs = (seg + 1) / 2;
    out->data.assign(static_cast<size_t>(T * pairs * 16), 0.f);
    out->bias.assign(16, 0.f);
    for (int64_t t = 0; t < T; ++t)
      for (int64_t q = 0; q < pairs; ++q)
        for (int64_t h = 0; h < 2 && 2 * q + h < seg; ++h) {
          const int64_t k = t * seg + 2 * q + h;
          for (int64_t j = 0; j < N; ++j)
            out->data[static_cast<size_t>(((t * pairs + q) * 8 + j) * 2 + h)] = B[k * rsb + j * csb];
        }
    if (bias != nullptr)
      for (int64_t j = 0; j < N; ++j) out->bias[static_cast<size_t>(2 * j)] = bias[j];
    return;
  }
  const int64_t panels = (N + NR - 1) / NR;
  out->data.assign(static_cast<size_t>(panels * K * NR), 0.f);
  out->bias.assign(static_cast<size_t>(panels * NR), 0.f);
  for (int64_t p = 0; p < panels; ++p) {
    float* dst = out->data.data() + p * K * NR;
    const int64_t nr = std::min(NR, N - p * NR);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < nr; ++j) dst[k * NR + j] = B[k * rsb + (p * NR + j) * csb];
  }
  if (bias != nullptr)
    for (int64_t j = 0; j < N; ++j) out->bias[static_cast<size_t>(j)] = bias[j];
}

void igemm(int64_t M, int64_t T, int64_t L, RowSegments rows, const void* ctx, const PackedB& B, float* C, int64_t rsc,
           float lo, float hi, bool parallel, const PostOp* post) {
  if (M <= 0 || B.N <= 0) return;
  // The packing of kind 5 depends on the segment length; callers pack with the L they call with.
  if (B.kind == 5 && L != B.seg) __builtin_trap();
  const IgKernel kr = ig_kernel(B.kind);
  IgArgs g{M, T, L, rows, ctx, &B, C, rsc, lo, hi, post != nullptr && post->fn != nullptr ? post : nullptr};
  const int64_t panels = (B.N + kr.nr - 1) / kr.nr;
  const double flops = static_cast<double>(M) * static_cast<double>(B.N) * static_cast<double>(T * L);
  // Few rows (a layer late in a network, a small model): its operands are small and fast to compute, and a split
  // costs more in moving them between the cores' caches than it saves, unless the work is large.
  // But one row block against a B of 64 KB or more (a squeeze-excite layer: 1 x 960 against 960 x 240) is a stream
  // of B, twice as fast from two cores as from one.
  const double min_flops = parallel_min_flops() * (M < 256 ? 5 : 1);
  const bool streams_b = M <= kr.mr && static_cast<double>(B.N * B.K) * sizeof(float) >= 65536;
  const int64_t threads =
      parallel && (flops >= min_flops || streams_b) ? ::executorch::extension::get_thread_count() : 1;
  if (threads <= 1) {
    kr.fn(g, 0, M, 0, panels);
    return;
  }
  // Tasks: row blocks (a multiple of MR) x panel groups, about 4 per thread. With few row blocks, splitting the
  // columns too gives every thread a share but makes each one read all of A, half of it from the other core's cache
  // (rows written in the layer before, by the pool's contiguous ranges); splitting only the rows makes each read all
  // of B. So columns are split when there are fewer row blocks than threads, or fewer than wanted and B is the
  // larger operand (a 49-row 1x1 layer of SqueezeNet, A 100 KB and B 128 KB, ran no faster on 2 threads than on 1
  // split by columns: 19.9 -> 13.2 us by rows; its 3x3 layer, B 590 KB, stays faster split by columns).
  const int64_t mblocks = (M + kr.mr - 1) / kr.mr;
  const int64_t want = 4 * threads;
  const double a_bytes = static_cast<double>(M) * static_cast<double>(T * L), b_bytes = static_cast<double>(B.N * B.K);
  int64_t pgroups = 1;
  if (b_bytes * sizeof(float) > kChunkBytes && b_bytes >= a_bytes) {
    // B larger than a core's share of L2 and than A (late layers: ResNet-18's 49 x 4608 A, 9.4 MB of B): split
    // only the columns, so B streams from memory once per chunk of rows, each thread its panels against all rows.
    pgroups = std::min(panels, want);
  } else if (mblocks < threads || (mblocks < want && b_bytes > 2 * a_bytes)) {
    pgroups = std::min(panels, (want + mblocks - 1) / mblocks);
  }
  const int64_t ppg = (panels + pgroups - 1) / pgroups;
  pgroups = (panels + ppg - 1) / ppg;
  const int64_t mtasks = std::max<int64_t>(1, std::min(mblocks, (want + pgroups - 1) / pgroups));
  const int64_t mpt = (mblocks + mtasks - 1) / mtasks * kr.mr;  // rows per task
  const int64_t mt = (M + mpt - 1) / mpt;
  ::executorch::extension::parallel_for(0, mt * pgroups, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t ti = t % mt, tp = t / mt;
      const int64_t m0 = ti * mpt, p0 = tp * ppg;
      kr.fn(g, m0, std::min(M, m0 + mpt), p0, std::min(panels, p0 + ppg));
    }
  });
}

void gemm_packed(int64_t M, const float* A, int64_t rsa, const PackedB& B, float* C, int64_t rsc, float lo, float hi,
                 bool parallel, const PostOp* post) {
  const DenseRows d{A, rsa};
  igemm(M, 1, B.K, dense_rows, &d, B, C, rsc, lo, hi, parallel, post);
}

// ---------------------------------------------------------------- depthwise convolution (NHWC)

namespace {

template <typename VT>
inline __attribute__((always_inline)) void dw_rows(const DwParams& p, const float* x, const float* w, const float* bias,
                                                   float* y, float lo, float hi, int64_t r0, int64_t r1) {
  constexpr int64_t W = sizeof(VT) / sizeof(float);
  const int64_t C = p.C;
  const int64_t cv = C / W * W;
  const VT lov = VT{} + lo, hiv = VT{} + hi;
  for (int64_t row = r0; row < r1; ++row) {
    const int64_t b = row / p.OH, oy = row % p.OH;
    int64_t ky0 = 0, ky1 = p.KH;
    while (ky0 < ky1 && oy * p.sh + ky0 * p.dh - p.pad_t < 0) ++ky0;
    while (ky1 > ky0 && oy * p.sh + (ky1 - 1) * p.dh - p.pad_t >= p.H) --ky1;
    for (int64_t ox = 0; ox < p.OW; ++ox) {
      int64_t kx0 = 0, kx1 = p.KW;
      while (kx0 < kx1 && ox * p.sw + kx0 * p.dw - p.pad_l < 0) ++kx0;
      while (kx1 > kx0 && ox * p.sw + (kx1 - 1) * p.dw - p.pad_l >= p.W) --kx1;
      float* out = y + ((b * p.OH + oy) * p.OW + ox) * C;
      const float* xb = x + (b * p.H * p.W) * C;
      int64_t c = 0;
      constexpr int64_t kMaxTaps = 64;
      if ((ky1 - ky0) * (kx1 - kx0) <= kMaxTaps) {
        // The valid taps' input and filter rows once per pixel, then 4 vectors of channels at a time.
        const float* xt[kMaxTaps];
        const float* wt[kMaxTaps];
        int64_t nt = 0;
        for (int64_t ky = ky0; ky < ky1; ++ky) {
          const int64_t iy = oy * p.sh + ky * p.dh - p.pad_t;
          for (int64_t kx = kx0; kx < kx1; ++kx) {
            const int64_t ix = ox * p.sw + kx * p.dw - p.pad_l;
            xt[nt] = xb + (iy * p.W + ix) * C;
            wt[nt] = w + (ky * p.KW + kx) * C;
            ++nt;
          }
        }
        for (; c + 4 * W <= cv; c += 4 * W) {
          VT acc[4];
          for (int v = 0; v < 4; ++v) {
            if (bias) {
              std::memcpy(&acc[v], bias + c + v * W, sizeof(VT));
            } else {
              acc[v] = VT{};
            }
          }
          for (int64_t t = 0; t < nt; ++t) {
            for (int v = 0; v < 4; ++v) {
              VT xv, wv;
              std::memcpy(&xv, xt[t] + c + v * W, sizeof(VT));
              std::memcpy(&wv, wt[t] + c + v * W, sizeof(VT));
              acc[v] += xv * wv;
            }
          }
          for (int v = 0; v < 4; ++v) {
            acc[v] = acc[v] < lov ? lov : acc[v];
            acc[v] = acc[v] > hiv ? hiv : acc[v];
            std::memcpy(out + c + v * W, &acc[v], sizeof(VT));
          }
        }
        for (; c < cv; c += W) {
          VT acc;
          if (bias) {
            std::memcpy(&acc, bias + c, sizeof(VT));
          } else {
            acc = VT{};
          }
          for (int64_t t = 0; t < nt; ++t) {
            VT xv, wv;
            std::memcpy(&xv, xt[t] + c, sizeof(VT));
            std::memcpy(&wv, wt[t] + c, sizeof(VT));
            acc += xv * wv;
          }
          acc = acc < lov ? lov : acc;
          acc = acc > hiv ? hiv : acc;
          std::memcpy(out + c, &acc, sizeof(VT));
        }
      }
      for (; c < cv; c += W) {
        VT acc;
        if (bias) {
          std::memcpy(&acc, bias + c, sizeof(VT));
        } else {
          acc = VT{};
        }
        for (int64_t ky = ky0; ky < ky1; ++ky) {
          const int64_t iy = oy * p.sh + ky * p.dh - p.pad_t;
          for (int64_t kx = kx0; kx < kx1; ++kx) {
            const int64_t ix = ox * p.sw + kx * p.dw - p.pad_l;
            VT xv, wv;
            std::memcpy(&xv, xb + (iy * p.W + ix) * C + c, sizeof(VT));
            std::memcpy(&wv, w + (ky * p.KW + kx) * C + c, sizeof(VT));
            acc += xv * wv;
          }
        }
        acc = acc < lov ? lov : acc;
        acc = acc > hiv ? hiv : acc;
        std::memcpy(out + c, &acc, sizeof(VT));
      }
      for (; c < C; ++c) {
        float acc = bias ? bias[c] : 0.f;
        for (int64_t ky = ky0; ky < ky1; ++ky) {
          const int64_t iy = oy * p.sh + ky * p.dh - p.pad_t;
          for (int64_t kx = kx0; kx < kx1; ++kx) {
            const int64_t ix = ox * p.sw + kx * p.dw - p.pad_l;
            acc += xb[(iy * p.W + ix) * C + c] * w[(ky * p.KW + kx) * C + c];
          }
        }
        out[c] = std::min(std::max(acc, lo), hi);
      }
    }
  }
}

// acc += x[0 .. W) * w[0 .. W) (vectors through references: a vector return type outside the ISA-targeted
// functions would change the ABI).
template <typename VT>
inline __attribute__((always_inline)) void fma_from(VT& acc, const float* x, const float* w) {
  VT xv, wv;
  std::memcpy(&xv, x, sizeof(VT));
  std::memcpy(&wv, w, sizeof(VT));
  acc += xv * wv;
}

template <typename VT>
inline __attribute__((always_inline)) void store_clamped(float* p, const VT& v, const VT& lo, const VT& hi) {
  VT c = v < lo ? lo : v;
  c = c > hi ? hi : c;
  std::memcpy(p, &c, sizeof(VT));
}

// A depthwise convolution over its tap table (dwconv_indirect's arguments).
struct DwiArgs {
  int64_t T, C;
  const float* const* taps;
  const float* w;
  const float* bias;
  float* y;
  float lo, hi;
  const float* requant;  // per channel, or null
  float out_scale;       // with requant: the rounded outputs times it when nonzero
};

// One block of NV channel vectors at channel c of P output pixels (1, 2 or 4: they share each weight load), reduced
// over their T taps; with requant, the sum times requant[c], clamped and rounded to nearest even (quantized outputs;
// |value| < 2^22 after the clamp, where adding and subtracting 1.5 * 2^23 rounds exactly).
template <typename VT, int NV, int P = 1>
inline __attribute__((always_inline)) void dwi_block(const DwiArgs& a, const float* const* const (&xt)[P],
                                                     float* const (&out)[P], int64_t c, const VT& lov, const VT& hiv) {
  constexpr int64_t W = sizeof(VT) / sizeof(float);
  VT acc[P][NV];
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) {
    VT b = VT{};
    if (a.bias) std::memcpy(&b, a.bias + c + v * W, sizeof(VT));
#pragma GCC unroll 4
    for (int q = 0; q < P; ++q) acc[q][v] = b;
  }
  const float* wt = a.w + c;
  for (int64_t t = 0; t < a.T; ++t, wt += a.C) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      VT wv;
      std::memcpy(&wv, wt + v * W, sizeof(VT));
#pragma GCC unroll 4
      for (int q = 0; q < P; ++q) {
        VT xv;
        std::memcpy(&xv, xt[q][t] + c + v * W, sizeof(VT));
        acc[q][v] += xv * wv;
      }
    }
  }
#pragma GCC unroll 4
  for (int q = 0; q < P; ++q) {
    if (a.requant) {
      const VT magic = VT{} + 12582912.f;
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        VT r;
        std::memcpy(&r, a.requant + c + v * W, sizeof(VT));
        VT z = acc[q][v] * r;
        z = z < lov ? lov : z;
        z = z > hiv ? hiv : z;
        z = (z + magic) - magic;
        if (a.out_scale != 0.f) z *= a.out_scale;
        std::memcpy(out[q] + c + v * W, &z, sizeof(VT));
      }
    } else {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) store_clamped(out[q] + c + v * W, acc[q][v], lov, hiv);
    }
  }
}

// The full channel vectors of P pixels: blocks of up to four vectors per pass over the taps (C = 16, 24, 48, ... take
// one pass with 2, 3, ... accumulators instead of one pass per vector), the accumulators in registers. Returns the
// first channel left.
template <typename VT, int P>
inline __attribute__((always_inline)) int64_t dwi_vectors(const DwiArgs& a, const float* const* const (&xt)[P],
                                                          float* const (&out)[P], const VT& lov, const VT& hiv) {
  constexpr int64_t W = sizeof(VT) / sizeof(float);
  const int64_t cv = a.C / W * W;
  int64_t c = 0;
  for (; c + 4 * W <= cv; c += 4 * W) dwi_block<VT, 4, P>(a, xt, out, c, lov, hiv);
  switch ((cv - c) / W) {
    case 3: dwi_block<VT, 3, P>(a, xt, out, c, lov, hiv); break;
    case 2: dwi_block<VT, 2, P>(a, xt, out, c, lov, hiv); break;
    case 1: dwi_block<VT, 1, P>(a, xt, out, c, lov, hiv); break;
    default: break;
  }
  return cv;
}

// Depthwise over an indirection table: output rows [r0, r1), T tap pointers per row; pixels two at a time through
// the full channel vectors, then per pixel the channels past the last full vector in narrower vectors (C = 24, 40,
// 72, ... with 16-wide vectors: 8 left), then one at a time.
template <typename VT>
inline __attribute__((always_inline)) void dwi_rows(const DwiArgs& a, int64_t r0, int64_t r1) {
  constexpr int64_t W = sizeof(VT) / sizeof(float);
  const int64_t C = a.C;
  const VT lov = VT{} + a.lo, hiv = VT{} + a.hi;
  int64_t m = r0;
  if constexpr (W >= 16) {  // 32 vector registers: 4 pixels x 4 vectors of accumulators
    for (; m + 4 <= r1; m += 4) {
      const float* const* const xt[4] = {a.taps + m * a.T, a.taps + (m + 1) * a.T, a.taps + (m + 2) * a.T,
                                         a.taps + (m + 3) * a.T};
      float* const out[4] = {a.y + m * C, a.y + (m + 1) * C, a.y + (m + 2) * C, a.y + (m + 3) * C};
      dwi_vectors<VT, 4>(a, xt, out, lov, hiv);
    }
  }
  for (; m + 2 <= r1; m += 2) {
    const float* const* const xt[2] = {a.taps + m * a.T, a.taps + (m + 1) * a.T};
    float* const out[2] = {a.y + m * C, a.y + (m + 1) * C};
    dwi_vectors<VT, 2>(a, xt, out, lov, hiv);
  }
  for (int64_t row = r0; row < r1; ++row) {
    const float* const* const xt[1] = {a.taps + row * a.T};
    float* const out[1] = {a.y + row * C};
    int64_t c = C / W * W;
    if (row >= m) c = dwi_vectors<VT, 1>(a, xt, out, lov, hiv);  // the odd last pixel
    if constexpr (W >= 16) {
      if (C - c >= 8) {
        dwi_block<v8f, 1>(a, xt, out, c, v8f{} + a.lo, v8f{} + a.hi);
        c += 8;
      }
    }
    if constexpr (W >= 8) {
      if (C - c >= 4) {
        dwi_block<v4f, 1>(a, xt, out, c, v4f{} + a.lo, v4f{} + a.hi);
        c += 4;
      }
    }
    for (; c < C; ++c) {
      float acc = a.bias ? a.bias[c] : 0.f;
      for (int64_t t = 0; t < a.T; ++t) acc += xt[0][t][c] * a.w[t * C + c];
      if (a.requant) acc *= a.requant[c];
      acc = std::min(std::max(acc, a.lo), a.hi);
      if (a.requant) acc = (acc + 12582912.f) - 12582912.f;
      out[0][c] = a.requant && a.out_scale != 0.f ? acc * a.out_scale : acc;
    }
  }
}

using DwiFn = void (*)(const DwiArgs&, int64_t, int64_t);
#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx512f,avx2,fma"))) void dwi_avx512(const DwiArgs& a, int64_t r0, int64_t r1) {
  dwi_rows<v16f>(a, r0, r1);
}
__attribute__((target("avx2,fma"))) void dwi_avx2(const DwiArgs& a, int64_t r0, int64_t r1) {
  dwi_rows<v8f>(a, r0, r1);
}
#endif
void dwi_base(const DwiArgs& a, int64_t r0, int64_t r1) { dwi_rows<v4f>(a, r0, r1); }

using DwFn = void (*)(const DwParams&, const float*, const float*, const float*, float*, float, float, int64_t,
                      int64_t);
#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx512f,avx2,fma"))) void dw_avx512(const DwParams& p, const float* x, const float* w,
                                                           const float* b, float* y, float lo, float hi, int64_t r0,
                                                           int64_t r1) {
  dw_rows<v16f>(p, x, w, b, y, lo, hi, r0, r1);
}
__attribute__((target("avx2,fma"))) void dw_avx2(const DwParams& p, const float* x, const float* w, const float* b,
                                                 float* y, float lo, float hi, int64_t r0, int64_t r1) {
  dw_rows<v8f>(p, x, w, b, y, lo, hi, r0, r1);
}
#endif
void dw_base(const DwParams& p, const float* x, const float* w, const float* b, float* y, float lo, float hi,
             int64_t r0, int64_t r1) {
  dw_rows<v4f>(p, x, w, b, y, lo, hi, r0, r1);
}

}  // namespace

void dwconv_nhwc(const DwParams& p, const float* x, const float* w, const float* bias, float* y, float lo, float hi,
                 bool parallel) {
  DwFn fn = dw_base;
#if defined(__x86_64__) || defined(__i386__)
  if (isa_level() == 2 && p.C >= 16) {
    fn = dw_avx512;
  } else if (isa_level() >= 1 && p.C >= 8) {
    fn = dw_avx2;
  }
#endif
  const int64_t rows = p.N * p.OH;
  if (rows <= 0) return;
  const double flops = static_cast<double>(rows) * static_cast<double>(p.OW * p.C * p.KH * p.KW);
  if (!parallel || flops < parallel_min_flops() || ::executorch::extension::get_thread_count() <= 1) {
    fn(p, x, w, bias, y, lo, hi, 0, rows);
    return;
  }
  ::executorch::extension::parallel_for(0, rows, 1, [&](int64_t b, int64_t e) { fn(p, x, w, bias, y, lo, hi, b, e); });
}

void dwconv_indirect(int64_t M, int64_t T, int64_t C, const float* const* taps, const float* w, const float* bias,
                     float* y, float lo, float hi, bool parallel, const float* requant, float out_scale,
                     const PostOp* post) {
  if (M <= 0) return;
  DwiFn fn = dwi_base;
#if defined(__x86_64__) || defined(__i386__)
  if (isa_level() == 2 && C >= 16) {
    fn = dwi_avx512;
  } else if (isa_level() >= 1 && C >= 8) {
    fn = dwi_avx2;
  }
#endif
  const DwiArgs a{T, C, taps, w, bias, y, lo, hi, requant, out_scale};
  // With a post-op: in blocks of 64 pixels, each finished while it is in L1.
  auto rows = [&](int64_t b, int64_t e) {
    if (post == nullptr || post->fn == nullptr) return fn(a, b, e);
    for (int64_t r = b; r < e; r += 64) {
      const int64_t r1 = std::min(e, r + 64);
      fn(a, r, r1);
      const float* o = post->other != nullptr ? post->other + r * post->ld : nullptr;
      if (o == nullptr || post->ld == C) {
        post->fn(y + r * C, o, (r1 - r) * C, post->lo, post->hi);
      } else {
        for (int64_t i = r; i < r1; ++i) post->fn(y + i * C, post->other + i * post->ld, C, post->lo, post->hi);
      }
    }
  };
  const double flops = static_cast<double>(M) * static_cast<double>(T * C);
  if (!parallel || flops < parallel_min_flops() || ::executorch::extension::get_thread_count() <= 1) {
    rows(0, M);
    return;
  }
  ::executorch::extension::parallel_for(0, M, 8, rows);
}

}  // namespace etk
