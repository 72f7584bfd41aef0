// Quantized payloads: the parameters of quantized values (checked at load), their constants as floats, and the
// per-node plan that lets the fp32 kernels run them (graph.h: QKind, QMode).
//
// Static int8 values are held as the floats of their integers centered on the zero point, so a convolution's zero
// padding is the zero point and the fp32 GEMM accumulates input x weight products exactly (integers below 2^24);
// the output is then requantized per channel as XNNPACK does (scale input_scale * kernel_scale / output_scale in
// float, round to nearest even, clamp). Every other node on quantized operands dequantizes its inputs, runs the
// fp32 kernel and quantizes its output (one rounding, as XNNPACK's own lookup-table and elementwise kernels).
// Dynamic (qdint8) values get per-row parameters chosen exactly as XNNPACK's f32->qd8 convert chooses them.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <unordered_map>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <float16.h>

#include "nodes/common.h"

namespace etxnn {

namespace {

using DT = schema::DataType;

const char* dt_name(DT t) {
  const auto k = static_cast<int>(t);
  if (k < 0 || k > static_cast<int>(DT::MAX)) return "unknown";
  return schema::EnumNamesDataType()[k];
}

bool valid_scale(float s) { return std::isnormal(s) && s > 0.f; }

using etkb::bf16_to_float;

// The floats of a scale vector given inline or, by index, in the constant data (fp32, or bf16 for blockwise).
Error read_scales(size_t i, const Value& v, const flatbuffers::Vector<float>* inline_scales,
                  const flatbuffers::Vector<uint16_t>* inline_bf16, uint32_t buffer_idx, uint32_t num_scales,
                  int64_t expected, bool bf16, const ConstantFetch& fetch, std::vector<float>* out) {
  out->clear();
  if (inline_scales != nullptr && inline_scales->size() > 0) {
    out->assign(inline_scales->begin(), inline_scales->end());
    return Error::Ok;
  }
  if (inline_bf16 != nullptr && inline_bf16->size() > 0) {
    for (uint16_t b : *inline_bf16) out->push_back(bf16_to_float(b));
    return Error::Ok;
  }
  if (num_scales == 0) {
    return ETXNN_FAIL(Error::InvalidProgram, "value %zu (id %u): quantization parameters have no scales", i, v.id_out);
  }
  if (num_scales != expected) {
    return ETXNN_FAIL(Error::InvalidProgram, "value %zu (id %u): %u scales, its dims need %" PRId64, i, v.id_out,
                      num_scales, expected);
  }
  std::vector<uint8_t> bytes;
  ET_CHECK_OK_OR_RETURN_ERROR(fetch(buffer_idx, uint64_t{num_scales} * (bf16 ? 2u : 4u), &bytes));
  out->resize(num_scales);
  for (uint32_t k = 0; k < num_scales; ++k) {
    if (bf16) {
      uint16_t b;
      std::memcpy(&b, bytes.data() + 2 * k, 2);
      (*out)[k] = bf16_to_float(b);
    } else {
      std::memcpy(&(*out)[k], bytes.data() + 4 * k, 4);
    }
  }
  return Error::Ok;
}

Error check_scales(size_t i, const Value& v, const std::vector<float>& scales) {
  for (size_t k = 0; k < scales.size(); ++k) {
    if (!valid_scale(scales[k])) {
      return ETXNN_FAIL(Error::InvalidProgram,
                        "value %zu (id %u, %s): scale %zu is %g; quantization scales must be positive, finite "
                        "and normal",
                        i, v.id_out, dt_name(v.q.dtype), k, static_cast<double>(scales[k]));
    }
  }
  return Error::Ok;
}

void range_of(DT t, int32_t* lo, int32_t* hi) {
  switch (t) {
    case DT::quint8: *lo = 0, *hi = 255; return;
    case DT::qint32:
    case DT::qcint32: *lo = INT32_MIN, *hi = INT32_MAX; return;
    case DT::qcint4:
    case DT::qbint4: *lo = -8, *hi = 7; return;
    default: *lo = -128, *hi = 127; return;
  }
}

}  // namespace

Error read_quant(size_t i, const schema::QuantizedTensorValue& qv, const ConstantFetch& fetch, bool is_constant,
                 Value* v) {
  Quant& q = v->q;
  q.dtype = qv.tensor_value()->datatype();
  range_of(q.dtype, &q.qmin, &q.qmax);
  const auto type = qv.quant_params_type();
  const size_t rank = v->dims.size();
  auto unsupported = [&](const char* quant) {
    return ETXNN_FAIL(Error::NotSupported,
                      "value %zu (id %u): %s quantization of datatype %s is not supported (expected per-tensor "
                      "qint8/quint8/qint32, per-channel qcint8/qcint4/qcint32, per-token qdint8 or blockwise qbint4)",
                      i, v->id_out, quant, dt_name(q.dtype));
  };
  if (type == schema::QuantParams::PerTensorQuant) {
    const auto* p = qv.quant_params_as_PerTensorQuant();
    if (p == nullptr) return ETXNN_FAIL(Error::InvalidProgram, "value %zu: per-tensor parameters are missing", i);
    if (q.dtype != DT::qint8 && q.dtype != DT::quint8 && q.dtype != DT::qint32) return unsupported("per-tensor");
    q.kind = QKind::kStatic;
    q.scale = p->scale();
    q.zero_point = p->zero_point();
    if (!valid_scale(q.scale)) {
      return ETXNN_FAIL(Error::InvalidProgram,
                        "value %zu (id %u, %s): scale is %g; quantization scales must be positive, finite and normal",
                        i, v->id_out, dt_name(q.dtype), static_cast<double>(q.scale));
    }
    if (q.zero_point < q.qmin || q.zero_point > q.qmax || (q.dtype == DT::qint32 && q.zero_point != 0)) {
      return ETXNN_FAIL(Error::InvalidProgram, "value %zu (id %u, %s): zero point %d is outside [%d, %d]", i, v->id_out,
                        dt_name(q.dtype), q.zero_point, q.dtype == DT::qint32 ? 0 : q.qmin,
                        q.dtype == DT::qint32 ? 0 : q.qmax);
    }
    return Error::Ok;
  }
  if (type == schema::QuantParams::PerChannelQuant) {
    const auto* p = qv.quant_params_as_PerChannelQuant();
    if (p == nullptr) return ETXNN_FAIL(Error::InvalidProgram, "value %zu: per-channel parameters are missing", i);
    if (q.dtype != DT::qcint8 && q.dtype != DT::qcint4 && q.dtype != DT::qcint32) return unsupported("per-channel");
    if (!is_constant) {
      return ETXNN_FAIL(Error::NotSupported, "value %zu (id %u): per-channel quantized activations are not supported",
                        i, v->id_out);
    }
    q.kind = QKind::kChannel;
    if (p->channel_dim() < 0 || static_cast<size_t>(p->channel_dim()) >= rank) {
      return ETXNN_FAIL(Error::InvalidProgram, "value %zu (id %u): channel dim %d is outside its rank %zu", i,
                        v->id_out, p->channel_dim(), rank);
    }
    q.channel_dim = static_cast<uint32_t>(p->channel_dim());
    if (q.dtype == DT::qcint4 && rank != 2) {
      return ETXNN_FAIL(Error::NotSupported, "value %zu (id %u): 4-bit weights must be 2-D [out, in], not rank %zu", i,
                        v->id_out, rank);
    }
    ET_CHECK_OK_OR_RETURN_ERROR(read_scales(i, *v, p->scale(), nullptr, p->scale_buffer_idx(), p->num_scales(),
                                            v->dims[q.channel_dim], /*bf16=*/false, fetch, &q.scales));
    if (static_cast<int64_t>(q.scales.size()) != v->dims[q.channel_dim]) {
      return ETXNN_FAIL(Error::InvalidProgram, "value %zu (id %u): %zu scales for %" PRId64 " channels (dim %u)", i,
                        v->id_out, q.scales.size(), v->dims[q.channel_dim], q.channel_dim);
    }
    return check_scales(i, *v, q.scales);
  }
  if (type == schema::QuantParams::PerTokenDynamicQuant) {
    const auto* p = qv.quant_params_as_PerTokenDynamicQuant();
    if (p == nullptr) return ETXNN_FAIL(Error::InvalidProgram, "value %zu: per-token parameters are missing", i);
    if (q.dtype != DT::qdint8) return unsupported("per-token dynamic");
    if (is_constant) {
      return ETXNN_FAIL(Error::InvalidProgram, "value %zu (id %u): a dynamically quantized value is a constant", i,
                        v->id_out);
    }
    if (p->num_nonbatch_dims() < 1 || static_cast<size_t>(p->num_nonbatch_dims()) > std::max<size_t>(rank, 1)) {
      return ETXNN_FAIL(Error::InvalidProgram, "value %zu (id %u): %d non-batch dims for rank %zu", i, v->id_out,
                        p->num_nonbatch_dims(), rank);
    }
    q.kind = QKind::kDynamic;
    q.channel_dim = static_cast<uint32_t>(p->num_nonbatch_dims());
    return Error::Ok;
  }
  if (type == schema::QuantParams::PerChannelGroupQuant) {
    const auto* p = qv.quant_params_as_PerChannelGroupQuant();
    if (p == nullptr) return ETXNN_FAIL(Error::InvalidProgram, "value %zu: blockwise parameters are missing", i);
    if (q.dtype != DT::qbint4) return unsupported("per-channel-group (blockwise)");
    if (!is_constant || rank != 2) {
      return ETXNN_FAIL(Error::NotSupported,
                        "value %zu (id %u): blockwise 4-bit values must be constant 2-D weights [out, in]", i,
                        v->id_out);
    }
    if (p->channel_dim() != 0) {
      return ETXNN_FAIL(Error::NotSupported, "value %zu (id %u): blockwise weights quantized along dim %d (expected 0)",
                        i, v->id_out, p->channel_dim());
    }
    const int64_t oc = v->dims[0], ic = v->dims[1];
    if (p->group_size() <= 0 || ic % p->group_size() != 0) {
      return ETXNN_FAIL(Error::InvalidProgram,
                        "value %zu (id %u): group size %d does not divide the input channels (%" PRId64 ")", i,
                        v->id_out, p->group_size(), ic);
    }
    q.group_size = p->group_size();
    ET_CHECK_OK_OR_RETURN_ERROR(read_scales(i, *v, p->scale(), p->scale_bf16(), p->scale_buffer_idx(), p->num_scales(),
                                            oc * (ic / q.group_size), /*bf16=*/true, fetch, &q.scales));
    if (static_cast<int64_t>(q.scales.size()) != oc * (ic / q.group_size)) {
      return ETXNN_FAIL(Error::InvalidProgram,
                        "value %zu (id %u): %zu scales, but %" PRId64 " channels x %" PRId64 " groups need %" PRId64, i,
                        v->id_out, q.scales.size(), oc, ic / q.group_size, oc * (ic / q.group_size));
    }
    q.kind = QKind::kChannel;  // until constant_to_float dequantizes it
    return check_scales(i, *v, q.scales);
  }
  return ETXNN_FAIL(Error::InvalidProgram, "value %zu (id %u): unknown quantization parameters (type %u)", i, v->id_out,
                    static_cast<unsigned>(type));
}

uint64_t constant_bytes(const Value& v, uint64_t numel) {
  switch (v.q.dtype) {
    case DT::qint8:
    case DT::quint8:
    case DT::qcint8: return numel;
    case DT::qcint4:
    case DT::qbint4: return static_cast<uint64_t>(v.dims[0]) * ((static_cast<uint64_t>(v.dims[1]) + 1) / 2);
    default: return numel * 4;
  }
}

const float* constant_floats(const Value& v, std::vector<float>* tmp) {
  if (v.data != nullptr || v.pending.empty()) return v.data;
  tmp->resize(v.pending.size());
  Value copy;  // constant_to_float may rewrite the quantization of blockwise weights (never pending)
  copy.dims = v.dims;
  copy.q = v.q;
  constant_to_float(copy, v.pending.data(), tmp->data());
  return tmp->data();
}

const int8_t* pending_int8(const Value& v) {
  const bool int8 = v.q.dtype == DT::qint8 || v.q.dtype == DT::qcint8;
  if (v.data != nullptr || v.pending.empty() || !int8 || v.q.zero_point != 0) return nullptr;
  return reinterpret_cast<const int8_t*>(v.pending.data());
}

const float* materialize(Graph& g, Value& v) {
  if (v.data != nullptr || v.pending.empty()) return v.data;
  g.owned.emplace_back(v.pending.size());
  constant_to_float(v, v.pending.data(), g.owned.back().data());
  v.data = g.owned.back().data();
  std::vector<uint8_t>().swap(v.pending);
  return v.data;
}

void constant_to_float(Value& v, const void* src, float* dst) {
  const int64_t n = numel_of(v.dims);
  const float zp = static_cast<float>(v.q.zero_point);
  switch (v.q.dtype) {
    case DT::qint8:
    case DT::qcint8: {
      const auto* s = static_cast<const int8_t*>(src);
      for (int64_t k = 0; k < n; ++k) dst[k] = static_cast<float>(s[k]) - zp;
      return;
    }
    case DT::quint8: {
      const auto* s = static_cast<const uint8_t*>(src);
      for (int64_t k = 0; k < n; ++k) dst[k] = static_cast<float>(s[k]) - zp;
      return;
    }
    case DT::qint32:
    case DT::qcint32: {
      for (int64_t k = 0; k < n; ++k) {
        int32_t x;
        std::memcpy(&x, static_cast<const uint8_t*>(src) + 4 * k, 4);
        dst[k] = static_cast<float>(x) - zp;
      }
      return;
    }
    case DT::qcint4:
    case DT::qbint4: {
      // Rows of ceil(in / 2) bytes, element 2j in the low nibble and 2j + 1 in the high one, each q + 8.
      const int64_t oc = v.dims[0], ic = v.dims[1], row = (ic + 1) / 2;
      const auto* s = static_cast<const uint8_t*>(src);
      const bool blockwise = v.q.dtype == DT::qbint4;
      const int64_t groups = blockwise ? ic / v.q.group_size : 0;
      for (int64_t o = 0; o < oc; ++o) {
        for (int64_t k = 0; k < ic; ++k) {
          const uint8_t b = s[o * row + k / 2];
          const float w = static_cast<float>((k % 2 == 0 ? b & 0xF : b >> 4)) - 8.f;
          dst[o * ic + k] = blockwise ? w * v.q.scales[static_cast<size_t>(o * groups + k / v.q.group_size)] : w;
        }
      }
      if (blockwise) {
        v.block_group = v.q.group_size;
        v.block_scales = std::move(v.q.scales);
        v.q = Quant();  // now plain fp32 weights
      }
      return;
    }
    default: std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float)); return;
  }
}

