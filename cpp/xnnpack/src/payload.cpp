// Reading an XNNPACK payload: the XH00 header, the flatbuffer (verified), values, constants and nodes (each kind's
// parameters by its reader in node_def). Every id, index and size is checked here, so the interpreter never sees a
// dangling reference.
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include <executorch/runtime/platform/log.h>

#include "graph.h"
#include "node_table.h"

namespace etxnn {

using executorch::runtime::FreeableBuffer;
using executorch::runtime::NamedDataMap;
using executorch::runtime::Result;

const char* node_name(NodeKind kind) {
  const auto k = static_cast<size_t>(kind);
  if (k > static_cast<size_t>(NodeKind::MAX)) return "unknown";
  return schema::EnumNamesNodeUnion()[k];
}

namespace {

const char* datatype_name(schema::DataType t) {
  const auto k = static_cast<int>(t);
  if (k < 0 || k > static_cast<int>(schema::DataType::MAX)) return "unknown";
  return schema::EnumNamesDataType()[k];
}

uint32_t rd32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t rd64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
bool range_ok(uint64_t off, uint64_t size, uint64_t total) {
  uint64_t end = 0;
  return !__builtin_add_overflow(off, size, &end) && end <= total;
}

}  // namespace

Error NodeReader::id(const Node& n, uint32_t raw, int* out, bool optional) const {
  if (raw == kInvalidId && optional) {
    *out = -1;
    return Error::Ok;
  }
  auto it = ids_.find(raw);
  if (it == ids_.end()) {
    return ETXNN_FAIL(Error::InvalidProgram, "node %u (%s) refers to value id %u, which does not exist", n.index,
                      node_name(n.kind), raw);
  }
  *out = it->second;
  return Error::Ok;
}

Error NodeReader::io(Node& n, std::initializer_list<uint32_t> ins, uint32_t outp) const {
  for (uint32_t x : ins) {
    int v = -1;
    ET_CHECK_OK_OR_RETURN_ERROR(id(n, x, &v));
    n.in[n.nin++] = v;
  }
  return id(n, outp, &n.out);
}

// The schema's union type tells these tables apart (node_def is looked up by it), so no node_as_ check.
Error read_node1x1(const NodeReader& r, const schema::Node& xn, Node& n) {
  const auto* p = static_cast<const schema::Node1x1*>(xn.node());
  ET_CHECK_OK_OR_RETURN_ERROR(r.need(n, p));
  n.flags = p->flags();
  return r.io(n, {p->input_id()}, p->output_id());
}

Error read_node2x1(const NodeReader& r, const schema::Node& xn, Node& n) {
  const auto* p = static_cast<const schema::Node2x1*>(xn.node());
  ET_CHECK_OK_OR_RETURN_ERROR(r.need(n, p));
  n.flags = p->flags();
  return r.io(n, {p->input1_id(), p->input2_id()}, p->output_id());
}

namespace {

constexpr uint64_t kMaxElements = uint64_t{1} << 34;

class Loader {
 public:
  Loader(Graph* g, const NamedDataMap* named, const uint8_t* consts, uint64_t consts_size)
      : g_(g), named_(named), consts_(consts), consts_size_(consts_size) {}

