// Data movement: reshape, copy and convert (fp32 to fp32), transpose, slice, constant pad, concatenate.
#include <cstring>
#include <vector>

#include "common.h"
#include "transpose.h"

namespace etxnn {
namespace {

std::vector<uint32_t> vec(const flatbuffers::Vector<uint32_t>* v) {
  return v ? std::vector<uint32_t>(v->begin(), v->end()) : std::vector<uint32_t>();
}

// Strided copy: y (dense, shape `so`) gets x at `offsets` with per-dim input strides `st` (for slice/transpose).
void gather_nd(const Shape& so, const float* x, const int64_t* st, int64_t base, float* y) {
  const int64_t total = numel_of(so);
  if (total == 0) return;
  // Canonical form: size-1 dims dropped, dims whose input strides nest merged (an NCHW <-> NHWC transpose
  // becomes a 2-D one).
  int64_t ds[kMaxRank + 2], ss[kMaxRank + 2];
  int r = 0;
  for (size_t d = 0; d < so.size(); ++d) {
    if (so[d] == 1) continue;
    if (r > 0 && ss[r - 1] == st[d] * so[d]) {
      ds[r - 1] *= so[d];
      ss[r - 1] = st[d];
    } else {
      ds[r] = so[d];
      ss[r] = st[d];
      ++r;
    }
  }
  if (r == 0) {
    y[0] = x[base];
    return;
  }
  if (r == 1) {
    ds[1] = ds[0];
    ss[1] = ss[0];
    ds[0] = 1;
    ss[0] = 0;
    r = 2;
  }
  const int64_t inner = ds[r - 1], is = ss[r - 1], mid = ds[r - 2], ms = ss[r - 2];
  int64_t idx[kMaxRank + 2] = {0};
  for (int64_t o = 0; o < total; o += inner * mid) {
    int64_t off = base;
    for (int d = 0; d + 2 < r; ++d) off += idx[d] * ss[d];
    float* dst = y + o;
    if (is == 1) {
      for (int64_t i = 0; i < mid; ++i)
        std::memcpy(dst + i * inner, x + off + i * ms, static_cast<size_t>(inner) * sizeof(float));
    } else if (ms == 1) {  // a 2-D transpose: x holds [inner][mid] rows `is` apart
      etk::transpose_2d(x + off, inner, mid, is, dst, inner);
    } else {
      // Blocked 2-D transpose-like copy: 8 rows of the output at a time, so reads walk 8 strided streams.
      int64_t i = 0;
      for (; i + 8 <= mid; i += 8) {
        const float* src = x + off + i * ms;
        for (int64_t j = 0; j < inner; ++j)
          for (int64_t k = 0; k < 8; ++k) dst[(i + k) * inner + j] = src[k * ms + j * is];
      }
      for (; i < mid; ++i) {
        const float* src = x + off + i * ms;
        for (int64_t j = 0; j < inner; ++j) dst[i * inner + j] = src[j * is];
      }
    }
    for (int d = r - 2; d-- > 0;) {
      if (++idx[d] < ds[d]) break;
      idx[d] = 0;
    }
  }
}

void strides_of(const Shape& s, int64_t* st) {
  int64_t acc = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = acc;
    acc *= s[i];
  }
}

Error run_copy(Graph& g, Node& n, const Shape& so, float* y) {
  const int64_t total = numel_of(so);
  // A reshape may write in place (assign_slots gives it its dying input's buffer).
  if (total > 0 && y != g.ptrs[n.in[0]]) std::memcpy(y, g.ptrs[n.in[0]], static_cast<size_t>(total) * sizeof(float));
  return apply_output_range(n, y, total);
}

Error read_reshape(const NodeReader& r, const schema::Node& xn, Node& n) {
  const auto* p = xn.node_as_StaticReshape();
  ET_CHECK_OK_OR_RETURN_ERROR(r.need(n, p));
  n.flags = p->flags();
  n.v1 = vec(p->new_shape());
  if (p->num_dims() != n.v1.size() || n.v1.size() > kMaxRank) {
    return ETXNN_FAIL(Error::InvalidProgram, "node %zu (StaticReshape): num_dims %u but %zu entries",
                      static_cast<size_t>(n.index), p->num_dims(), n.v1.size());
  }
  return r.io(n, {p->input_id()}, p->output_id());
}

Error infer_reshape(const Graph& g, const Node& n, Shape* out) {
  const Shape& a = g.shapes[n.in[0]];
  const int64_t total = numel_of(a);
  out->assign(n.v1.begin(), n.v1.end());
  int zeros = 0, at = -1;
  int64_t prod = 1;
  for (size_t i = 0; i < out->size(); ++i) {
    if ((*out)[i] == 0) {
      ++zeros;
      at = static_cast<int>(i);
    } else {
      prod *= (*out)[i];
      if (prod > kMaxNumel) return node_fail(n, "new shape too large");
    }
  }
  if (zeros == 1 && prod > 0 && total % prod == 0) (*out)[at] = total / prod;
  if (numel_of(*out) != total) return node_fail(n, "new shape does not hold the input's elements:", a, *out);
  return Error::Ok;
}

Error read_transpose(const NodeReader& r, const schema::Node& xn, Node& n) {
  const auto* p = xn.node_as_StaticTranspose();
  ET_CHECK_OK_OR_RETURN_ERROR(r.need(n, p));
  n.flags = p->flags();
  n.v1 = vec(p->perm());
  if (p->num_dims() != n.v1.size()) {
    return ETXNN_FAIL(Error::InvalidProgram, "node %zu (StaticTranspose): num_dims %u but %zu perm entries",
                      static_cast<size_t>(n.index), p->num_dims(), n.v1.size());
  }
  return r.io(n, {p->input_id()}, p->output_id());
}

Error infer_transpose(const Graph& g, const Node& n, Shape* out) {
  const Shape& a = g.shapes[n.in[0]];
  if (n.v1.size() != a.size()) return node_fail(n, "permutation rank differs from the input:", a);
  std::vector<uint8_t> seen(a.size(), 0);
  out->resize(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (n.v1[i] >= a.size() || seen[n.v1[i]]) return node_fail(n, "invalid permutation");
    seen[n.v1[i]] = 1;
    (*out)[i] = a[n.v1[i]];
  }
  return Error::Ok;
}

Error run_transpose(Graph& g, Node& n, const Shape& so, float* y) {
  const Shape& sa = g.shapes[n.in[0]];
  int64_t st[kMaxRank + 2] = {0}, pst[kMaxRank + 2] = {0};
  strides_of(sa, st);
  for (size_t i = 0; i < sa.size(); ++i) pst[i] = st[n.v1[i]];
  gather_nd(so, g.ptrs[n.in[0]], pst, 0, y);
  return apply_output_range(n, y, numel_of(so));
}

Error read_slice(const NodeReader& r, const schema::Node& xn, Node& n) {
  const auto* p = xn.node_as_StaticSlice();
  ET_CHECK_OK_OR_RETURN_ERROR(r.need(n, p));
  n.flags = p->flags();
  n.v1 = vec(p->offsets());
  n.v2 = vec(p->sizes());
  if (p->num_dims() != n.v1.size() || n.v1.size() != n.v2.size()) {
    return ETXNN_FAIL(Error::InvalidProgram, "node %zu (StaticSlice): num_dims %u, %zu offsets, %zu sizes",
                      static_cast<size_t>(n.index), p->num_dims(), n.v1.size(), n.v2.size());
  }
  return r.io(n, {p->input_id()}, p->output_id());
}

Error infer_slice(const Graph& g, const Node& n, Shape* out) {
  const Shape& a = g.shapes[n.in[0]];
  if (n.v1.size() != a.size()) return node_fail(n, "slice rank differs from the input:", a);
  out->resize(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const int64_t off = n.v1[i];
    const int64_t sz = n.v2[i] == 0 ? a[i] - off : int64_t{n.v2[i]};
    if (off > a[i] || sz < 0 || off + sz > a[i]) return node_fail(n, "slice out of range for input", a);
    (*out)[i] = sz;
  }
  return Error::Ok;
}

Error run_slice(Graph& g, Node& n, const Shape& so, float* y) {
  const Shape& sa = g.shapes[n.in[0]];
  int64_t st[kMaxRank + 2] = {0};
  strides_of(sa, st);
  int64_t base = 0;
  for (size_t i = 0; i < sa.size(); ++i) base += int64_t{n.v1[i]} * st[i];
  gather_nd(so, g.ptrs[n.in[0]], st, base, y);
  return apply_output_range(n, y, numel_of(so));
}

Error read_constant_pad(const NodeReader& r, const schema::Node& xn, Node& n) {
  const auto* p = xn.node_as_StaticConstantPad();
  ET_CHECK_OK_OR_RETURN_ERROR(r.need(n, p));
  n.flags = p->flags();
  n.v1 = vec(p->pre_paddings());
  n.v2 = vec(p->post_paddings());
  n.alpha = p->padding_value();
  if (n.v1.size() != n.v2.size()) {
    return ETXNN_FAIL(Error::InvalidProgram, "node %zu (StaticConstantPad): %zu pre and %zu post paddings",
                      static_cast<size_t>(n.index), n.v1.size(), n.v2.size());
  }
  return r.io(n, {p->input_id()}, p->output_id());
}

Error infer_constant_pad(const Graph& g, const Node& n, Shape* out) {
  const Shape& a = g.shapes[n.in[0]];
  if (n.v1.size() != a.size()) return node_fail(n, "padding rank differs from the input:", a);
  out->resize(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    (*out)[i] = a[i] + n.v1[i] + n.v2[i];
    if ((*out)[i] > 0x7FFFFFFF) return node_fail(n, "padded size too large");
  }
  return Error::Ok;
}

Error run_constant_pad(Graph& g, Node& n, const Shape& so, float* y) {
  const Shape& sa = g.shapes[n.in[0]];
  const float* a = g.ptrs[n.in[0]];
  const int64_t total = numel_of(so);
  for (int64_t i = 0; i < total; ++i) y[i] = n.alpha;
  int64_t st[kMaxRank + 2] = {0}, ist[kMaxRank + 2] = {0};
  strides_of(so, st);
  strides_of(sa, ist);
  // Scatter: walk the input, write at the shifted position.
  const size_t r = sa.size();
  const int64_t in_total = numel_of(sa);
  if (in_total == 0) return apply_output_range(n, y, total);
  if (r == 0) {
    y[0] = a[0];
    return apply_output_range(n, y, total);
  }
  int64_t idx[kMaxRank + 2] = {0};
  const int64_t inner = sa[r - 1];
  for (int64_t i = 0; i < in_total; i += inner) {
    int64_t off = 0;
    for (size_t d = 0; d < r; ++d) off += (idx[d] + n.v1[d]) * st[d];
    std::memcpy(y + off, a + i, static_cast<size_t>(inner) * sizeof(float));
    for (size_t d = r - 1; d-- > 0;) {
      if (++idx[d] < sa[d]) break;
      idx[d] = 0;
    }
  }
  return apply_output_range(n, y, total);
}

// Concatenate2..5 share the CatNode table; `Count` inputs.
template <const schema::CatNode* (schema::Node::*As)() const, int Count>
Error read_concatenate(const NodeReader& r, const schema::Node& xn, Node& n) {
  const schema::CatNode* c = (xn.*As)();
  ET_CHECK_OK_OR_RETURN_ERROR(r.need(n, c));
  n.axis = c->axis();
  n.flags = c->flags();
  const uint32_t ids[5] = {c->input1_id(), c->input2_id(), c->input3_id(), c->input4_id(), c->input5_id()};
  for (int k = 0; k < Count; ++k) {
    int v = -1;
    ET_CHECK_OK_OR_RETURN_ERROR(r.id(n, ids[k], &v));
    n.in[n.nin++] = v;
  }
  return r.id(n, c->output_id(), &n.out);
}

Error infer_concatenate(const Graph& g, const Node& n, Shape* out) {
  const Shape& a = g.shapes[n.in[0]];
  if (n.axis >= a.size()) return node_fail(n, "axis out of range for", a);
  *out = a;
  for (int k = 1; k < n.nin; ++k) {
    const Shape& b = g.shapes[n.in[k]];
    if (b.size() != a.size()) return node_fail(n, "inputs differ in rank:", a, b);
    for (size_t i = 0; i < a.size(); ++i) {
      if (i != n.axis && b[i] != a[i]) return node_fail(n, "inputs differ outside the axis:", a, b);
    }
    (*out)[n.axis] += b[n.axis];
  }
  return Error::Ok;
}

Error run_concatenate(Graph& g, Node& n, const Shape& so, float* y) {
  int64_t outer = 1;
  for (size_t i = 0; i < n.axis; ++i) outer *= so[i];
  int64_t out_row = 1;
  for (size_t i = n.axis; i < so.size(); ++i) out_row *= so[i];
  int64_t col = 0;
  for (int k = 0; k < n.nin; ++k) {
    const Shape& sk = g.shapes[n.in[k]];
    int64_t row = 1;
    for (size_t i = n.axis; i < sk.size(); ++i) row *= sk[i];
    const float* src = g.ptrs[n.in[k]];
    if (row > 0) {
      for (int64_t o = 0; o < outer; ++o)
        std::memcpy(y + o * out_row + col, src + o * row, static_cast<size_t>(row) * sizeof(float));
    }
    col += row;
  }
  return apply_output_range(n, y, numel_of(so));
}

// kind, reader, shape rule, fp32 kernel, prepare, traits (node_table.h)
constexpr NodeKindDef kKinds[] = {
    {NodeKind::Copy, read_node1x1, same_shape, run_copy, nullptr, kMovesValues},
    {NodeKind::Convert, read_node1x1, same_shape, run_copy, nullptr, kOnePass | kConvertRounding},
    {NodeKind::StaticReshape, read_reshape, infer_reshape, run_copy, nullptr, kMovesValues},
    {NodeKind::StaticTranspose, read_transpose, infer_transpose, run_transpose, nullptr, kMovesValues},
    {NodeKind::StaticSlice, read_slice, infer_slice, run_slice, nullptr, kMovesValues},
    {NodeKind::StaticConstantPad, read_constant_pad, infer_constant_pad, run_constant_pad, nullptr},
    {NodeKind::Concatenate2, read_concatenate<&schema::Node::node_as_Concatenate2, 2>, infer_concatenate,
     run_concatenate, nullptr, kMovesValues},
    {NodeKind::Concatenate3, read_concatenate<&schema::Node::node_as_Concatenate3, 3>, infer_concatenate,
     run_concatenate, nullptr, kMovesValues},
    {NodeKind::Concatenate4, read_concatenate<&schema::Node::node_as_Concatenate4, 4>, infer_concatenate,
     run_concatenate, nullptr, kMovesValues},
    {NodeKind::Concatenate5, read_concatenate<&schema::Node::node_as_Concatenate5, 5>, infer_concatenate,
     run_concatenate, nullptr, kMovesValues},
};

}  // namespace

NodeKindList shape_node_kinds() { return {kKinds, std::size(kKinds)}; }

}  // namespace etxnn