namespace {

// The output channels of a GEMM-family node, from its serialized output dims (channels last).
int64_t output_channels(const Graph& g, const Node& n) {
  const Shape& d = g.values[static_cast<size_t>(n.out)].dims;
  return d.empty() ? 1 : d.back();
}

// Per-channel (or per-tensor) scale of weight channel c.
float weight_scale(const Value& w, int64_t c) {
  return w.q.kind == QKind::kChannel ? w.q.scales[static_cast<size_t>(c)] : w.q.scale;
}

// A fp32 copy of quantized constant `vi` (cached per value), as a new value.
int dequantized_copy(Graph& g, int vi, std::unordered_map<int, int>* cache) {
  auto it = cache->find(vi);
  if (it != cache->end()) return it->second;
  const Value& v = g.values[static_cast<size_t>(vi)];
  const int64_t n = numel_of(v.dims);
  std::vector<float> tmp;
  const float* q = constant_floats(v, &tmp);
  etk::aligned_vector<float> real(static_cast<size_t>(n));
  int64_t inner = 1;
  if (v.q.kind == QKind::kChannel)
    for (size_t d = v.q.channel_dim + 1; d < v.dims.size(); ++d) inner *= v.dims[d];
  for (int64_t k = 0; k < n; ++k) {
    const float s = v.q.kind == QKind::kChannel ? v.q.scales[static_cast<size_t>((k / inner) % v.dims[v.q.channel_dim])]
                                                : v.q.scale;
    real[static_cast<size_t>(k)] = q[k] * s;
  }
  g.owned.push_back(std::move(real));
  Value copy;
  copy.dims = v.dims;
  copy.data = g.owned.back().data();
  copy.constant = true;
  copy.id_out = v.id_out;
  g.values.push_back(std::move(copy));
  const int out = static_cast<int>(g.values.size()) - 1;
  cache->emplace(vi, out);
  return out;
}

}  // namespace