  Error load(const schema::Graph* fb) {
    g_->num_externs = fb->num_externs();
    if (g_->num_externs > kMaxExterns) {
      return ETXNN_FAIL(Error::InvalidProgram, "num_externs %u exceeds %u", g_->num_externs, kMaxExterns);
    }
    constant_data_ = fb->constant_data();
    if (fb->constant_buffer() != nullptr && fb->constant_buffer()->size() > 1) {
      return ETXNN_FAIL(Error::NotSupported,
                        "payload stores constants in the deprecated constant_buffer table; re-export "
                        "with a newer ExecuTorch");
    }
    const auto* values = fb->xvalues();
    const size_t nv = values ? values->size() : 0;
    g_->values.reserve(nv);
    for (size_t i = 0; i < nv; ++i) ET_CHECK_OK_OR_RETURN_ERROR(load_value(i, (*values)[i]));
    const auto* nodes = fb->xnodes();
    const size_t nn = nodes ? nodes->size() : 0;
    g_->nodes.reserve(nn);
    for (size_t i = 0; i < nn; ++i) ET_CHECK_OK_OR_RETURN_ERROR(load_node(i, (*nodes)[i]));
    // Externals: unique ids below num_externs.
    std::vector<int> seen(g_->num_externs, -1);
    for (size_t i = 0; i < g_->values.size(); ++i) {
      const Value& v = g_->values[i];
      if (v.external_id < 0) continue;
      if (seen[v.external_id] >= 0) {
        return ETXNN_FAIL(Error::InvalidProgram, "values %d and %zu share external id %" PRId64, seen[v.external_id], i,
                          v.external_id);
      }
      seen[v.external_id] = static_cast<int>(i);
    }
    return Error::Ok;
  }

 private:
  Error load_value(size_t i, const schema::Value* xv) {
    if (xv == nullptr) return ETXNN_FAIL(Error::InvalidProgram, "value %zu is missing", i);
    const schema::TensorValue* tv = nullptr;
    const schema::QuantizedTensorValue* qv = nullptr;
    if (xv->value_type() == schema::ValueUnion::QuantizedTensorValue) {
      qv = xv->value_as_QuantizedTensorValue();
      tv = qv ? qv->tensor_value() : nullptr;
      if (tv == nullptr) return ETXNN_FAIL(Error::InvalidProgram, "quantized value %zu has no tensor", i);
    } else if (xv->value_type() != schema::ValueUnion::TensorValue || (tv = xv->value_as_TensorValue()) == nullptr) {
      return ETXNN_FAIL(Error::InvalidProgram, "value %zu has an unknown kind (%u)", i,
                        static_cast<unsigned>(xv->value_type()));
    }
    if (qv == nullptr && tv->datatype() != schema::DataType::fp32) {
      return ETXNN_FAIL(Error::NotSupported,
                        "value %zu (id %u) has dtype %s; this XNNPACK delegate runs fp32 and quantized (int8 / int4) "
                        "graphs",
                        i, tv->id_out(), datatype_name(tv->datatype()));
    }
    if (tv->dq_datatype() != schema::DataType::invalid) {
      return ETXNN_FAIL(Error::NotSupported,
                        "value %zu (id %u) asks for dynamic quantization to %s through the legacy dq_datatype field; "
                        "re-export with ExecuTorch 1.x (which emits a Convert node to qdint8)",
                        i, tv->id_out(), datatype_name(tv->dq_datatype()));
    }
    Value v;
    v.id_out = tv->id_out();
    if (v.id_out == kInvalidId) return ETXNN_FAIL(Error::InvalidProgram, "value %zu has the invalid id", i);
    const uint32_t nd = tv->num_dims();
    const size_t have = tv->dims() ? tv->dims()->size() : 0;
    if (nd > kMaxRank || nd != have) {
      return ETXNN_FAIL(Error::InvalidProgram, "value %zu: num_dims %u but %zu dims (at most %u)", i, nd, have,
                        kMaxRank);
    }
    uint64_t numel = 1;
    for (uint32_t d = 0; d < nd; ++d) {
      const uint32_t x = tv->dims()->Get(d);
      if (x > 0x7FFFFFFFu || __builtin_mul_overflow(numel, x, &numel) || numel > kMaxElements) {
        return ETXNN_FAIL(Error::InvalidProgram, "value %zu: dims too large", i);
      }
      v.dims.push_back(x);
    }
    const uint32_t flags = tv->flags();
    if ((flags & ~3u) != 0) return ETXNN_FAIL(Error::InvalidProgram, "value %zu has unknown flags 0x%x", i, flags);
    v.is_input = (flags & 1u) != 0;
    v.is_output = (flags & 2u) != 0;
    if (v.is_input || v.is_output) {
      if (tv->external_id() >= g_->num_externs) {
        return ETXNN_FAIL(Error::InvalidProgram, "value %zu: external id %u out of range (num_externs %u)", i,
                          tv->external_id(), g_->num_externs);
      }
      v.external_id = tv->external_id();
    }
    const uint32_t cidx = tv->constant_buffer_idx();
    if (qv != nullptr) {
      const ConstantFetch fetch = [this, i](uint32_t idx, uint64_t nbytes, std::vector<uint8_t>* out) {
        FreeableBuffer held;
        const void* src = nullptr;
        ET_CHECK_OK_OR_RETURN_ERROR(constant_source(i, idx, nbytes, &src, &held));
        out->assign(static_cast<const uint8_t*>(src), static_cast<const uint8_t*>(src) + nbytes);
        return Error::Ok;
      };
      ET_CHECK_OK_OR_RETURN_ERROR(read_quant(i, *qv, fetch, cidx != 0, &v));
      if (v.q.kind == QKind::kDynamic && (v.is_input || v.is_output)) {
        return ETXNN_FAIL(Error::NotSupported, "value %zu (id %u): a dynamically quantized value is a graph %s", i,
                          v.id_out, v.is_input ? "input" : "output");
      }
    }
    if (cidx != 0) {
      if (v.is_input || v.is_output)
        return ETXNN_FAIL(Error::InvalidProgram, "value %zu is both constant and external", i);
      ET_CHECK_OK_OR_RETURN_ERROR(load_constant(i, cidx, numel, &v));
    }
    if (!ids_.emplace(v.id_out, static_cast<int>(g_->values.size())).second) {
      return ETXNN_FAIL(Error::InvalidProgram, "value %zu repeats id %u", i, v.id_out);
    }
    g_->values.push_back(std::move(v));
    return Error::Ok;
  }

