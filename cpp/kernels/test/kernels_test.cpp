// Standalone checks for libexecutorch_kernels (GoogleTest): GEMM and convolution against naive references, and a
// random-argument robustness sweep over every registered kernel (it must fail cleanly, never crash).
// Usage: executorch_kernels_test [gtest flags] [--bench] [--fuzz-iters N]
// Each test seeds its own random generator, so a test run alone (--gtest_filter, ctest) sees the same cases.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <executorch/runtime/kernel/kernel_includes.h>
#include <executorch/runtime/platform/components.h>

#include <gtest/gtest.h>

#include "activations.h"
#include "float16.h"
#include "gemm.h"
#include "qb4gemm.h"
#include "qgemm.h"
#include "transpose.h"
#include "winograd.h"
#include "gtest_support.h"

using namespace executorch::runtime;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::aten::TensorShapeDynamism;

namespace {

bool g_bench = false;
int g_fuzz_iters = 200;

// printf-style failure messages: EXPECT_...(...) << fmt("mm %dx%d", m, n).
__attribute__((format(printf, 1, 2))) std::string fmt(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

// A tensor owning its metadata and storage.
struct OwnedTensor {
  std::vector<int32_t> sizes;
  std::vector<uint8_t> order;
  std::vector<int32_t> strides;
  std::vector<uint64_t> storage;
  std::unique_ptr<TensorImpl> impl;
  OwnedTensor(ScalarType t, std::vector<int32_t> sz, std::vector<uint8_t> dim_order = {},
              TensorShapeDynamism dyn = TensorShapeDynamism::STATIC)
      : sizes(std::move(sz)), order(std::move(dim_order)) {
    if (order.empty())
      for (size_t i = 0; i < sizes.size(); ++i) order.push_back(static_cast<uint8_t>(i));
    strides.resize(sizes.size());
    size_t n = 1;
    for (int32_t s : sizes) n *= static_cast<size_t>(s);
    storage.resize((n * elementSize(t) + 7) / 8 + 1);
    impl.reset(new TensorImpl(t, static_cast<ssize_t>(sizes.size()), sizes.data(), storage.data(),
                              order.empty() ? nullptr : order.data(), strides.empty() ? nullptr : strides.data(), dyn));
  }
  Tensor tensor() const { return Tensor(impl.get()); }
  float* f() const { return static_cast<float*>(impl->mutable_data()); }
  // Logical (row-major) element i -> storage offset.
  int64_t offset(int64_t i) const {
    int64_t off = 0;
    for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
      off += (i % sizes[d]) * strides[d];
      i /= sizes[d];
    }
    return off;
  }
  int64_t numel() const { return impl->numel(); }
};

struct IntList {
  std::vector<EValue> items;
  std::vector<EValue*> ptrs;
  std::vector<int64_t> scratch;
  explicit IntList(std::vector<int64_t> v) {
    for (int64_t x : v) items.emplace_back(x);
    for (auto& e : items) ptrs.push_back(&e);
    scratch.resize(v.size());
  }
  EValue value() { return EValue(BoxedEvalueList<int64_t>(ptrs.data(), scratch.data(), ptrs.size())); }
};

// The registered kernel, or nullptr (and a test failure) when it is missing.
OpFunction op(const char* name) {
  auto r = get_op_function_from_registry(name);
  if (!r.ok()) {
    ADD_FAILURE() << "missing op " << name;
    return nullptr;
  }
  return r.get();
}

Error call(const char* name, std::vector<EValue>& vals) {
  std::vector<EValue*> ptrs;
  for (auto& v : vals) ptrs.push_back(&v);
  KernelRuntimeContext ctx;
  OpFunction f = op(name);
  if (f == nullptr) return Error::OperatorMissing;
  f(ctx, Span<EValue*>(ptrs.data(), ptrs.size()));
  return ctx.failure_state();
}

std::mt19937 rng;  // seeded by each test
float frand() { return std::uniform_real_distribution<float>(-1.f, 1.f)(rng); }
int irand(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

void fill(const OwnedTensor& t) {
  for (int64_t i = 0; i < t.numel(); ++i) t.f()[t.offset(i)] = frand();
}

// The kernels library is loaded as a component, as applications do.
// An igemm / qigemm row source over a precomputed segment table ([row * T + t]).
struct SegmentTable {
  const std::vector<const float*>* table;
  int64_t T;
};
const float* const* table_rows(const void* c, int64_t m0, int64_t, const float**) {
  const SegmentTable& x = *static_cast<const SegmentTable*>(c);
  return x.table->data() + m0 * x.T;
}

class Kernels : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(load_component("kernels"), Error::Ok) << "cannot load the kernels component: " << last_error_message();
    static bool said = false;
    if (!said) std::printf("%zu kernels registered\n", get_num_registered_kernels());
    said = true;
  }
};

TEST_F(Kernels, MmMatchesReference) {
  rng.seed(1234);
  int cases = 0;
  for (int it = 0; it < 60; ++it) {
    const int M = irand(1, it < 40 ? 70 : 300), K = irand(1, it < 40 ? 70 : 300), N = irand(1, it < 40 ? 70 : 300);
    const bool bt = it % 3 == 1, at = it % 4 == 3;
    OwnedTensor A(ScalarType::Float, {M, K}, at ? std::vector<uint8_t>{1, 0} : std::vector<uint8_t>{});
    OwnedTensor B(ScalarType::Float, {K, N}, bt ? std::vector<uint8_t>{1, 0} : std::vector<uint8_t>{});
    OwnedTensor C(ScalarType::Float, {M, N});
    fill(A);
    fill(B);
    std::vector<EValue> v{A.tensor(), B.tensor(), C.tensor(), C.tensor()};
    EXPECT_EQ(call("aten::mm.out", v), Error::Ok) << "mm failed";
    double maxerr = 0;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double r = 0;
        for (int k = 0; k < K; ++k) r += double(A.f()[A.offset(i * K + k)]) * B.f()[B.offset(k * N + j)];
        maxerr = std::max(maxerr, std::fabs(r - C.f()[i * N + j]));
      }
    EXPECT_LT(maxerr, 1e-4 * std::sqrt(double(K)) + 1e-5) << fmt("mm %dx%dx%d", M, K, N);
    ++cases;
  }
  std::printf("mm: %d cases\n", cases);
}

// etk::sgemm's blocked path on shapes the mm test does not reach: alpha and beta, C written through a column
// stride, several blocks of K (> 256) and of N (> 1024), few rows (the pool splits a block's columns), serial and
// parallel.
TEST_F(Kernels, BlockedGemmStridesAlphaBeta) {
  rng.seed(77);
  struct Case {
    int M, N, K;
  };
  const Case cases[] = {{300, 70, 600}, {5, 1500, 90}, {40, 2100, 300}, {130, 33, 257}, {13, 200, 1030}};
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  int run = 0;
  for (const Case& cs : cases) {
    for (int variant = 0; variant < 4; ++variant) {
      const bool ct = variant & 1, parallel = variant & 2;
      const int M = cs.M, N = cs.N, K = cs.K;
      const float alpha = variant == 0 ? 1.f : 0.75f, beta = variant < 2 ? 0.f : -0.5f;
      std::vector<float> A(size_t(M) * K), B(size_t(K) * N), C(size_t(M) * N);
      for (float& v : A) v = u(rng);
      for (float& v : B) v = u(rng);
      for (float& v : C) v = u(rng);
      const std::vector<float> C0 = C;
      // C(i, j) at [i * N + j], or column-major when ct.
      const int64_t rsc = ct ? 1 : N, csc = ct ? M : 1;
      etk::sgemm(M, N, K, alpha, A.data(), K, 1, B.data(), N, 1, beta, C.data(), rsc, csc, parallel);
      double maxerr = 0;
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
          double r = 0;
          for (int k = 0; k < K; ++k) r += double(A[size_t(i) * K + k]) * B[size_t(k) * N + j];
          r = alpha * r + (beta == 0.f ? 0.0 : double(beta) * C0[i * rsc + j * csc]);
          maxerr = std::max(maxerr, std::fabs(r - C[i * rsc + j * csc]));
        }
      EXPECT_LT(maxerr, 1e-4 * std::sqrt(double(K)) + 1e-5)
          << fmt("sgemm %dx%dx%d alpha %g beta %g ct %d parallel %d", M, N, K, alpha, beta, ct, parallel);
      ++run;
    }
  }
  std::printf("sgemm: %d cases\n", run);
}