float quantized_bound(float bound, const Quant& q) {
  const float v = std::fmin(std::fmax(bound / q.scale + static_cast<float>(q.zero_point), static_cast<float>(q.qmin)),
                            static_cast<float>(q.qmax));
  return static_cast<float>(std::lrintf(v));
}

void set_quantized_range(Node& n, const Quant& y) {
  const float zy = static_cast<float>(y.zero_point);
  n.qlo = (n.has_min_max ? quantized_bound(n.out_min, y) : static_cast<float>(y.qmin)) - zy;
  n.qhi = (n.has_min_max ? quantized_bound(n.out_max, y) : static_cast<float>(y.qmax)) - zy;
}

namespace {

// Every operand of n is a non-constant per-tensor quantized value with the output's datatype, scale and zero point.
bool same_params_throughout(const Graph& g, const Node& n) {
  const Quant& y = g.values[static_cast<size_t>(n.out)].q;
  if (y.kind != QKind::kStatic) return false;
  for (int k = 0; k < n.nin; ++k) {
    const Value& v = g.values[static_cast<size_t>(n.in[k])];
    if (v.constant || !same_static_quant(v.q, y)) return false;
  }
  return true;
}

// A Clamp (kRangeIsOp) on the only reader of a requantizing node's output narrows that node's own clamp instead (the
// two share quantization parameters: the Clamp is a passthrough), as XNNPACK fuses activations into convolutions.
void fuse_clamps(Graph& g) {
  ValueUse use = value_use(g);
  const std::vector<int>& readers = use.readers;
  std::vector<int>& producer = use.producer;
  std::vector<bool> drop(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& c = g.nodes[i];
    if (!(node_def(c.kind)->traits & kRangeIsOp) || c.qmode != QMode::kPassthrough || c.nin != 1) continue;
    const auto v = static_cast<size_t>(c.in[0]);
    if (producer[v] < 0 || readers[v] != 1 || g.values[v].is_output) continue;
    Node& p = g.nodes[static_cast<size_t>(producer[v])];
    if (p.qmode != QMode::kRequant) continue;
    p.qlo = std::max(p.qlo, c.out_min);
    p.qhi = std::min(p.qhi, c.out_max);
    p.out = c.out;
    producer[static_cast<size_t>(c.out)] = producer[v];
    drop[i] = true;
  }
  remove_nodes(g, drop);
}

}  // namespace