  // The bytes of constant `cidx` (exactly `nbytes`): inside the payload, or in the program's named data (then
  // `held` keeps them alive).
  Error constant_source(size_t i, uint32_t cidx, uint64_t nbytes, const void** src, FreeableBuffer* held) {
    if (constant_data_ == nullptr || cidx >= constant_data_->size()) {
      return ETXNN_FAIL(Error::InvalidProgram, "value %zu: constant index %u out of range (%u entries)", i, cidx,
                        constant_data_ ? constant_data_->size() : 0u);
    }
    const auto* cd = constant_data_->Get(cidx);
    if (cd == nullptr) return ETXNN_FAIL(Error::InvalidProgram, "value %zu: constant %u is missing", i, cidx);
    if (cd->size() != nbytes) {
      return ETXNN_FAIL(Error::InvalidProgram, "value %zu: constant %u has %" PRIu64 " bytes, its dims need %" PRIu64,
                        i, cidx, static_cast<uint64_t>(cd->size()), nbytes);
    }
    if (cd->named_key() != nullptr && cd->named_key()->size() > 0) {
      const char* key = cd->named_key()->c_str();
      if (named_ == nullptr) {
        return ETXNN_FAIL(Error::InvalidExternalData,
                          "value %zu: weight '%s' is not in the program and no data file (.ptd) was given; pass "
                          "the program's data file",
                          i, key);
      }
      Result<FreeableBuffer> buf = named_->get_data(key);
      if (!buf.ok()) {
        return ETXNN_FAIL(buf.error() == Error::NotFound ? Error::InvalidExternalData : buf.error(),
                          "value %zu: weight '%s' is neither in the program nor in the data file(s) given (a data "
                          "file of another export?)",
                          i, key);
      }
      if (buf->size() < nbytes) {
        return ETXNN_FAIL(Error::InvalidProgram, "value %zu: named data '%s' has %zu bytes, its dims need %" PRIu64, i,
                          key, buf->size(), nbytes);
      }
      *src = buf->data();
      if (nbytes > 0 && *src == nullptr)
        return ETXNN_FAIL(Error::InvalidProgram, "value %zu: named data '%s' is empty", i, key);
      *held = std::move(*buf);
      return Error::Ok;
    }
    if (!range_ok(cd->offset(), nbytes, consts_size_)) {
      return ETXNN_FAIL(Error::InvalidProgram,
                        "value %zu: constant %u [%" PRIu64 ", +%" PRIu64
                        ") lies outside the "
                        "payload's constant data (%" PRIu64 " bytes)",
                        i, cidx, static_cast<uint64_t>(cd->offset()), nbytes, consts_size_);
    }
    *src = consts_ + cd->offset();
    return Error::Ok;
  }