// Naive conv reference (NCHW, 2-D).
void conv_ref(const OwnedTensor& x, const OwnedTensor& w, const float* bias, int sh, int sw, int ph, int pw, int dh,
              int dw, int groups, bool transposed, std::vector<double>& y, int Cout, int Ho, int Wo) {
  const int N = x.sizes[0], Cin = x.sizes[1], H = x.sizes[2], W = x.sizes[3];
  const int kh = w.sizes[2], kw = w.sizes[3];
  const int Cig = Cin / groups, Cog = Cout / groups;
  y.assign(size_t(N) * Cout * Ho * Wo, 0.0);
  for (int n = 0; n < N; ++n)
    for (int oc = 0; oc < Cout; ++oc)
      for (int i = 0; i < Ho * Wo; ++i) y[(size_t(n) * Cout + oc) * Ho * Wo + i] = bias ? bias[oc] : 0.0;
  for (int n = 0; n < N; ++n)
    for (int g = 0; g < groups; ++g)
      for (int ic = 0; ic < Cig; ++ic)
        for (int oc = 0; oc < Cog; ++oc)
          for (int i = 0; i < kh; ++i)
            for (int j = 0; j < kw; ++j) {
              const int ci = g * Cig + ic, co = g * Cog + oc;
              const float wv =
                  transposed ? w.f()[((ci * Cog + oc) * kh + i) * kw + j] : w.f()[((co * Cig + ic) * kh + i) * kw + j];
              if (!transposed) {
                for (int oh = 0; oh < Ho; ++oh)
                  for (int ow = 0; ow < Wo; ++ow) {
                    int ih = oh * sh - ph + i * dh, iw = ow * sw - pw + j * dw;
                    if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                    y[((size_t(n) * Cout + co) * Ho + oh) * Wo + ow] +=
                        double(wv) * x.f()[((n * Cin + ci) * H + ih) * W + iw];
                  }
              } else {
                for (int ih = 0; ih < H; ++ih)
                  for (int iw = 0; iw < W; ++iw) {
                    int oh = ih * sh - ph + i * dh, ow = iw * sw - pw + j * dw;
                    if (oh < 0 || oh >= Ho || ow < 0 || ow >= Wo) continue;
                    y[((size_t(n) * Cout + co) * Ho + oh) * Wo + ow] +=
                        double(wv) * x.f()[((n * Cin + ci) * H + ih) * W + iw];
                  }
              }
            }
}

TEST_F(Kernels, ConvolutionMatchesReference) {
  rng.seed(4321);
  int cases = 0;
  for (int it = 0; it < 80; ++it) {
    const bool transposed = it % 4 == 3;
    const int groups = it % 3 == 0 ? 1 : irand(1, 3);
    const bool depthwise = !transposed && it % 5 == 1;
    const int Cin = depthwise ? groups * 1 : groups * irand(1, 4);
    const int Cout = depthwise ? groups * irand(1, 2) : groups * irand(1, 4);
    const int H = irand(3, 12), W = irand(3, 12), kh = irand(1, 3), kw = irand(1, 3);
    const int sh = irand(1, 2), sw = irand(1, 3), dh = irand(1, 2), dw = irand(1, 2);
    const int ph = irand(0, 2), pw = irand(0, 2);
    const int N = irand(1, 2);
    int Ho, Wo, oph = 0, opw = 0;
    if (!transposed) {
      Ho = (H + 2 * ph - dh * (kh - 1) - 1) / sh + 1;
      Wo = (W + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
      if (H + 2 * ph - dh * (kh - 1) - 1 < 0 || W + 2 * pw - dw * (kw - 1) - 1 < 0) continue;
    } else {
      oph = sh > 1 ? irand(0, sh - 1) : 0;
      opw = sw > 1 ? irand(0, sw - 1) : 0;
      Ho = (H - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1;
      Wo = (W - 1) * sw - 2 * pw + dw * (kw - 1) + opw + 1;
      if (Ho <= 0 || Wo <= 0) continue;
    }
    OwnedTensor x(ScalarType::Float, {N, Cin, H, W});
    OwnedTensor w(ScalarType::Float, transposed ? std::vector<int32_t>{Cin, Cout / groups, kh, kw}
                                                : std::vector<int32_t>{Cout, Cin / groups, kh, kw});
    OwnedTensor b(ScalarType::Float, {Cout});
    OwnedTensor y(ScalarType::Float, {N, Cout, Ho, Wo});
    fill(x);
    fill(w);
    fill(b);
    const bool use_bias = it % 2 == 0;
    IntList st({sh, sw}), pd({ph, pw}), dl({dh, dw}), op({oph, opw});
    std::vector<EValue> v{x.tensor(),         w.tensor(), use_bias ? EValue(b.tensor()) : EValue(),
                          st.value(),         pd.value(), dl.value(),
                          EValue(transposed), op.value(), EValue(int64_t(groups)),
                          y.tensor(),         y.tensor()};
    EXPECT_EQ(call("aten::convolution.out", v), Error::Ok) << fmt("conv failed (it %d)", it);
    std::vector<double> ref;
    conv_ref(x, w, use_bias ? b.f() : nullptr, sh, sw, ph, pw, dh, dw, groups, transposed, ref, Cout, Ho, Wo);
    double maxerr = 0;
    for (size_t i = 0; i < ref.size(); ++i) maxerr = std::max(maxerr, std::fabs(ref[i] - y.f()[i]));
    EXPECT_LT(maxerr, 1e-4) << fmt("conv it %d (tr %d g %d)", it, transposed, groups);
    ++cases;
  }
  std::printf("conv: %d cases\n", cases);
}

// A post-op for the tests: y * y plus the second operand if any, clamped (applied twice, past the output's columns,
// or with the wrong element of the second operand, it shows).
void square_post(float* y, const float* o, int64_t n, float lo, float hi) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::min(std::max(y[i] * y[i] + (o != nullptr ? o[i] : 0.f), lo), hi);
}
// The post-op's reference for output row i, column j.
double square_ref(double v, const etk::PostOp* post, int64_t i, int64_t j) {
  if (post == nullptr) return v;
  const double o = post->other != nullptr ? post->other[i * post->ld + j] : 0.0;
  return std::min<double>(std::max<double>(v * v + o, post->lo), post->hi);
}
// A random post-op (or none, half of the time) with a second operand of rows x cols (row stride cols + 0..2) or none.
const etk::PostOp* random_post(std::mt19937& rng, int64_t rows, int64_t cols, std::vector<float>* other,
                               etk::PostOp* op) {
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  if (uni(0, 1) == 0) return nullptr;
  *op = etk::PostOp{square_post, -INFINITY, 0.9f, nullptr, 0};
  if (uni(0, 1) == 0) return op;
  op->ld = cols + uni(0, 2);
  other->resize(static_cast<size_t>(rows * op->ld));
  std::normal_distribution<float> nd(0.f, 1.f);
  for (auto& v : *other) v = nd(rng);
  op->other = other->data();
  op->hi = 2.f;
  return op;
}

// The pre-packed / indirect GEMM and the depthwise kernels of executorch_cpu (linked into this program; the
// XNNPACK delegate runs on them) against naive loops: random shapes around the micro-kernels' tile sizes, segment
// lengths odd and even, rows pointing at zeros, bias or none, finite or infinite clamps, serial and split, with a
// post-op (an activation fused after the clamp) in half of them; packed weights start on a cache line.
TEST_F(Kernels, PackedIndirectGemmAndDepthwise) {
  std::mt19937 rng(7);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::normal_distribution<float> nd(0.f, 1.f);
  static const std::vector<float> zeros(1500, 0.f);
  // The last 16 cases are large: several blocks of K (one long segment, or taps of a few hundred floats), several
  // chunks of rows, and B larger than A (the pool splits only its columns).
  for (int it = 0; it < 316; ++it) {
    const bool big = it >= 300;
    const int64_t M = big ? uni(1, 100) : uni(1, 40), T = big ? uni(1, 3) : uni(1, 5);
    const int64_t L = big ? (T == 1 ? uni(257, 1500) : uni(90, 700)) : uni(1, 20);
    const int64_t N = big ? uni(M, 160) : uni(1, 50), K = T * L;
    const bool trans = uni(0, 1), has_bias = uni(0, 1), clamp = uni(0, 1), par = uni(0, 1);
    etk::PostOp op;
    std::vector<float> other;
    const etk::PostOp* post = random_post(rng, M, N, &other, &op);
    std::vector<float> src(static_cast<size_t>(M * K + 8)), B(static_cast<size_t>(K * N)), bias(N);
    for (auto& v : src) v = nd(rng);
    for (auto& v : B) v = nd(rng);
    for (auto& v : bias) v = nd(rng);
    // B(k, j) at B[k * rsb + j * csb]
    const int64_t rsb = trans ? 1 : N, csb = trans ? K : 1;
    etk::PackedB pb;
    etk::pack_b(K, N, B.data(), rsb, csb, has_bias ? bias.data() : nullptr, &pb, L);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(pb.data.data()) % 64, 0u) << "packed weights off a cache line";
    EXPECT_EQ(reinterpret_cast<uintptr_t>(pb.bias.data()) % 64, 0u) << "packed bias off a cache line";
    // Segment table: row i, segment t -> somewhere in src, or zeros (L <= 1500).
    std::vector<const float*> table(static_cast<size_t>(M * T));
    for (auto& ptr : table) ptr = uni(0, 5) == 0 ? zeros.data() : src.data() + uni(0, static_cast<int>(M * K - L));
    const SegmentTable ctx{&table, T};
    const etk::RowSegments rows = &table_rows;
    const float lo = clamp ? -0.5f : -INFINITY, hi = clamp ? 0.7f : INFINITY;
    const int64_t ldc = N + uni(0, 3);
    std::vector<float> C(static_cast<size_t>(M * ldc), 123.f);
    etk::igemm(M, T, L, rows, &ctx, pb, C.data(), ldc, lo, hi, par, post);
    double maxerr = 0;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = has_bias ? bias[j] : 0.0;
        for (int64_t t = 0; t < T; ++t)
          for (int64_t l = 0; l < L; ++l) acc += double(table[i * T + t][l]) * B[(t * L + l) * rsb + j * csb];
        acc = square_ref(std::min<double>(std::max<double>(acc, lo), hi), post, i, j);
        maxerr = std::max(maxerr, std::fabs(acc - C[i * ldc + j]));
      }
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = N; j < ldc; ++j) EXPECT_EQ(C[i * ldc + j], 123.f) << fmt("igemm wrote past N (it %d)", it);
    EXPECT_LT(maxerr, 1e-4 * std::sqrt(double(K)) + 1e-5)
        << fmt("igemm it %d M %lld T %lld L %lld N %lld", it, (long long)M, (long long)T, (long long)L, (long long)N);
    // Dense A through gemm_packed (packed for a dense A: one segment of K).
    etk::PackedB pd;
    etk::pack_b(K, N, B.data(), rsb, csb, has_bias ? bias.data() : nullptr, &pd);
    std::vector<float> D(static_cast<size_t>(M * N));
    etk::gemm_packed(M, src.data(), K, pd, D.data(), N, lo, hi, par, post);
    maxerr = 0;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = has_bias ? bias[j] : 0.0;
        for (int64_t k = 0; k < K; ++k) acc += double(src[i * K + k]) * B[k * rsb + j * csb];
        acc = square_ref(std::min<double>(std::max<double>(acc, lo), hi), post, i, j);
        maxerr = std::max(maxerr, std::fabs(acc - D[i * N + j]));
      }
    EXPECT_LT(maxerr, 1e-4 * std::sqrt(double(K)) + 1e-5) << fmt("gemm_packed it %d", it);
  }
  // Depthwise NHWC, direct and over a tap table.
  for (int it = 0; it < 60; ++it) {
    etk::DwParams p{};
    p.N = uni(1, 2), p.H = uni(1, 9), p.W = uni(1, 9), p.C = uni(1, 70), p.KH = uni(1, 5), p.KW = uni(1, 5);
    p.sh = uni(1, 2), p.sw = uni(1, 2), p.dh = uni(1, 2), p.dw = uni(1, 2), p.pad_t = uni(0, 2), p.pad_l = uni(0, 2);
    const int64_t pad_b = uni(0, 2), pad_r = uni(0, 2);
    const int64_t eh = (p.KH - 1) * p.dh + 1, ew = (p.KW - 1) * p.dw + 1;
    if (p.H + p.pad_t + pad_b < eh || p.W + p.pad_l + pad_r < ew) continue;
    p.OH = (p.H + p.pad_t + pad_b - eh) / p.sh + 1;
    p.OW = (p.W + p.pad_l + pad_r - ew) / p.sw + 1;
    std::vector<float> x(static_cast<size_t>(p.N * p.H * p.W * p.C)), w(static_cast<size_t>(p.KH * p.KW * p.C)),
        b(static_cast<size_t>(p.C));
    for (auto& v : x) v = nd(rng);
    for (auto& v : w) v = nd(rng);
    for (auto& v : b) v = nd(rng);
    const int64_t M = p.N * p.OH * p.OW, T = p.KH * p.KW;
    etk::PostOp op;
    std::vector<float> other;
    const etk::PostOp* post = random_post(rng, M, p.C, &other, &op);
    std::vector<float> ref(static_cast<size_t>(M * p.C)), y1(ref.size()), y2(ref.size()), ref2(ref.size());
    std::vector<float> zc(static_cast<size_t>(p.C), 0.f);
    std::vector<const float*> taps(static_cast<size_t>(M * T));
    for (int64_t m = 0; m < M; ++m) {
      const int64_t bi = m / (p.OH * p.OW), oy = (m / p.OW) % p.OH, ox = m % p.OW;
      for (int64_t ky = 0; ky < p.KH; ++ky)
        for (int64_t kx = 0; kx < p.KW; ++kx) {
          const int64_t iy = oy * p.sh + ky * p.dh - p.pad_t, ix = ox * p.sw + kx * p.dw - p.pad_l;
          const bool in = iy >= 0 && iy < p.H && ix >= 0 && ix < p.W;
          taps[m * T + ky * p.KW + kx] = in ? x.data() + ((bi * p.H + iy) * p.W + ix) * p.C : zc.data();
        }
      for (int64_t c = 0; c < p.C; ++c) {
        double acc = b[c];
        for (int64_t t = 0; t < T; ++t) acc += double(taps[m * T + t][c]) * w[t * p.C + c];
        ref[m * p.C + c] = static_cast<float>(std::min(std::max(acc, -1.0), 1.5));
        ref2[m * p.C + c] = static_cast<float>(square_ref(std::min(std::max(acc, -1.0), 1.5), post, m, c));
      }
    }
    etk::dwconv_nhwc(p, x.data(), w.data(), b.data(), y1.data(), -1.f, 1.5f, uni(0, 1));
    etk::dwconv_indirect(M, T, p.C, taps.data(), w.data(), b.data(), y2.data(), -1.f, 1.5f, uni(0, 1), nullptr, 0.f,
                         post);
    double e1 = 0, e2 = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      e1 = std::max(e1, double(std::fabs(ref[i] - y1[i])));
      e2 = std::max(e2, double(std::fabs(ref2[i] - y2[i])));
    }
    EXPECT_LT(e1, 1e-4) << fmt("depthwise (direct) it %d", it);
    EXPECT_LT(e2, 1e-4) << fmt("depthwise (indirect) it %d", it);
  }
}