Error plan_quantized(Graph& g) {
  std::unordered_map<int, int> cache;
  for (Node& n : g.nodes) {
    bool any = g.values[static_cast<size_t>(n.out)].q.kind != QKind::kNone;
    for (int k = 0; k < n.nin; ++k) any = any || g.values[static_cast<size_t>(n.in[k])].q.kind != QKind::kNone;
    if (!any) continue;
    const NodeKindDef& def = *node_def(n.kind);  // the loader admits known kinds only
    const Value& y = g.values[static_cast<size_t>(n.out)];
    if ((def.traits & kRequantizes) && n.filter >= 0) {
      const Value& x = g.values[static_cast<size_t>(n.in[0])];
      const Value& w = g.values[static_cast<size_t>(n.filter)];
      const Value* b = n.bias >= 0 ? &g.values[static_cast<size_t>(n.bias)] : nullptr;
      const int64_t oc = output_channels(g, n);
      const bool integer_weights =
          w.constant && (w.q.kind == QKind::kStatic ||
                         (w.q.kind == QKind::kChannel && static_cast<int64_t>(w.q.scales.size()) == oc));
      const bool integer_bias = b == nullptr || (b->constant && b->q.kind != QKind::kNone);
      if (x.q.kind == QKind::kStatic && y.q.kind == QKind::kStatic && integer_weights && integer_bias) {
        n.qmode = QMode::kRequant;
        n.requant.resize(static_cast<size_t>(oc));
        for (int64_t c = 0; c < oc; ++c) {
          const float r = x.q.scale * weight_scale(w, c) / y.q.scale;
          if (!(r < 256.f)) {
            return ETXNN_FAIL(Error::NotSupported,
                              "node %u (%s): requantization scale %g of output channel %" PRId64
                              " is not below 256 (input scale %g, weight scale %g, output scale %g)",
                              n.index, node_name(n.kind), static_cast<double>(r), c, static_cast<double>(x.q.scale),
                              static_cast<double>(weight_scale(w, c)), static_cast<double>(y.q.scale));
          }
          n.requant[static_cast<size_t>(c)] = r;
        }
        set_quantized_range(n, y.q);
        n.out_min = -INFINITY;
        n.out_max = INFINITY;
        n.has_min_max = false;
        continue;
      }
    }
    if (def.quant.plan_dynamic != nullptr && def.quant.plan_dynamic(g, n)) continue;
    if (def.quant.plan_integer != nullptr && def.quant.plan_integer(g, n)) continue;
    if ((def.traits & kMovesValues) && same_params_throughout(g, n)) {
      // Moving or clamping integers centered on one zero point is exact: no dequantize / quantize pass.
      n.qmode = QMode::kPassthrough;
      const float zy = static_cast<float>(y.q.zero_point);
      if (n.has_min_max || (def.traits & kRangeIsOp)) {
        n.out_min = (n.out_min > -INFINITY ? quantized_bound(n.out_min, y.q) : static_cast<float>(y.q.qmin)) - zy;
        n.out_max = (n.out_max < INFINITY ? quantized_bound(n.out_max, y.q) : static_cast<float>(y.q.qmax)) - zy;
      }
      continue;
    }
    n.qmode = QMode::kGeneric;
    const QKind xk = g.values[static_cast<size_t>(n.in[0])].q.kind;
    if ((def.traits & kOnePass) && n.nin == 1 && (xk == QKind::kNone || xk == QKind::kStatic) &&
        (y.q.kind == QKind::kNone || y.q.kind == QKind::kStatic)) {
      n.qmode = QMode::kOnePass;
      continue;
    }
    if (y.q.kind == QKind::kChannel) {
      return ETXNN_FAIL(Error::NotSupported, "node %u (%s) writes a per-channel quantized value", n.index,
                        node_name(n.kind));
    }
    // Quantized constants become fp32 (the kernel sees real values); the node's operand references follow.
    for (int k = 0; k < n.nin; ++k) {
      const int vi = n.in[k];
      const Value& v = g.values[static_cast<size_t>(vi)];
      if (!v.constant || v.q.kind == QKind::kNone) continue;
      const int real = dequantized_copy(g, vi, &cache);
      n.in[k] = real;
      if (n.filter == vi) n.filter = real;
      if (n.bias == vi) n.bias = real;
    }
  }
  fuse_clamps(g);
  if (etk::qgemm_available()) {
    for (Node& n : g.nodes) {
      const NodeKindDef& def = *node_def(n.kind);
      if (n.qmode == QMode::kRequant && def.quant.pack_int8 != nullptr) def.quant.pack_int8(g, n);
    }
  }
  g.row_scale.assign(g.values.size(), std::vector<float>());
  g.row_offset.assign(g.values.size(), std::vector<float>());
  return Error::Ok;
}