  // v.data: fp32 named data used in place when aligned; everything else copied out (quantized constants as floats).
  Error load_constant(size_t i, uint32_t cidx, uint64_t numel, Value* v) {
    FreeableBuffer held;
    const void* src = nullptr;
    ET_CHECK_OK_OR_RETURN_ERROR(constant_source(i, cidx, constant_bytes(*v, numel), &src, &held));
    v->constant = true;
    using DT = schema::DataType;
    if (v->q.dtype == DT::qint8 || v->q.dtype == DT::quint8 || v->q.dtype == DT::qcint8) {
      const auto* bytes = static_cast<const uint8_t*>(src);
      v->pending.assign(bytes, bytes + numel);  // floats later, where a node needs them (materialize_pending)
      return Error::Ok;
    }
    if (v->q.dtype == schema::DataType::fp32 && held.data() != nullptr &&
        reinterpret_cast<uintptr_t>(src) % alignof(float) == 0) {
      v->data = static_cast<const float*>(src);
      g_->held.push_back(std::move(held));
      return Error::Ok;
    }
    g_->owned.emplace_back(numel);
    if (numel > 0) constant_to_float(*v, src, g_->owned.back().data());
    v->data = g_->owned.back().data();
    return Error::Ok;
  }

  Error load_node(size_t i, const schema::Node* xn) {
    Node n;
    n.index = static_cast<uint32_t>(i);
    if (xn == nullptr) return ETXNN_FAIL(Error::InvalidProgram, "node %zu is missing", i);
    n.kind = xn->node_type();
    n.debug_handle = xn->debug_handle();
    if (const auto* mm = xn->output_min_max()) {
      n.out_min = mm->output_min();
      n.out_max = mm->output_max();
      n.has_min_max = true;
      if (std::isnan(n.out_min) || std::isnan(n.out_max) || n.out_min > n.out_max) {
        return ETXNN_FAIL(Error::InvalidProgram, "node %zu (%s): invalid output range [%g, %g]", i, node_name(n.kind),
                          n.out_min, n.out_max);
      }
    }
    const NodeKindDef* def = node_def(n.kind);
    if (def == nullptr) {
      return ETXNN_FAIL(Error::NotSupported,
                        "node %zu has unknown kind %u (newer exporter?); this XNNPACK delegate "
                        "knows kinds 1..%u",
                        i, static_cast<unsigned>(n.kind), static_cast<unsigned>(NodeKind::MAX));
    }
    if (def->read == nullptr) {
      return ETXNN_FAIL(Error::NotSupported, "node %zu (%s) is not supported by this XNNPACK delegate", i,
                        node_name(n.kind));
    }
    ET_CHECK_OK_OR_RETURN_ERROR(def->read(NodeReader(ids_), *xn, n));
    // Outputs: never a constant or an external input; inputs: defined before use.
    const Value& o = g_->values[n.out];
    if (o.constant || o.is_input) {
      return ETXNN_FAIL(Error::InvalidProgram, "node %zu (%s) writes value id %u, which is a constant or a graph input",
                        i, node_name(n.kind), o.id_out);
    }
    if (defined_.size() < g_->values.size()) {
      defined_.resize(g_->values.size(), 0);
      for (size_t v = 0; v < g_->values.size(); ++v) {
        if (g_->values[v].constant || g_->values[v].is_input) defined_[v] = 1;
      }
    }
    for (int k = 0; k < n.nin; ++k) {
      if (!defined_[n.in[k]]) {
        return ETXNN_FAIL(Error::InvalidProgram, "node %zu (%s) reads value id %u before any node writes it", i,
                          node_name(n.kind), g_->values[n.in[k]].id_out);
      }
      if (n.in[k] == n.out) {
        return ETXNN_FAIL(Error::InvalidProgram, "node %zu (%s) reads and writes value id %u", i, node_name(n.kind),
                          g_->values[n.out].id_out);
      }
    }
    if (defined_[n.out]) {
      return ETXNN_FAIL(Error::InvalidProgram, "node %zu (%s) writes value id %u a second time", i, node_name(n.kind),
                        g_->values[n.out].id_out);
    }
    defined_[n.out] = 1;
    g_->nodes.push_back(std::move(n));
    return Error::Ok;
  }