// Winograd F(4x4, 3x3) against the direct convolution in double: output sizes that are not multiples of the
// 4x4 tile, every padding from 0 to 2 on each side, channel counts off the vector width (3, 13, 17, 33) and on it,
// batches of 2, bias or none, clamps, a post-op with or without a second operand, an output row stride wider than
// the channels (an elided concatenation), serial and split over the pool (blocks of tiles across images).
TEST_F(Kernels, WinogradConvMatchesDirect) {
  std::mt19937 rng(31);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::normal_distribution<float> nd(0.f, 1.f);
  static const int kChannels[] = {1, 3, 8, 13, 16, 17, 33, 64};
  int cases = 0;
  for (int it = 0; it < 80; ++it) {
    etk::WinogradParams p{};
    p.N = uni(1, 2), p.H = uni(1, 19), p.W = uni(1, 19), p.pad_t = uni(0, 2), p.pad_l = uni(0, 2);
    const int64_t pad_b = uni(0, 2), pad_r = uni(0, 2);
    const int64_t IC = kChannels[uni(0, 7)], OC = kChannels[uni(0, 7)];
    p.C = IC;
    p.OH = p.H + p.pad_t + pad_b - 2;
    p.OW = p.W + p.pad_l + pad_r - 2;
    if (p.OH < 1 || p.OW < 1) continue;
    const bool has_bias = uni(0, 1), clamp = uni(0, 1), par = uni(0, 1);
    std::vector<float> x(static_cast<size_t>(p.N * p.H * p.W * IC)), w(static_cast<size_t>(OC * 9 * IC)),
        b(static_cast<size_t>(OC));
    for (auto& v : x) v = nd(rng);
    for (auto& v : w) v = nd(rng);
    for (auto& v : b) v = nd(rng);
    etk::PackedWinograd pw;
    etk::pack_winograd(IC, OC, w.data(), has_bias ? b.data() : nullptr, &pw);
    const int64_t M = p.N * p.OH * p.OW, ldy = OC + uni(0, 3);
    etk::PostOp op;
    std::vector<float> other;
    const etk::PostOp* post = random_post(rng, M, OC, &other, &op);
    const float lo = clamp ? -1.f : -INFINITY, hi = clamp ? 1.5f : INFINITY;
    std::vector<float> y(static_cast<size_t>(M * ldy), 123.f);
    etk::winograd_conv3x3(p, x.data(), pw, y.data(), ldy, lo, hi, par, post);
    double maxerr = 0;
    for (int64_t m = 0; m < M; ++m) {
      const int64_t bi = m / (p.OH * p.OW), oy = (m / p.OW) % p.OH, ox = m % p.OW;
      for (int64_t oc = 0; oc < OC; ++oc) {
        double acc = has_bias ? b[oc] : 0.0, mag = 1.0;
        for (int64_t ky = 0; ky < 3; ++ky)
          for (int64_t kx = 0; kx < 3; ++kx) {
            const int64_t iy = oy + ky - p.pad_t, ix = ox + kx - p.pad_l;
            if (iy < 0 || iy >= p.H || ix < 0 || ix >= p.W) continue;
            for (int64_t ic = 0; ic < IC; ++ic) {
              const double t =
                  double(x[((bi * p.H + iy) * p.W + ix) * IC + ic]) * w[((oc * 3 + ky) * 3 + kx) * IC + ic];
              acc += t;
              mag += std::fabs(t);
            }
          }
        const double v = std::min<double>(std::max<double>(acc, lo), hi), want = square_ref(v, post, m, oc);
        // F(4x4, 3x3) rounds more than the direct sum (up to ~1e-5 of the sum of the terms' magnitudes here),
        // times 2 |y| where the post-op squares y (|d(y * y)| = 2 |y| |dy|).
        const double scale = mag * (post != nullptr ? 2.0 * std::max(1.0, std::fabs(v)) : 1.0);
        maxerr = std::max(maxerr, std::fabs(want - y[m * ldy + oc]) / scale);
      }
      for (int64_t j = OC; j < ldy; ++j) EXPECT_EQ(y[m * ldy + j], 123.f) << fmt("winograd wrote past OC (it %d)", it);
    }
    EXPECT_LT(maxerr, 3e-5) << fmt("winograd it %d N %lld H %lld W %lld IC %lld OC %lld pads %lld %lld %lld %lld", it,
                                   (long long)p.N, (long long)p.H, (long long)p.W, (long long)IC, (long long)OC,
                                   (long long)p.pad_t, (long long)p.pad_l, (long long)pad_b, (long long)pad_r);
    ++cases;
  }
  std::printf("winograd: %d cases\n", cases);
  EXPECT_GE(cases, 50);
}

