// 3x3 convolutions by Winograd F(4x4, 3x3): see winograd.h.
#include "winograd.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <executorch/extension/parallel/thread_parallel.h>

#include "isa.h"

namespace etk {
namespace {

typedef float v4f __attribute__((vector_size(16)));
#if defined(__x86_64__)
typedef float v8f __attribute__((vector_size(32)));
typedef float v16f __attribute__((vector_size(64)));
#endif

#define ETK_WINO_INLINE inline __attribute__((always_inline))

// Unaligned loads and stores (by pointer, not by value: a vector returned by value changes the ABI per level).
template <typename VT>
ETK_WINO_INLINE void load(VT* v, const float* p) {
  std::memcpy(v, p, sizeof(VT));
}

template <typename VT>
ETK_WINO_INLINE void store(float* p, const VT& v) {
  std::memcpy(p, &v, sizeof(VT));
}

// One tile's work, shared by the blocks of a call.
struct Ctx {
  const WinogradParams& p;
  const float* x;
  const PackedWinograd& w;
  float* y;
  int64_t ldy;
  float lo, hi;
  const PostOp* post;
  int64_t TH, TW;  // tiles down and across one image
};

// B^T d B for channels [c, c + lanes) of one tile: px[6 * i + j] is the input pixel at patch row i, column j (null
// outside the input: zeros); the 36 results go to v[xi * vs + c].
template <typename VT>
ETK_WINO_INLINE void input_tile(const float* const* px, int64_t c, float* v, int64_t vs) {
  VT t[6][6];
  for (int j = 0; j < 6; ++j) {
    VT d[6];
    for (int i = 0; i < 6; ++i) {
      d[i] = VT{};
      if (px[6 * i + j] != nullptr) load(&d[i], px[6 * i + j] + c);
    }
    t[0][j] = 4.f * d[0] - 5.f * d[2] + d[4];
    t[1][j] = -4.f * (d[1] + d[2]) + (d[3] + d[4]);
    t[2][j] = 4.f * (d[1] - d[2]) + (d[4] - d[3]);
    t[3][j] = 2.f * (d[3] - d[1]) + (d[4] - d[2]);
    t[4][j] = 2.f * (d[1] - d[3]) + (d[4] - d[2]);
    t[5][j] = 4.f * d[1] - 5.f * d[3] + d[5];
  }
  for (int i = 0; i < 6; ++i) {
    const VT* e = t[i];
    float* o = v + 6 * i * vs + c;
    store(o, 4.f * e[0] - 5.f * e[2] + e[4]);
    store(o + vs, -4.f * (e[1] + e[2]) + (e[3] + e[4]));
    store(o + 2 * vs, 4.f * (e[1] - e[2]) + (e[4] - e[3]));
    store(o + 3 * vs, 2.f * (e[3] - e[1]) + (e[4] - e[2]));
    store(o + 4 * vs, 2.f * (e[1] - e[3]) + (e[4] - e[2]));
    store(o + 5 * vs, 4.f * e[1] - 5.f * e[3] + e[5]);
  }
}

// A^T m A + bias, clamped, for channels [c, c + lanes) of one tile: m[xi * ms + c] are the 36 products; py[4 * r +
// k] is output pixel (r, k) of the tile (null outside the output).
template <typename VT>
ETK_WINO_INLINE void output_tile(const float* m, int64_t ms, const float* bias, float lo, float hi, float* const* py,
                                 int64_t c) {
  VT t[4][6];
  for (int j = 0; j < 6; ++j) {
    VT e[6];
    for (int i = 0; i < 6; ++i) load(&e[i], m + (6 * i + j) * ms + c);
    const VT a = e[1] + e[2], b = e[1] - e[2], s = e[3] + e[4], d = e[3] - e[4];
    t[0][j] = e[0] + a + s;
    t[1][j] = b + 2.f * d;
    t[2][j] = a + 4.f * s;
    t[3][j] = b + 8.f * d + e[5];
  }
  VT bv;
  load(&bv, bias + c);
  const VT lov = VT{} + lo, hiv = VT{} + hi;
  for (int r = 0; r < 4; ++r) {
    const VT* e = t[r];
    const VT a = e[1] + e[2], b = e[1] - e[2], s = e[3] + e[4], d = e[3] - e[4];
    VT o[4] = {e[0] + a + s, b + 2.f * d, a + 4.f * s, b + 8.f * d + e[5]};
    for (int k = 0; k < 4; ++k) {
      if (py[4 * r + k] == nullptr) continue;
      VT v = o[k] + bv;
      v = v < lov ? lov : v;
      v = v > hiv ? hiv : v;
      store(py[4 * r + k] + c, v);
    }
  }
}

// Tiles [t0, t1) of the call: their patches into V (36 x nt x IC), the 36 GEMMs into M (36 x nt x OC), the outputs.
template <typename VT>
ETK_WINO_INLINE void tiles_impl(const Ctx& cx, int64_t t0, int64_t t1, float* V, float* M) {
  constexpr int64_t L = static_cast<int64_t>(sizeof(VT) / sizeof(float));
  const WinogradParams& p = cx.p;
  const int64_t IC = cx.w.IC, OC = cx.w.OC, nt = t1 - t0, vs = nt * IC, ms = nt * OC, per_image = cx.TH * cx.TW;
  for (int64_t t = t0; t < t1; ++t) {
    const float* px[36];
    winograd_tile_pixels<4>(p, cx.x, cx.y, cx.ldy, t, cx.TW, per_image, px, nullptr);
    float* v = V + (t - t0) * IC;
    int64_t c = 0;
    for (; c + L <= IC; c += L) input_tile<VT>(px, c, v, vs);
    for (; c < IC; ++c) input_tile<float>(px, c, v, vs);
  }
  for (int64_t xi = 0; xi < 36; ++xi)
    gemm_packed(nt, V + xi * vs, IC, cx.w.u[static_cast<size_t>(xi)], M + xi * ms, OC, -INFINITY, INFINITY,
                /*parallel=*/false);
  const float* bias = cx.w.bias.data();
  for (int64_t t = t0; t < t1; ++t) {
    float* py[16];
    winograd_tile_pixels<4>(p, cx.x, cx.y, cx.ldy, t, cx.TW, per_image, nullptr, py);
    const float* m = M + (t - t0) * OC;
    int64_t c = 0;
    for (; c + L <= OC; c += L) output_tile<VT>(m, ms, bias, cx.lo, cx.hi, py, c);
    for (; c < OC; ++c) output_tile<float>(m, ms, bias, cx.lo, cx.hi, py, c);
    if (cx.post == nullptr || cx.post->fn == nullptr) continue;
    for (int q = 0; q < 16; ++q) {  // the post-op while the tile's outputs are in this core's cache
      if (py[q] == nullptr) continue;
      const int64_t pixel = (py[q] - cx.y) / cx.ldy;
      const float* o = cx.post->other != nullptr ? cx.post->other + pixel * cx.post->ld : nullptr;
      cx.post->fn(py[q], o, OC, cx.post->lo, cx.post->hi);
    }
  }
}

#if defined(__x86_64__)
__attribute__((target("avx512f,avx2,fma"))) void tiles_avx512(const Ctx& cx, int64_t t0, int64_t t1, float* V,
                                                              float* M) {
  tiles_impl<v16f>(cx, t0, t1, V, M);
}
__attribute__((target("avx2,fma"))) void tiles_avx2(const Ctx& cx, int64_t t0, int64_t t1, float* V, float* M) {
  tiles_impl<v8f>(cx, t0, t1, V, M);
}
#endif
void tiles_base(const Ctx& cx, int64_t t0, int64_t t1, float* V, float* M) { tiles_impl<v4f>(cx, t0, t1, V, M); }

using TilesFn = void (*)(const Ctx&, int64_t, int64_t, float*, float*);

TilesFn tiles_kernel() {
#if defined(__x86_64__)
  if (isa_level() == 2) return tiles_avx512;
  if (isa_level() == 1) return tiles_avx2;
#endif
  return tiles_base;
}

// Bytes of transformed patches and products one block of tiles keeps in flight (per thread): about half an L2.
constexpr double kBlockBytes = 512 * 1024;

}  // namespace

int64_t winograd_block_tiles(int64_t T, int64_t threads, double tile_bytes, double block_bytes) {
  // Blocks of at most tb_max tiles, as many as a multiple of the threads (7 blocks on 2 threads would leave one
  // idle an eighth of the time), each of about the same number of tiles, but not under 8 tiles where there are that
  // many per thread (the GEMMs' rows: fewer than the micro-kernel's leave it partly empty).
  const int64_t tb_max = std::max<int64_t>(8, static_cast<int64_t>(block_bytes / tile_bytes));
  int64_t blocks = (T + tb_max - 1) / tb_max;
  blocks = (blocks + threads - 1) / threads * threads;
  return std::max((T + blocks - 1) / blocks, std::min<int64_t>(8, (T + threads - 1) / threads));
}

void pack_winograd(int64_t IC, int64_t OC, const float* w, const float* bias, PackedWinograd* out) {
  static const float G[6][3] = {{1.f / 4, 0, 0},
                                {-1.f / 6, -1.f / 6, -1.f / 6},
                                {-1.f / 6, 1.f / 6, -1.f / 6},
                                {1.f / 24, 1.f / 12, 1.f / 6},
                                {1.f / 24, -1.f / 12, 1.f / 6},
                                {0, 0, 1}};
  // U[xi] = (G g G^T)[i][k] for xi = 6 i + k, per (oc, ic): sum over the 3 x 3 taps t = (a, b) of
  // G[i][a] G[k][b] g[t], into a matrix [oc][ic] (the input channels innermost on both sides: the filter's rows are
  // OHWI, so the loop runs over contiguous channels), packed as B = U^T at once. One xi at a time per thread, in a
  // buffer of its own: a buffer of all 36 (4x the filter) cost more in page faults than the arithmetic.
  out->IC = IC;
  out->OC = OC;
  out->u.assign(36, PackedB());
  auto pack = [&](int64_t x0, int64_t x1) {
    std::vector<float> u(static_cast<size_t>(IC * OC));
    for (int64_t xi = x0; xi < x1; ++xi) {
      float cf[9];
      for (int t = 0; t < 9; ++t) cf[t] = G[xi / 6][t / 3] * G[xi % 6][t % 3];
      for (int64_t oc = 0; oc < OC; ++oc) {
        const float* f = w + oc * 9 * IC;  // [3][3][IC]
        float* d = u.data() + oc * IC;
        for (int64_t ic = 0; ic < IC; ++ic) {
          float acc = 0.f;
          for (int t = 0; t < 9; ++t) acc += cf[t] * f[t * IC + ic];
          d[ic] = acc;
        }
      }
      pack_b(IC, OC, u.data(), 1, IC, nullptr, &out->u[static_cast<size_t>(xi)]);
    }
  };
  ::executorch::extension::parallel_for(0, 36, 1, pack);
  out->bias.assign(static_cast<size_t>(OC), 0.f);
  if (bias != nullptr) std::copy(bias, bias + OC, out->bias.begin());
}

void winograd_conv3x3(const WinogradParams& p, const float* x, const PackedWinograd& w, float* y, int64_t ldy, float lo,
                      float hi, bool parallel, const PostOp* post) {
  const int64_t TH = (p.OH + 3) / 4, TW = (p.OW + 3) / 4, T = p.N * TH * TW;
  if (T <= 0 || w.OC <= 0) return;
  const Ctx cx{p, x, w, y, ldy, lo, hi, post, TH, TW};
  const int64_t threads = parallel ? std::max<int64_t>(1, ::executorch::extension::get_thread_count()) : 1;
  const int64_t tb =
      winograd_block_tiles(T, threads, 36.0 * sizeof(float) * static_cast<double>(w.IC + w.OC), kBlockBytes);
  const int64_t blocks = (T + tb - 1) / tb;
  const TilesFn fn = tiles_kernel();
  auto run = [&](int64_t b0, int64_t b1) {
    thread_local aligned_vector<float> V, M;
    const size_t need_v = static_cast<size_t>(36 * tb * w.IC), need_m = static_cast<size_t>(36 * tb * w.OC);
    if (V.size() < need_v) V.resize(need_v);
    if (M.size() < need_m) M.resize(need_m);
    for (int64_t b = b0; b < b1; ++b) fn(cx, b * tb, std::min(T, (b + 1) * tb), V.data(), M.data());
  };
  if (threads <= 1 || blocks <= 1) {
    run(0, blocks);
  } else {
    ::executorch::extension::parallel_for(0, blocks, 1, run);
  }
}

}  // namespace etk