namespace {

// Rows of a dynamic value: the product of its last num_nonbatch_dims dims per row.
int64_t row_length(const Shape& s, uint32_t nonbatch) {
  int64_t r = 1;
  for (size_t d = s.size() > nonbatch ? s.size() - nonbatch : 0; d < s.size(); ++d) r *= s[d];
  return r;
}

// XNNPACK's f32 -> qd8 of one row, in place: the range [min(0, lo), max(0, hi)] onto [-128, 127] with a nudged
// zero point (etk::qd8_row_params); the row becomes q - zero_point; *scale and *offset (zero point + 128) describe
// it. Compiled per ISA level (the rounding vectorizes).
template <typename F>
inline __attribute__((always_inline)) void qd8_row_impl(float* row, int64_t len, float* scale, float* offset, F) {
  float mult, nzp;
  etk::qd8_row_params(row, len, &mult, &nzp);
  const float lo = -128.f - nzp, hi = 127.f - nzp;
  for (int64_t i = 0; i < len; ++i) row[i] = round_even(clampf(row[i] * mult, lo, hi));
  *scale = 1.f / mult;
  *offset = nzp + 128.f;
}
ETK_ISA_DISPATCH(qd8_row, (float* row, int64_t len, float* scale, float* offset, F f), (row, len, scale, offset, f))

}  // namespace