// int8 Winograd F(2x2, 3x3) against the direct convolution in exact integer arithmetic with the int8 GEMM's
// epilogue, bit for bit: output sizes off the 2x2 tile, every padding from 0 to 2 on each side, odd channel counts
// and counts off the 8-channel vectors, batches of 2, extreme weights and inputs (the transforms' int16 range), a
// Convert before (fp32 input quantized on the way in) or after (out_scale) folded in, an output row stride wider
// than the channels, serial and over the pool; the int8 filter packs as its float copy does.
TEST_F(Kernels, Int8WinogradConvMatchesIntegerReference) {
  if (!etk::winograd_q8_available()) {
#if defined(__x86_64__)
    EXPECT_FALSE(etk::qgemm_available()) << "an AVX2 CPU without the int8 Winograd kernel";
#endif
    return;  // below AVX2, or aarch64: the int8 GEMM runs these convolutions
  }
  std::mt19937 rng(37);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  static const int kChannels[] = {1, 2, 7, 8, 9, 16, 17, 33, 40};
  int cases = 0;
  for (int it = 0; it < 120; ++it) {
    etk::WinogradParams p{};
    p.N = uni(1, 2), p.H = uni(1, 15), p.W = uni(1, 15), p.pad_t = uni(0, 2), p.pad_l = uni(0, 2);
    const int64_t pad_b = uni(0, 2), pad_r = uni(0, 2);
    const int64_t IC = kChannels[uni(0, 8)], OC = kChannels[uni(0, 8)];
    p.C = IC;
    p.OH = p.H + p.pad_t + pad_b - 2;
    p.OW = p.W + p.pad_l + pad_r - 2;
    if (p.OH < 1 || p.OW < 1) continue;
    const bool extreme = it % 4 == 0, has_bias = uni(0, 1), par = uni(0, 1), fp32_in = uni(0, 2) == 0;
    const int zp = extreme ? (uni(0, 1) ? 127 : -128) : uni(-128, 127);
    std::vector<float> x(static_cast<size_t>(p.N * p.H * p.W * IC)), w(static_cast<size_t>(OC * 9 * IC)),
        bias(static_cast<size_t>(OC)), scale(static_cast<size_t>(OC));
    // Centered inputs q - zp (|x| up to 255) and weights at -128 / 127 in the extreme cases.
    for (auto& v : x) v = static_cast<float>((extreme ? (uni(0, 1) ? 127 : -128) : uni(-128, 127)) - zp);
    for (auto& v : w) v = static_cast<float>(extreme ? (uni(0, 1) ? 127 : -128) : uni(-128, 127));
    for (auto& v : bias) v = static_cast<float>(uni(-100000, 100000));
    for (auto& v : scale) v = std::ldexp(static_cast<float>(uni(1, 1 << 20)), -uni(20, 34));
    etk::PackedWinogradQ8 pw;
    etk::pack_winograd_q8(IC, OC, w.data(), has_bias ? bias.data() : nullptr, scale.data(), &pw);
    std::vector<int8_t> wi(w.size());
    for (size_t k = 0; k < w.size(); ++k) wi[k] = static_cast<int8_t>(w[k]);
    etk::PackedWinogradQ8 pi;
    etk::pack_winograd_q8(IC, OC, wi.data(), has_bias ? bias.data() : nullptr, scale.data(), &pi);
    ASSERT_TRUE(pi.u == pw.u && pi.bias == pw.bias && pi.scale == pw.scale) << "int8 packing differs, it " << it;
    etk::WinogradQ8Io io{static_cast<float>(uni(-128, 0) - 3),
                         static_cast<float>(uni(0, 127) + 3),
                         uni(0, 1) ? std::ldexp(static_cast<float>(uni(1, 1000)), -uni(8, 16)) : 0.f,
                         0.f,
                         0.f,
                         0.f};
    // A folded Convert before: fp32 (x + noise) * s, noise < 0.5, which quantizes back to x.
    const float s_in = std::ldexp(1.f, -uni(2, 10));
    std::vector<float> xf(x.size());
    for (size_t k = 0; k < x.size(); ++k) xf[k] = (x[k] + static_cast<float>(uni(-45, 45)) / 100.f) * s_in;
    if (fp32_in)
      io.in_mult = 1.f / s_in, io.in_lo = static_cast<float>(-128 - zp), io.in_hi = static_cast<float>(127 - zp);
    const int64_t M = p.N * p.OH * p.OW, ldy = OC + uni(0, 3);
    std::vector<float> y(static_cast<size_t>(M * ldy), 123.f);
    etk::winograd_conv3x3_q8(p, fp32_in ? xf.data() : x.data(), pw, y.data(), ldy, io, par);
    for (int64_t m = 0; m < M; ++m) {
      const int64_t bi = m / (p.OH * p.OW), oy = (m / p.OW) % p.OH, ox = m % p.OW;
      for (int64_t oc = 0; oc < OC; ++oc) {
        int32_t acc = has_bias ? static_cast<int32_t>(bias[oc]) : 0;
        for (int64_t ky = 0; ky < 3; ++ky)
          for (int64_t kx = 0; kx < 3; ++kx) {
            const int64_t iy = oy + ky - p.pad_t, ix = ox + kx - p.pad_l;
            if (iy < 0 || iy >= p.H || ix < 0 || ix >= p.W) continue;
            for (int64_t ic = 0; ic < IC; ++ic)
              acc += static_cast<int32_t>(x[((bi * p.H + iy) * p.W + ix) * IC + ic]) *
                     static_cast<int32_t>(w[((oc * 3 + ky) * 3 + kx) * IC + ic]);
          }
        float want = std::nearbyint(std::min(std::max(static_cast<float>(acc) * scale[oc], io.lo), io.hi));
        if (io.out_scale != 0.f) want *= io.out_scale;
        ASSERT_EQ(y[m * ldy + oc], want) << fmt("it %d pixel %lld oc %lld IC %lld OC %lld", it, (long long)m,
                                                (long long)oc, (long long)IC, (long long)OC);
      }
      for (int64_t j = OC; j < ldy; ++j) ASSERT_EQ(y[m * ldy + j], 123.f) << fmt("wrote past OC (it %d)", it);
    }
    ++cases;
  }
  std::printf("int8 winograd: %d cases\n", cases);
  EXPECT_GE(cases, 60);
}

TEST_F(Kernels, TransposeMatchesReference) {
  std::mt19937 rng(11);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  // 3 rows into a dense output is the interleave (an NCHW image of 3 channels); 8+ rows the 8 x 8 tiles; 34000 floats
  // are split over the pool.
  const int64_t shapes[][2] = {{1, 1}, {3, 1},  {3, 15},   {3, 16},   {3, 47},    {3, 16384}, {2, 33},
                               {8, 8}, {9, 17}, {16, 100}, {48, 100}, {17, 2000}, {5, 7}};
  for (const auto& sh : shapes) {
    for (int pad = 0; pad < 2; ++pad) {
      const int64_t rows = sh[0], cols = sh[1], ldx = cols + pad * uni(1, 5), ldy = rows + pad * uni(1, 3);
      std::vector<float> x(static_cast<size_t>(rows * ldx)), y(static_cast<size_t>(cols * ldy), -7.f);
      for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 0.5f - 3.f;
      etk::transpose_2d(x.data(), rows, cols, ldx, y.data(), ldy);
      int64_t wrong = 0;
      for (int64_t c = 0; c < cols; ++c) {
        for (int64_t r = 0; r < ldy; ++r) {
          const float want = r < rows ? x[static_cast<size_t>(r * ldx + c)] : -7.f;  // the gaps stay untouched
          wrong += y[static_cast<size_t>(c * ldy + r)] != want;
        }
      }
      EXPECT_EQ(wrong, 0) << fmt("transpose %lldx%lld ldx %lld ldy %lld", static_cast<long long>(rows),
                                 static_cast<long long>(cols), static_cast<long long>(ldx),
                                 static_cast<long long>(ldy));
    }
  }
}