  Graph* g_;
  const NamedDataMap* named_;
  const uint8_t* consts_;
  uint64_t consts_size_;
  const flatbuffers::Vector<flatbuffers::Offset<schema::ConstantDataOffset>>* constant_data_ = nullptr;
  std::unordered_map<uint32_t, int> ids_;
  std::vector<uint8_t> defined_;
};

}  // namespace

Error load_graph(const void* blob, size_t size, const NamedDataMap* named, Graph* graph) {
  if (blob == nullptr || size < 8)
    return ETXNN_FAIL(Error::InvalidProgram, "payload is empty or truncated (%zu bytes)", size);
  const auto* p = static_cast<const uint8_t*>(blob);
  uint64_t fb_off = 0, fb_size = size, c_off = 0, c_size = 0;
  if (size >= 30 && std::memcmp(p + 4, "XH00", 4) == 0) {
    const uint16_t hlen = static_cast<uint16_t>(p[8] | (p[9] << 8));
    fb_off = rd32(p + 10);
    fb_size = rd32(p + 14);
    c_off = rd32(p + 18);
    c_size = rd64(p + 22);
    if (hlen < 30 || !range_ok(fb_off, fb_size, size) || !range_ok(c_off, c_size, size) || fb_off < hlen) {
      return ETXNN_FAIL(Error::InvalidProgram,
                        "XH00 header out of range (header %u, flatbuffer [%" PRIu64 ", +%" PRIu64
                        "), constants [%" PRIu64 ", +%" PRIu64 ") in %zu bytes)",
                        hlen, fb_off, fb_size, c_off, c_size, size);
    }
  }
  if (fb_size < 8)
    return ETXNN_FAIL(Error::InvalidProgram, "payload flatbuffer is truncated (%" PRIu64 " bytes)", fb_size);
  const uint8_t* fb = p + fb_off;
  if (std::memcmp(fb + 4, "XN01", 4) != 0 && std::memcmp(fb + 4, "XN00", 4) != 0) {
    char id[5] = {0};
    for (int k = 0; k < 4; ++k) id[k] = (fb[4 + k] >= 32 && fb[4 + k] < 127) ? static_cast<char>(fb[4 + k]) : '?';
    return ETXNN_FAIL(Error::InvalidProgram,
                      "payload identifier is '%s', expected XN00 or XN01 (not an XNNPACK payload?)", id);
  }
  // Verify (and read) an aligned copy: the blob may sit at any offset.
  std::vector<uint64_t> aligned((fb_size + 7) / 8);
  std::memcpy(aligned.data(), fb, fb_size);
  const auto* bytes = reinterpret_cast<const uint8_t*>(aligned.data());
  flatbuffers::Verifier verifier(bytes, fb_size, /*max_depth=*/64, /*max_tables=*/4000000);
  if (!verifier.VerifyBuffer<schema::Graph>(nullptr)) {
    return ETXNN_FAIL(Error::InvalidProgram, "payload flatbuffer failed verification (corrupt or truncated)");
  }
  const schema::Graph* g = flatbuffers::GetRoot<schema::Graph>(bytes);
  Loader loader(graph, named, p + c_off, c_size);
  return loader.load(g);
}

}  // namespace etxnn