void quant_inputs(Graph& g, const Node& n) {
  if (n.qmode != QMode::kGeneric) return;
  if (g.dequantized.size() < static_cast<size_t>(n.nin)) g.dequantized.resize(static_cast<size_t>(n.nin));
  for (int k = 0; k < n.nin; ++k) {
    const size_t vi = static_cast<size_t>(n.in[k]);
    g.saved_ptrs[k] = g.ptrs[vi];
    const Value& v = g.values[vi];
    if (v.q.kind == QKind::kNone || v.data != nullptr) continue;
    if (k == 0 && n.qb4.panels) continue;  // the int8 4-bit kernel reads the integers themselves
    if (std::find(n.in, n.in + k, n.in[k]) != n.in + k) continue;  // the same value twice: done already
    const Shape& s = g.shapes[vi];
    const int64_t total = numel_of(s);
    etk::aligned_vector<float>& buf = g.dequantized[static_cast<size_t>(k)];
    if (buf.size() < static_cast<size_t>(total)) buf.resize(static_cast<size_t>(total));
    const float* src = g.ptrs[vi];
    if (v.q.kind == QKind::kStatic) {
      const float sc = v.q.scale;
      unary_par(src, buf.data(), total, [=](float c) { return c * sc; });
    } else {
      const int64_t len = std::max<int64_t>(1, row_length(s, v.q.channel_dim));
      const float* rs = g.row_scale[vi].data();
      float* dst = buf.data();
      parallel_rows(total / len, len, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const float sc = rs[r];
          for (int64_t i = r * len; i < (r + 1) * len; ++i) dst[i] = src[i] * sc;
        }
      });
    }
    g.ptrs[vi] = buf.data();
  }
}

void requantize_output(const Node& n, float* y, int64_t total) {
  const int64_t oc = static_cast<int64_t>(n.requant.size());
  const float lo = n.qlo, hi = n.qhi;
  const float* r = n.requant.data();
  parallel_rows(total / oc, oc, [&](int64_t b, int64_t e) {
    for (int64_t m = b; m < e; ++m) {
      float* row = y + m * oc;
      for (int64_t c = 0; c < oc; ++c) row[c] = round_even(clampf(row[c] * r[c], lo, hi));
      if (n.dequant_out != 0.f)
        for (int64_t c = 0; c < oc; ++c) row[c] *= n.dequant_out;
    }
  });
}

Error run_one_pass(Graph& g, const NodeKindDef& def, const Node& n, float* y, int64_t total) {
  const Quant& xq = g.values[static_cast<size_t>(n.in[0])].q;
  const Quant& q = g.values[static_cast<size_t>(n.out)].q;
  const float* x = g.ptrs[static_cast<size_t>(n.in[0])];
  // kGeneric's steps per element: dequantize (quant_inputs), the node's kernel (run_clamp, run_copy: the range, the
  // operation of a kRangeIsOp kind, else the node's output range as apply_output_range applies it), quantize
  // (quant_output: XNNPACK's convert rounding, or its reference kernels').
  const float in_scale = xq.kind == QKind::kStatic ? xq.scale : 1.f;
  const bool convert = (def.traits & kConvertRounding) != 0, quantized = q.kind == QKind::kStatic;
  const bool clamp = (def.traits & kRangeIsOp) || n.has_min_max;
  const float lo = n.out_min, hi = n.out_max;
  const float inv = quantized ? 1.f / q.scale : 1.f, zp = quantized ? static_cast<float>(q.zero_point) : 0.f;
  const float qlo = quantized ? static_cast<float>(q.qmin) - (convert ? zp : 0.f) : 0.f;
  const float qhi = quantized ? static_cast<float>(q.qmax) - (convert ? zp : 0.f) : 0.f;
  unary_par(x, y, total, [=](float v) {
    float d = v * in_scale;
    if (clamp) d = clampf(d, lo, hi);  // keeps NaN, as run_clamp
    if (!quantized) return d;
    return convert ? quantize_like_convert(d, inv, qlo, qhi) : round_even(clampf(d * inv + zp, qlo, qhi)) - zp;
  });
  return Error::Ok;
}