TEST_F(Kernels, SigmoidActivationMatchesReference) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> ud(-30.f, 30.f);
  std::vector<float> x = {0.f,    -0.f,  1e-8f,  -1e-8f, 87.f,     -87.f,     -87.5f, 88.9f,
                          -100.f, 200.f, -1e30f, 1e30f,  INFINITY, -INFINITY, NAN};
  for (int i = 0; i < 500; ++i) x.push_back(ud(rng));
  for (bool times_x : {false, true}) {
    for (const float lo : {-INFINITY, -0.25f}) {
      const float hi = lo == -INFINITY ? INFINITY : 5.f;
      for (size_t n : {size_t{1}, size_t{15}, size_t{16}, size_t{17}, x.size()}) {
        std::vector<float> y(n);
        etk::sigmoid_activation(x.data(), y.data(), static_cast<int64_t>(n), lo, hi, times_x);
        for (size_t i = 0; i < n; ++i) {
          if (std::isnan(x[i])) {
            EXPECT_TRUE(std::isnan(y[i])) << fmt("NaN in, %g out", static_cast<double>(y[i]));
            continue;
          }
          const double s = 1.0 / (1.0 + std::exp(-static_cast<double>(x[i])));
          const double v = times_x ? static_cast<double>(x[i]) * s : s;
          if (std::isinf(x[i]) && times_x) continue;  // inf * 0 for -inf: either NaN or -inf, as libm's
          const double want = std::min(std::max(v, static_cast<double>(lo)), static_cast<double>(hi));
          EXPECT_LE(std::fabs(y[i] - want), 4e-7 * std::fabs(want) + 1e-30)
              << fmt("%s(%g) = %.9g, want %.9g", times_x ? "silu" : "sigmoid", static_cast<double>(x[i]),
                     static_cast<double>(y[i]), want);
        }
      }
    }
  }
}

TEST_F(Kernels, DepthwiseRequantizesLikeASecondPass) {
  // Integer-valued inputs and weights (a quantized layer's centered values): the fused requantization must equal
  // round_even(clamp(sum * requant[c], lo, hi)) exactly.
  std::mt19937 rng(17);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int it = 0; it < 60; ++it) {
    const int64_t M = uni(1, 13), T = uni(1, 9), C = uni(1, 70);
    std::vector<float> x(static_cast<size_t>(M * T * C)), w(static_cast<size_t>(T * C)), b(static_cast<size_t>(C)),
        r(static_cast<size_t>(C)), y(static_cast<size_t>(M * C));
    for (auto& v : x) v = static_cast<float>(uni(-128, 127));
    for (auto& v : w) v = static_cast<float>(uni(-127, 127));
    for (auto& v : b) v = static_cast<float>(uni(-5000, 5000));
    for (auto& v : r) v = std::ldexp(static_cast<float>(uni(1, 1 << 20)), -30) + 0.5f * (uni(0, 3) == 0);
    std::vector<const float*> taps(static_cast<size_t>(M * T));
    for (int64_t k = 0; k < M * T; ++k) taps[static_cast<size_t>(k)] = x.data() + k * C;
    const float lo = -128.f - static_cast<float>(uni(0, 3)), hi = 127.f - static_cast<float>(uni(0, 3));
    // Half the time dequantized as they are stored (a Convert to fp32 folded into the layer).
    const float out_scale = uni(0, 1) ? std::ldexp(static_cast<float>(uni(1, 1000)), -uni(8, 16)) : 0.f;
    etk::dwconv_indirect(M, T, C, taps.data(), w.data(), b.data(), y.data(), lo, hi, uni(0, 1), r.data(), out_scale);
    int64_t wrong = 0;
    for (int64_t m = 0; m < M; ++m) {
      for (int64_t c = 0; c < C; ++c) {
        float acc = b[static_cast<size_t>(c)];
        for (int64_t t = 0; t < T; ++t)
          acc += taps[static_cast<size_t>(m * T + t)][c] * w[static_cast<size_t>(t * C + c)];
        float want = std::nearbyint(std::min(std::max(acc * r[static_cast<size_t>(c)], lo), hi));
        if (out_scale != 0.f) want *= out_scale;
        wrong += y[static_cast<size_t>(m * C + c)] != want;
      }
    }
    EXPECT_EQ(wrong, 0) << fmt("depthwise requant M %lld T %lld C %lld", static_cast<long long>(M),
                               static_cast<long long>(T), static_cast<long long>(C));
  }
}

void bench() {
  for (int n : {256, 512, 1024, 2048}) {
    OwnedTensor A(ScalarType::Float, {n, n}), B(ScalarType::Float, {n, n}), C(ScalarType::Float, {n, n});
    fill(A);
    fill(B);
    std::vector<EValue> v{A.tensor(), B.tensor(), C.tensor(), C.tensor()};
    call("aten::mm.out", v);
    int reps = n <= 512 ? 20 : 3;
    auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) call("aten::mm.out", v);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
    std::printf("mm %d: %.2f ms, %.1f GFLOP/s\n", n, s * 1e3, 2.0 * n * n * n / s / 1e9);
  }
}

// The argument pool of the two sweeps below: tensors of every dtype, shape and dim order, hostile int lists.
struct FuzzPool {
  std::vector<std::unique_ptr<OwnedTensor>> tensors;
  std::vector<std::unique_ptr<IntList>> lists;
};

FuzzPool make_fuzz_pool() {
  std::vector<std::unique_ptr<OwnedTensor>> pool;
  const ScalarType types[] = {ScalarType::Float, ScalarType::Long,   ScalarType::Bool, ScalarType::Int,
                              ScalarType::Byte,  ScalarType::Double, ScalarType::Half};
  for (int i = 0; i < 60; ++i) {
    int nd = irand(0, 5);
    std::vector<int32_t> sz;
    for (int d = 0; d < nd; ++d) sz.push_back(irand(0, 4) == 0 ? irand(0, 1) : irand(1, 6));
    std::vector<uint8_t> order;
    for (int d = 0; d < nd; ++d) order.push_back(static_cast<uint8_t>(d));
    if (nd > 1 && irand(0, 3) == 0) std::shuffle(order.begin(), order.end(), rng);
    ScalarType t = types[irand(0, 6)];
    pool.emplace_back(
        new OwnedTensor(t, sz, order, irand(0, 1) ? TensorShapeDynamism::DYNAMIC_BOUND : TensorShapeDynamism::STATIC));
    // Fill with small integers / floats / indices (as raw bytes valid for any type).
    auto* p = reinterpret_cast<uint8_t*>(pool.back()->storage.data());
    size_t nb = pool.back()->storage.size() * 8;
    for (size_t k = 0; k < nb; ++k) p[k] = static_cast<uint8_t>(irand(0, 3));
  }
  std::vector<std::unique_ptr<IntList>> lists;
  for (int i = 0; i < 30; ++i) {
    std::vector<int64_t> v;
    int n = irand(0, 5);
    for (int k = 0; k < n; ++k) {
      int kind = irand(0, 9);
      v.push_back(kind == 0 ? -1 : kind == 1 ? int64_t(1) << 40 : kind == 2 ? -irand(1, 5) : irand(0, 4));
    }
    lists.emplace_back(new IntList(v));
  }
  return FuzzPool{std::move(pool), std::move(lists)};
}

// The int8 GEMM (dense and over segment tables) against exact integer arithmetic with XNNPACK's requantization:
// round_even(clamp((sum_k (u8 - offset) * w + bias) * scale, lo, hi)), bit for bit.
TEST_F(Kernels, Int8GemmMatchesIntegerReference) {
  if (!etk::qgemm_available()) GTEST_SKIP() << "no AVX2 / dotprod (the callers keep their fp32 path)";
  std::mt19937 rng(11);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int it = 0; it < 200; ++it) {
    // The last 8 with long rows (K up to 2700): AVX2's row chunks split a block of rows.
    const int64_t M = uni(1, 150), T = uni(1, 9), L = it >= 192 ? uni(200, 300) : uni(1, 40), N = uni(1, 70), K = T * L;
    const int offset = uni(0, 255);  // u8 = A + offset; a zero tap is the value 0
    const bool segmented = uni(0, 1), trans = uni(0, 1), par = uni(0, 1);
    std::vector<float> A(static_cast<size_t>(M * K)), B(static_cast<size_t>(K * N)), bias(N), scale(N);
    for (auto& v : A) v = static_cast<float>(uni(0, 255) - offset);
    for (auto& v : B) v = static_cast<float>(uni(-128, 127));
    for (auto& v : bias) v = static_cast<float>(uni(-100000, 100000));
    for (auto& v : scale) v = std::ldexp(static_cast<float>(uni(1, 1 << 20)), -uni(20, 34));
    const float lo = static_cast<float>(uni(-128, 0)) - 3, hi = static_cast<float>(uni(0, 127)) + 3;
    const int64_t rsb = trans ? 1 : N, csb = trans ? K : 1;
    std::vector<float> Bs(B.size());
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j) Bs[static_cast<size_t>(k * rsb + j * csb)] = B[static_cast<size_t>(k * N + j)];
    etk::PackedQB pq;
    etk::pack_qb(K, N, Bs.data(), rsb, csb, bias.data(), scale.data(), static_cast<float>(offset), &pq);
    // The same weights as int8 bytes (the overload the XNNPACK delegate packs 8-bit constants with, as loaded).
    std::vector<int8_t> Bi(Bs.size());
    for (size_t k = 0; k < Bs.size(); ++k) Bi[k] = static_cast<int8_t>(Bs[k]);
    etk::PackedQB pi;
    etk::pack_qb(K, N, Bi.data(), rsb, csb, bias.data(), scale.data(), static_cast<float>(offset), &pi);
    ASSERT_TRUE(pi.data == pq.data && pi.corr == pq.corr && pi.colsum == pq.colsum && pi.scale == pq.scale)
        << "int8 packing differs from the float one, K " << K << " N " << N;
    // Half the time the outputs are dequantized as they are stored (a Convert to fp32 folded into the layer).
    pq.out_scale = uni(0, 1) ? std::ldexp(static_cast<float>(uni(1, 1000)), -uni(8, 16)) : 0.f;
    // Half the time the activations come as fp32, quantized as they are converted (a Convert before the layer
    // folded into it): (A + noise) * s, noise < 0.5, which rounds back to A.
    const bool fp32_in = uni(0, 1);
    const float s_in = std::ldexp(1.f, -uni(2, 10));
    std::vector<float> Af(A.size());
    for (size_t k = 0; k < A.size(); ++k) Af[k] = (A[k] + static_cast<float>(uni(-45, 45)) / 100.f) * s_in;
    if (fp32_in) {
      pq.in_mult = 1.f / s_in;
      pq.in_lo = static_cast<float>(-offset);
      pq.in_hi = static_cast<float>(255 - offset);
    }
    const std::vector<float>& Ain = fp32_in ? Af : A;
    // Segments: each row's T segments point into A's row or at zeros.
    static const std::vector<float> zeros(300, 0.f);
    std::vector<const float*> table(static_cast<size_t>(M * T));
    for (int64_t i = 0; i < M; ++i)
      for (int64_t t = 0; t < T; ++t)
        table[static_cast<size_t>(i * T + t)] = uni(0, 6) == 0 ? zeros.data() : Ain.data() + i * K + t * L;
    const SegmentTable ctx{&table, T};
    const etk::RowSegments rows = &table_rows;
    std::vector<float> C(static_cast<size_t>(M * N), -999.f);
    if (segmented) {
      etk::qigemm(M, T, L, rows, &ctx, pq, lo, hi, C.data(), N, par);
    } else {
      etk::qgemm(M, Ain.data(), K, pq, lo, hi, C.data(), N, par);
    }
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        int32_t acc = static_cast<int32_t>(bias[j]);
        for (int64_t k = 0; k < K; ++k) {
          const float* seg = segmented ? table[static_cast<size_t>(i * T + k / L)] : Ain.data() + i * K + (k / L) * L;
          const int32_t a =
              seg == zeros.data() ? 0 : static_cast<int32_t>(A[static_cast<size_t>(seg - Ain.data()) + k % L]);
          acc += a * static_cast<int32_t>(B[static_cast<size_t>(k * N + j)]);
        }
        float want = std::nearbyint(std::min(std::max(static_cast<float>(acc) * scale[j], lo), hi));
        if (pq.out_scale != 0.f) want *= pq.out_scale;
        ASSERT_EQ(C[static_cast<size_t>(i * N + j)], want)
            << "it " << it << " M " << M << " K " << K << " N " << N << " (" << i << ", " << j << ") offset " << offset;
      }
    }
  }
}

// The dynamically quantized variant (qd8 x qc8w, fp32 out): each row its own offset and scale.
TEST_F(Kernels, Int8GemmDynamicRowsMatchReference) {
  if (!etk::qgemm_available()) GTEST_SKIP() << "no AVX2 / dotprod (the callers keep their fp32 path)";
  std::mt19937 rng(13);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int it = 0; it < 110; ++it) {
    // The last 10: a decode step's shape (1 to 4 rows, enough work that the pool splits the columns: an odd number
    // of panels, a partial last one).
    const bool decode = it >= 100;
    const int64_t M = decode ? uni(1, 4) : uni(1, 90), K = decode ? uni(900, 1100) : uni(1, 300),
                  N = decode ? 16 * uni(60, 80) + uni(1, 15) : uni(1, 70);
    const bool has_bias = uni(0, 1), par = decode || uni(0, 1);
    std::vector<float> A(static_cast<size_t>(M * K)), B(static_cast<size_t>(K * N)), offset(M), rscale(M), cscale(N),
        bias(N);
    for (int64_t i = 0; i < M; ++i) {
      offset[i] = static_cast<float>(uni(0, 255));
      rscale[i] = std::ldexp(static_cast<float>(uni(1, 1000)), -uni(8, 16));
      for (int64_t k = 0; k < K; ++k) A[i * K + k] = static_cast<float>(uni(0, 255)) - offset[i];
    }
    for (auto& v : B) v = static_cast<float>(uni(-128, 127));
    for (int64_t j = 0; j < N; ++j) {
      cscale[j] = std::ldexp(static_cast<float>(uni(1, 1000)), -uni(8, 16));
      bias[j] = static_cast<float>(uni(-1000, 1000)) / 100.f;
    }
    etk::PackedQB pq;
    etk::pack_qb(K, N, B.data(), N, 1, nullptr, nullptr, 0.f, &pq);
    std::vector<float> C(static_cast<size_t>(M * N));
    etk::qgemm_dynamic(M, A.data(), K, offset.data(), rscale.data(), pq, cscale.data(),
                       has_bias ? bias.data() : nullptr, -50.f, 50.f, C.data(), N, par);
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        int64_t acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += static_cast<int64_t>(A[i * K + k]) * static_cast<int64_t>(B[k * N + j]);
        const double want = std::min(
            50.0, std::max(-50.0, static_cast<double>(acc) * rscale[i] * cscale[j] + (has_bias ? bias[j] : 0.f)));
        ASSERT_NEAR(C[static_cast<size_t>(i * N + j)], want, 1e-5 * std::max(1.0, std::abs(want)))
            << "it " << it << " (" << i << ", " << j << ")";
      }
    }
  }
}

// A row with an infinity (a damaged program's activations) still gets an integer zero point in [-128, 127]: the
// int8 and 4-bit kernels turn it into int32 terms, where a NaN was undefined behaviour (a fuzzer finding).
TEST_F(Kernels, Int8RowParamsStayInRangeForInfiniteRows) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<std::vector<float>> rows = {{1.f, inf, -2.f}, {-inf, 3.f}, {inf, -inf}, {-inf}, {inf, 0.5f}};
  for (const std::vector<float>& row : rows) {
    float mult = 0.f, zero_point = 0.f;
    etk::qd8_row_params(row.data(), static_cast<int64_t>(row.size()), &mult, &zero_point);
    EXPECT_GE(zero_point, -128.f);
    EXPECT_LE(zero_point, 127.f);
    EXPECT_EQ(zero_point, std::nearbyint(zero_point));
  }
  // Finite rows keep XNNPACK's nudged zero point: [-1, 3] onto [-128, 127] puts zero at round(-128 + 255 / 4).
  const std::vector<float> finite = {-1.f, 3.f, 0.5f};
  float mult = 0.f, zero_point = 0.f;
  etk::qd8_row_params(finite.data(), 3, &mult, &zero_point);
  EXPECT_FLOAT_EQ(mult, 255.f / 4.f);
  EXPECT_EQ(zero_point, -64.f);
}