void quant_output(Graph& g, const NodeKindDef& def, const Node& n, float* y, int64_t total) {
  if (n.qmode == QMode::kNone || n.qmode == QMode::kPassthrough || n.qmode == QMode::kInteger ||
      n.qmode == QMode::kDynamicGemm || n.qmode == QMode::kOnePass)
    return;
  if (n.qmode == QMode::kRequant) {
    // The int8 GEMM and the kRequantizesInKernel kinds' kernels (depthwise) requantize as they store.
    if (n.qb.N == 0 && !(def.traits & kRequantizesInKernel)) requantize_output(n, y, total);
    return;
  }
  for (int k = 0; k < n.nin; ++k) g.ptrs[static_cast<size_t>(n.in[k])] = g.saved_ptrs[k];
  const Value& out = g.values[static_cast<size_t>(n.out)];
  const Quant& q = out.q;
  if (q.kind == QKind::kStatic) {
    const float inv = 1.f / q.scale, zp = static_cast<float>(q.zero_point);
    if (def.traits & kConvertRounding) {
      // XNNPACK's f32 -> qs8 convert rounds x / scale, then adds the zero point.
      const float lo = static_cast<float>(q.qmin) - zp, hi = static_cast<float>(q.qmax) - zp;
      unary_par(y, y, total, [=](float v) { return quantize_like_convert(v, inv, lo, hi); });
    } else {
      // Its reference kernels (the quantized operators without a dedicated one) round x / scale + zero_point.
      const float lo = static_cast<float>(q.qmin), hi = static_cast<float>(q.qmax);
      unary_par(y, y, total, [=](float v) { return round_even(clampf(v * inv + zp, lo, hi)) - zp; });
    }
  } else if (q.kind == QKind::kDynamic) {
    // XNNPACK's f32 -> qd8: per row, the range [min(0, lo), max(0, hi)] onto [-128, 127] with a nudged zero point.
    const Shape& s = g.shapes[static_cast<size_t>(n.out)];
    const int64_t len = std::max<int64_t>(1, row_length(s, q.channel_dim));
    const int64_t rows = len > 0 ? total / len : 0;
    std::vector<float>& rs = g.row_scale[static_cast<size_t>(n.out)];
    std::vector<float>& ro = g.row_offset[static_cast<size_t>(n.out)];
    rs.resize(static_cast<size_t>(rows));
    ro.resize(static_cast<size_t>(rows));
    parallel_rows(rows, len, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r)
        qd8_row(y + r * len, len, &rs[static_cast<size_t>(r)], &ro[static_cast<size_t>(r)], 0);
    });
  }
}

void fold_converts(Graph& g) {
  const ValueUse use = value_use(g);
  std::vector<bool> drop(g.nodes.size(), false);
  // The Convert (without an output range) after node i that is the only reader of its output, or null.
  auto convert_reading = [&](size_t i) -> const Node* {
    const int v = g.nodes[i].out;
    if (use.readers[static_cast<size_t>(v)] != 1 || g.values[static_cast<size_t>(v)].is_output) return nullptr;
    for (size_t j = i + 1; j < g.nodes.size(); ++j) {
      const Node& c = g.nodes[j];
      if (std::none_of(c.in, c.in + c.nin, [&](int x) { return x == v; })) continue;
      return c.kind == NodeKind::Convert && c.nin == 1 && !c.has_min_max ? &c : nullptr;
    }
    return nullptr;
  };
  // (Each Convert is folded once: one folded into the node before it is no longer there for the node after it.)
  auto fold = [&](Node& n, const Node& c) {
    n.out = c.out;
    drop[static_cast<size_t>(&c - g.nodes.data())] = true;
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (n.qmode == QMode::kDynamicGemm && n.qb.N > 0) {
      // Convert (fp32 -> qdint8) -> n, whose int8 GEMM quantizes its rows itself (run_qgemm).
      const size_t v = static_cast<size_t>(n.in[0]);
      const int p = use.producer[v];
      if (p < 0 || drop[static_cast<size_t>(p)] || use.readers[v] != 1 || g.values[v].is_output ||
          g.values[v].q.channel_dim != 1)
        continue;
      const Node& c = g.nodes[static_cast<size_t>(p)];
      if (c.kind != NodeKind::Convert || c.nin != 1 || g.values[static_cast<size_t>(c.in[0])].q.kind != QKind::kNone)
        continue;
      n.in[0] = c.in[0];
      n.qd8_input = true;
      drop[static_cast<size_t>(p)] = true;
    } else if (n.qmode == QMode::kRequant && n.into < 0 && !n.fused_away &&
               g.values[static_cast<size_t>(n.out)].q.kind == QKind::kStatic) {
      if (n.qb.N > 0) {
        // Convert (fp32 -> per-tensor quantized) -> n on the int8 GEMM: n quantizes its input as it converts it.
        const size_t v = static_cast<size_t>(n.in[0]);
        const int p = use.producer[v];
        const Quant& q = g.values[v].q;
        if (p >= 0 && !drop[static_cast<size_t>(p)] && use.readers[v] == 1 && !g.values[v].is_output &&
            q.kind == QKind::kStatic) {
          const Node& c = g.nodes[static_cast<size_t>(p)];
          if (c.kind == NodeKind::Convert && c.nin == 1 && !c.has_min_max && c.qmode == QMode::kOnePass &&
              g.values[static_cast<size_t>(c.in[0])].q.kind == QKind::kNone) {
            const float zp = static_cast<float>(q.zero_point);
            n.qb.in_mult = 1.f / q.scale;
            n.qb.in_lo = static_cast<float>(q.qmin) - zp;
            n.qb.in_hi = static_cast<float>(q.qmax) - zp;
            n.in[0] = c.in[0];
            drop[static_cast<size_t>(p)] = true;
          }
        }
      }
      // n -> Convert (per-tensor quantized -> fp32).
      const float scale = g.values[static_cast<size_t>(n.out)].q.scale;
      const Node* c = convert_reading(i);
      if (c == nullptr || g.values[static_cast<size_t>(c->out)].q.kind != QKind::kNone) continue;
      n.dequant_out = scale;
      if (n.qb.N > 0) n.qb.out_scale = scale;
      fold(n, *c);
    } else if (n.qmode == QMode::kNone && ((node_def(n.kind)->traits & kFoldsConvertAfter) || n.silu_input >= 0) &&
               g.values[static_cast<size_t>(n.out)].q.kind == QKind::kNone) {
      // n (fp32) -> Convert (fp32 -> per-tensor quantized).
      const Node* c = convert_reading(i);
      if (c == nullptr || c->qmode != QMode::kOnePass) continue;
      const Quant& q = g.values[static_cast<size_t>(c->out)].q;
      if (q.kind != QKind::kStatic) continue;
      const float zp = static_cast<float>(q.zero_point);
      n.quant_inv = 1.f / q.scale;
      n.qlo = static_cast<float>(q.qmin) - zp;
      n.qhi = static_cast<float>(q.qmax) - zp;
      fold(n, *c);
    }
  }
  remove_nodes(g, drop);
}

void pack_blockwise_weights(Graph& g) {
  const std::vector<int> readers = value_use(g).readers;
  for (Node& n : g.nodes) {
    const NodeKindDef& def = *node_def(n.kind);
    if (def.quant.pack_4bit != nullptr) def.quant.pack_4bit(g, n, readers);
  }
}

namespace {

#if defined(__x86_64__)
// The whole vectors of lut_rows; returns the first element left.
__attribute__((target("avx512f"))) int64_t lut_rows_avx512(const float* x, float* y, int64_t n, const float* lut,
                                                           float base) {
  // x - base is a small non-negative integer: adding 2^23 puts it in the low mantissa bits.
  const __m512 b = _mm512_set1_ps(8388608.f - base);
  const __m512i low = _mm512_set1_epi32(0x7fffff);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i k = _mm512_and_epi32(_mm512_castps_si512(_mm512_add_ps(_mm512_loadu_ps(x + i), b)), low);
    _mm512_storeu_ps(y + i, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), 0xffff, k, lut, 4));
  }
  return i;
}
__attribute__((target("avx2"))) int64_t lut_rows_avx2(const float* x, float* y, int64_t n, const float* lut,
                                                      float base) {
  const __m256 b = _mm256_set1_ps(8388608.f - base);
  const __m256i low = _mm256_set1_epi32(0x7fffff);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i k = _mm256_and_si256(_mm256_castps_si256(_mm256_add_ps(_mm256_loadu_ps(x + i), b)), low);
    _mm256_storeu_ps(y + i, _mm256_i32gather_ps(lut, k, 4));
  }
  return i;
}
#endif

// y[i] = lut[x[i] - base] (x holds integers in the table's range): a gather per vector on AVX-512 and AVX2.
void lut_rows(const float* x, float* y, int64_t n, const float* lut, float base) {
  int64_t i = 0;
#if defined(__x86_64__)
  if (etk::isa_level() == 2) {
    i = lut_rows_avx512(x, y, n, lut, base);
  } else if (etk::isa_level() == 1) {
    i = lut_rows_avx2(x, y, n, lut, base);
  }
#endif
  for (; i < n; ++i) y[i] = lut[static_cast<int32_t>(x[i] - base)];
}

}  // namespace

void lut_activations(Graph& g) {
  const ValueUse use = value_use(g);
  for (Node& h : g.nodes) {
    // (Not a Hardswish: computing it is cheaper than a gather.)
    if (h.quant_inv == 0.f || h.fused_away || h.kind != NodeKind::Multiply || h.silu_input < 0) continue;
    const int v = h.silu_input;
    const int p = use.producer[static_cast<size_t>(v)];
    // Read by h and its fused-away Sigmoid alone.
    if (p < 0 || g.values[static_cast<size_t>(v)].is_output || use.readers[static_cast<size_t>(v)] != 2) continue;
    Node& n = g.nodes[static_cast<size_t>(p)];
    if (n.dequant_out == 0.f || n.qmode != QMode::kRequant || n.qhi - n.qlo > 255.f || n.qhi < n.qlo) continue;
    const NodeKindDef* def = node_def(h.kind);
    const auto count = static_cast<int64_t>(n.qhi - n.qlo) + 1;
    etk::aligned_vector<float> x(static_cast<size_t>(count)), table(static_cast<size_t>(count));
    for (int64_t k = 0; k < count; ++k) x[static_cast<size_t>(k)] = (n.qlo + static_cast<float>(k)) * n.dequant_out;
    const float* saved = g.ptrs[static_cast<size_t>(v)];
    g.ptrs[static_cast<size_t>(v)] = x.data();
    const Error e = def->run(g, h, Shape{count}, table.data());
    g.ptrs[static_cast<size_t>(v)] = saved;
    if (e != Error::Ok) continue;
    h.lut = std::move(table);
    h.lut_base = n.qlo;
    n.dequant_out = 0.f;
    n.qb.out_scale = 0.f;
  }
}

void apply_lut(const Node& n, const float* x, float* y, int64_t total) {
  const float* lut = n.lut.data();
  const float base = n.lut_base;
  parallel_rows(total, kElementwiseCost, [=](int64_t b, int64_t e) { lut_rows(x + b, y + b, e - b, lut, base); });
}

}  // namespace etxnn