// fp32 rows quantized inside the GEMM (a Convert to qd8 folded into it): qd8_row_params equals XNNPACK's formula
// on a plain min / max scan, and qgemm_dynamic_f32 equals quantizing the rows first, then qgemm_dynamic, bit for bit.
TEST_F(Kernels, Int8GemmQuantizesFp32RowsLikeConvertThenGemm) {
  if (!etk::qgemm_available()) GTEST_SKIP() << "no AVX2 / dotprod (the callers keep their fp32 path)";
  std::mt19937 rng(17);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::normal_distribution<float> normal(0.f, 1.f);
  for (int it = 0; it < 60; ++it) {
    const int64_t M = uni(1, 90), K = uni(1, 300), N = uni(1, 70);
    const bool has_bias = uni(0, 1), par = uni(0, 1);
    std::vector<float> A(static_cast<size_t>(M * K)), B(static_cast<size_t>(K * N)), cscale(N), bias(N);
    for (int64_t i = 0; i < M; ++i) {
      // Rows of mixed sign, all positive, all negative, all zero; magnitudes from 1e-3 to 1e3.
      const int kind = uni(0, 3);
      const float mag = std::ldexp(1.f, uni(-10, 10));
      for (int64_t k = 0; k < K; ++k) {
        const float v = normal(rng) * mag;
        A[i * K + k] = kind == 0 ? v : kind == 1 ? std::abs(v) : kind == 2 ? -std::abs(v) : 0.f;
      }
    }
    for (auto& v : B) v = static_cast<float>(uni(-128, 127));
    for (int64_t j = 0; j < N; ++j) {
      cscale[j] = std::ldexp(static_cast<float>(uni(1, 1000)), -uni(8, 16));
      bias[j] = static_cast<float>(uni(-1000, 1000)) / 100.f;
    }
    // The rows quantized first, as the Convert does.
    std::vector<float> Q(A.size()), offset(M), rscale(M);
    for (int64_t i = 0; i < M; ++i) {
      float mn = 0.f, mx = 0.f;
      for (int64_t k = 0; k < K; ++k) mn = std::min(mn, A[i * K + k]), mx = std::max(mx, A[i * K + k]);
      const float want_mult = mn == mx ? 1.f : 255.f / (mx - mn);
      const float dmin = mn * want_mult, dmax = mx * want_mult;
      const float zp0 = (-128.f + dmin) + (127.f + dmax) > 0 ? -128.f - dmin : 127.f - dmax;
      const float want_zp = std::nearbyint(std::min(std::max(zp0, -128.f), 127.f));
      float mult = 0.f, zp = 0.f;
      etk::qd8_row_params(A.data() + i * K, K, &mult, &zp);
      ASSERT_EQ(mult, want_mult) << "it " << it << " row " << i;
      ASSERT_EQ(zp, want_zp) << "it " << it << " row " << i;
      for (int64_t k = 0; k < K; ++k)
        Q[i * K + k] = std::nearbyint(std::min(std::max(A[i * K + k] * mult, -128.f - zp), 127.f - zp));
      offset[i] = zp + 128.f;
      rscale[i] = 1.f / mult;
    }
    etk::PackedQB pq;
    etk::pack_qb(K, N, B.data(), N, 1, nullptr, nullptr, 0.f, &pq);
    std::vector<float> want(static_cast<size_t>(M * N)), got(static_cast<size_t>(M * N));
    const float* b = has_bias ? bias.data() : nullptr;
    etk::qgemm_dynamic(M, Q.data(), K, offset.data(), rscale.data(), pq, cscale.data(), b, -50.f, 50.f, want.data(), N,
                       par);
    etk::qgemm_dynamic_f32(M, A.data(), K, pq, cscale.data(), b, -50.f, 50.f, got.data(), N, par);
    for (size_t e = 0; e < got.size(); ++e)
      ASSERT_EQ(got[e], want[e]) << "it " << it << " M " << M << " K " << K << " N " << N << " element " << e;
  }
}

// Blockwise 4-bit weights (8da4w): packed back to 4 bits exactly, and the product (the decode pass for few rows,
// expanded blocks on the fp32 GEMM for more) equals the dequantized weights' product in double precision.
TEST_F(Kernels, BlockwiseInt4GemmMatchesReference) {
  std::mt19937 rng(21);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int it = 0; it < 40; ++it) {
    const int64_t group = 32 * uni(1, 4), K = group * uni(1, 4), N = uni(1, 150), M = it % 2 ? uni(1, 4) : uni(5, 70);
    const bool has_bias = uni(0, 1);
    const int64_t G = K / group;
    std::vector<float> W(static_cast<size_t>(N * K)), S(static_cast<size_t>(N * G)), A(static_cast<size_t>(M * K)),
        bias(static_cast<size_t>(N));
    for (auto& s : S) s = std::ldexp(static_cast<float>(uni(1, 1000)), -uni(6, 14));
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k) W[n * K + k] = static_cast<float>(uni(-8, 7)) * S[n * G + k / group];
    for (auto& a : A) a = static_cast<float>(uni(-1000, 1000)) / 250.f;
    for (auto& b : bias) b = static_cast<float>(uni(-1000, 1000)) / 100.f;
    etk::PackedQB4 p;
    ASSERT_TRUE(etk::pack_qb4(K, N, W.data(), S.data(), group, has_bias ? bias.data() : nullptr, &p));
    std::vector<float> C(static_cast<size_t>(M * N));
    etk::qb4_gemm(M, A.data(), K, p, C.data(), N, -40.f, 40.f);
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        double acc = has_bias ? bias[j] : 0.0, mag = 1.0;
        for (int64_t k = 0; k < K; ++k) {
          acc += static_cast<double>(A[i * K + k]) * W[j * K + k];
          mag += std::abs(static_cast<double>(A[i * K + k]) * W[j * K + k]);
        }
        const double want = std::min(40.0, std::max(-40.0, acc));
        ASSERT_NEAR(C[static_cast<size_t>(i * N + j)], want, 1e-5 * mag)
            << "it " << it << " (" << i << ", " << j << ")";
      }
    }
  }
  // Not packable: K not a multiple of 32, or a value off the 4-bit grid.
  etk::PackedQB4 p;
  std::vector<float> W(48, 1.f), S(1, 1.f);
  EXPECT_FALSE(etk::pack_qb4(48, 1, W.data(), S.data(), 48, nullptr, &p));
  W.assign(32, 0.5f);
  EXPECT_FALSE(etk::pack_qb4(32, 1, W.data(), S.data(), 32, nullptr, &p));
  // A group past kMaxQB4Group (its int32 group terms would overflow; found by the fuzzer): not packed either way.
  const int64_t wide = 2 * etk::kMaxQB4Group;
  W.assign(static_cast<size_t>(wide), 1.f);
  S.assign(2, 1.f);
  EXPECT_FALSE(etk::pack_qb4(wide, 1, W.data(), S.data(), wide, nullptr, &p));
  EXPECT_FALSE(etk::pack_qb4(wide, 1, W.data(), S.data(), wide, nullptr, &p, true));
  EXPECT_TRUE(etk::pack_qb4(wide, 1, W.data(), S.data(), etk::kMaxQB4Group, nullptr, &p));
}

// qd8 x qb4w on the int8 kernel (panel layout): the group sums are integers, so the result equals the reference
// computed in double from the integers up to float rounding of the per-group terms.
TEST_F(Kernels, BlockwiseInt4DynamicGemmMatchesIntegerReference) {
  if (!etk::qb4_dynamic_available()) GTEST_SKIP() << "no AVX2 / dotprod (the callers keep the float kernel)";
  std::mt19937 rng(22);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int it = 0; it < 40; ++it) {
    const int64_t group = 32 * uni(1, 4), K = group * uni(1, 4), N = uni(1, 70), M = uni(1, 11);
    const bool has_bias = uni(0, 1);
    const int64_t G = K / group;
    std::vector<float> W(static_cast<size_t>(N * K)), S(static_cast<size_t>(N * G)), A(static_cast<size_t>(M * K)),
        ro(static_cast<size_t>(M)), rs(static_cast<size_t>(M)), bias(static_cast<size_t>(N));
    std::vector<int> q(static_cast<size_t>(N * K));
    // Every other case with bfloat16 scales (XNNPACK's blockwise scales are): the panels keep them in 16 bits.
    const bool bf16 = it % 2 == 0;
    for (auto& s : S) s = std::ldexp(static_cast<float>(uni(1, bf16 ? 255 : 1000)), -uni(6, 14));
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k) {
        q[static_cast<size_t>(n * K + k)] = uni(-8, 7);
        W[n * K + k] = static_cast<float>(q[static_cast<size_t>(n * K + k)]) * S[n * G + k / group];
      }
    for (int64_t i = 0; i < M; ++i) {
      ro[i] = static_cast<float>(uni(0, 255));
      rs[i] = std::ldexp(static_cast<float>(uni(1, 1000)), -uni(8, 16));
      for (int64_t k = 0; k < K; ++k) A[i * K + k] = static_cast<float>(uni(0, 255)) - ro[i];
    }
    for (auto& b : bias) b = static_cast<float>(uni(-1000, 1000)) / 100.f;
    etk::PackedQB4 p;
    ASSERT_TRUE(etk::pack_qb4(K, N, W.data(), S.data(), group, has_bias ? bias.data() : nullptr, &p, true));
    ASSERT_EQ(p.scales_bf16.empty(), !bf16 && std::any_of(S.begin(), S.end(), [](float s) {
                return etkb::bf16_to_float(etkb::float_to_bf16(s)) != s;
              }));
    std::vector<float> C(static_cast<size_t>(M * N));
    etk::qb4_gemm_dynamic(M, A.data(), K, ro.data(), rs.data(), p, C.data(), N, -40.f, 40.f);
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0.0, mag = 1.0;
        for (int64_t g = 0; g < G; ++g) {
          int64_t isum = 0;
          for (int64_t k = g * group; k < (g + 1) * group; ++k)
            isum += static_cast<int64_t>(A[i * K + k]) * q[static_cast<size_t>(j * K + k)];
          acc += static_cast<double>(isum) * S[j * G + g];
          mag += std::abs(static_cast<double>(isum) * S[j * G + g]);
        }
        const double want = std::min(40.0, std::max(-40.0, acc * rs[i] + (has_bias ? bias[j] : 0.f)));
        ASSERT_NEAR(C[static_cast<size_t>(i * N + j)], want, 1e-6 * mag * rs[i] + 1e-6 * std::abs(want))
            << "it " << it << " (" << i << ", " << j << ")";
      }
    }
  }
}

// Random arguments for every kernel: each call must return (failing or not) without crashing.
TEST_F(Kernels, RandomArgumentsNeverCrash) {
  rng.seed(1234);
  const FuzzPool fp = make_fuzz_pool();
  const auto& pool = fp.tensors;
  const auto& lists = fp.lists;
  const int iters = g_fuzz_iters;
  auto names = get_registered_kernel_names();
  long calls = 0;
  for (int it = 0; it < iters; ++it) {
    for (const auto& name : names) {
      const int n = irand(0, 12);
      std::vector<EValue> vals(static_cast<size_t>(n));
      std::vector<std::unique_ptr<OwnedTensor>> outs;
      for (auto& v : vals) {
        int kind = irand(0, 9);
        if (kind <= 3) {
          v = EValue(pool[static_cast<size_t>(irand(0, int(pool.size()) - 1))]->tensor());
        } else if (kind == 4) {
          v = EValue(int64_t(irand(-3, 4)));
        } else if (kind == 5) {
          v = EValue(double(frand() * 4));
        } else if (kind == 6) {
          v = EValue(bool(irand(0, 1)));
        } else if (kind == 7) {
          v = lists[static_cast<size_t>(irand(0, int(lists.size()) - 1))]->value();
        } else {
          v = EValue();
        }
      }
      // Restore the pool's shapes (kernels may resize dynamic outputs): not needed for memory safety since
      // resize keeps numel within the bound.
      std::vector<EValue*> ptrs;
      for (auto& v : vals) ptrs.push_back(&v);
      KernelRuntimeContext ctx;
      OpFunction f = op(name.c_str());
      if (f == nullptr) continue;
      f(ctx, Span<EValue*>(ptrs.data(), ptrs.size()));
      ++calls;
    }
  }
  std::printf("fuzz: %ld calls over %zu kernels, no crash\n", calls, names.size());
}

TEST_F(Kernels, SchemaShapedArgumentsNeverCrash) {
  rng.seed(5678);
  const FuzzPool fp = make_fuzz_pool();
  const auto& pool = fp.tensors;
  const auto& lists = fp.lists;
  const int iters = g_fuzz_iters;
  // Schema-shaped calls (right tags, hostile values): T tensor, t tensor-or-None, L int list, i int, b bool,
  // d scalar, X tensor list, n None.
  struct Sig {
    const char* name;
    const char* kinds;
  };
  const Sig sigs[] = {
      {"aten::convolution.out", "TTtLLLbLiTT"},
      {"aten::max_pool2d_with_indices.out", "TLLLLbTTX"},
      {"aten::avg_pool2d.out", "TLLLbbnTT"},
      {"aten::_adaptive_avg_pool2d.out", "TLTT"},
      {"aten::native_layer_norm.out", "TLttdTTTX"},
      {"aten::_native_batch_norm_legit_no_training.out", "TttTTddTTTX"},
      {"aten::embedding.out", "TTibbTT"},
      {"aten::cat.out", "XiTT"},
      {"aten::split_with_sizes_copy.out", "TLiXn"},
      {"aten::addmm.out", "TTTddTT"},
      {"aten::bmm.out", "TTTT"},
      {"aten::mm.out", "TTTT"},
      {"aten::linear.out", "TTtTT"},
      {"aten::permute_copy.out", "TLTT"},
      {"aten::view_copy.out", "TLTT"},
      {"aten::expand_copy.out", "TLbTT"},
      {"aten::slice_copy.Tensor_out", "TiiiiTT"},
      {"aten::select_copy.int_out", "TiiTT"},
      {"aten::sum.IntList_out", "TLbnTT"},
      {"aten::mean.out", "TLbnTT"},
      {"aten::amax.out", "TLbTT"},
      {"aten::argmax.out", "TibTT"},
      {"aten::any.out", "TibTT"},
      {"aten::_softmax.out", "TibTT"},
      {"aten::constant_pad_nd.out", "TLdTT"},
      {"aten::where.self_out", "TTTTT"},
      {"aten::add.out", "TTdTT"},
      {"dim_order_ops::_to_dim_order_copy.out", "TbLTT"},
      {"aten::squeeze_copy.dims_out", "TLTT"},
      {"aten::unsqueeze_copy.out", "TiTT"},
      {"aten::index.Tensor_out", "TOTT"},
      {"aten::index_select.out", "TiTTT"},
      {"aten::gather.out", "TiTbTT"},
      {"aten::select_scatter.out", "TTiiTT"},
      {"aten::slice_scatter.out", "TTiiiiTT"},
      {"aten::flip.out", "TLTT"},
      {"aten::roll.out", "TLLTT"},
      {"aten::repeat.out", "TLTT"},
      {"aten::triu.out", "TiTT"},
      {"aten::cumsum.out", "TinTT"},
      {"aten::topk.values", "TiibbTTX"},
      {"aten::arange.start_out", "dddTT"},
      {"aten::scalar_tensor.out", "dTT"},
      {"aten::zeros.out", "LTT"},
      {"aten::stack.out", "XiTT"},
      {"aten::unbind_copy.int_out", "TiXX"},
      {"aten::upsample_nearest2d.out", "TLnnTT"},
      {"aten::upsample_nearest2d.vec_out", "TLnTT"},
      {"aten::upsample_bilinear2d.out", "TLbnnTT"},
      {"aten::upsample_bilinear2d.vec_out", "TLbnTT"},
      {"aten::native_group_norm.out", "TttiiiidTTTX"},
      {"aten::var.correction_out", "TLdbTT"},
      {"aten::max.dim_max", "TibTTX"},
      {"aten::masked_fill.Scalar_out", "TTdTT"},
      {"aten::clamp.Tensor_out", "TttTT"},
      {"aten::pow.Scalar_out", "dTTT"},
      {"aten::remainder.Tensor_out", "TTTT"},
      {"aten::bitwise_and.Scalar_out", "TdTT"},
  };
  long scalls = 0;
  for (int it = 0; it < iters * 4; ++it) {
    for (const Sig& sg : sigs) {
      const size_t n = std::strlen(sg.kinds);
      std::vector<EValue> vals(n);
      std::vector<std::unique_ptr<std::vector<EValue>>> tl_items;
      std::vector<std::unique_ptr<std::vector<EValue*>>> tl_ptrs;
      std::vector<std::unique_ptr<std::vector<Tensor>>> tl_scratch;
      std::vector<std::unique_ptr<std::vector<std::optional<Tensor>>>> otl_scratch;
      for (size_t k = 0; k < n; ++k) {
        auto rt = [&]() { return EValue(pool[static_cast<size_t>(irand(0, int(pool.size()) - 1))]->tensor()); };
        switch (sg.kinds[k]) {
          case 'T': vals[k] = rt(); break;
          case 't': vals[k] = irand(0, 3) ? rt() : EValue(); break;
          case 'L': vals[k] = lists[static_cast<size_t>(irand(0, int(lists.size()) - 1))]->value(); break;
          case 'i': vals[k] = EValue(int64_t(irand(0, 6) == 0 ? -irand(1, 1000) : irand(0, 4))); break;
          case 'b': vals[k] = EValue(bool(irand(0, 1))); break;
          case 'd': vals[k] = irand(0, 1) ? EValue(double(frand() * 3)) : EValue(int64_t(irand(-2, 2))); break;
          case 'X': {
            int m = irand(0, 4);
            tl_items.emplace_back(new std::vector<EValue>());
            for (int q = 0; q < m; ++q) tl_items.back()->push_back(rt());
            tl_ptrs.emplace_back(new std::vector<EValue*>());
            for (auto& e : *tl_items.back()) tl_ptrs.back()->push_back(&e);
            tl_scratch.emplace_back(new std::vector<Tensor>(static_cast<size_t>(m)));
            vals[k] = EValue(
                BoxedEvalueList<Tensor>(tl_ptrs.back()->data(), tl_scratch.back()->data(), static_cast<size_t>(m)));
            break;
          }
          case 'O': {  // optional tensor list (null entries are None)
            int m = irand(0, 4);
            tl_items.emplace_back(new std::vector<EValue>());
            for (int q = 0; q < m; ++q) tl_items.back()->push_back(rt());
            tl_ptrs.emplace_back(new std::vector<EValue*>());
            for (auto& e : *tl_items.back()) tl_ptrs.back()->push_back(irand(0, 3) ? &e : nullptr);
            otl_scratch.emplace_back(new std::vector<std::optional<Tensor>>(static_cast<size_t>(m)));
            vals[k] = EValue(BoxedEvalueList<std::optional<Tensor>>(tl_ptrs.back()->data(), otl_scratch.back()->data(),
                                                                    static_cast<size_t>(m)));
            break;
          }
          default: vals[k] = EValue(); break;
        }
      }
      std::vector<EValue*> ptrs;
      for (auto& v : vals) ptrs.push_back(&v);
      KernelRuntimeContext ctx;
      OpFunction f = op(sg.name);
      if (f == nullptr) continue;
      f(ctx, Span<EValue*>(ptrs.data(), ptrs.size()));
      ++scalls;
    }
  }
  std::printf("schema fuzz: %ld calls, no crash\n", scalls);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);  // removes the --gtest_* flags
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--bench") g_bench = true;
    if (std::string(argv[i]) == "--fuzz-iters" && i + 1 < argc) g_fuzz_iters = std::atoi(argv[++i]);
  }
  if (g_bench) {
    // Timings, not checks: a test only when asked for.
    struct Bench : Kernels {
      void TestBody() override { bench(); }
    };
    ::testing::RegisterTest("KernelsBench", "Mm", nullptr, nullptr, __FILE__, __LINE__,
                            []() -> ::testing::Test* { return new Bench; });
  }
  return RUN_ALL_TESTS();
}
