// Running a graph: per call, every node's output shape from the actual input shapes, then its kernel (both
// through the node's kind in node_def, nodes/*.cpp), into buffers shared by liveness; at prepare, the graph
// rewrites (a depthwise convolution with a channel multiplier as a grouped one, SiLU fusion) and the buffer slots.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <chrono>
#include <cstdlib>
#include <memory>

#include <executorch/runtime/kernel/kernel_includes.h>

#include "graph.h"
#include "node_table.h"

namespace etxnn {

namespace {

// Only reachable for a node whose kind bypassed the loader's check.
Error unsupported(const Node& n) {
  return ETXNN_FAIL(Error::NotSupported, "node %u (%s) is not supported", n.index, node_name(n.kind));
}

// EXECUTORCH_XNNPACK_PROFILE=1: time spent per node kind (and how many nodes ran), printed to stderr at exit. A
// diagnostic for docs/xnnpack.md's account of where the time goes; off by default (one getenv per process).
struct KindProfile {
  double us[128] = {};
  int64_t calls[128] = {};
  // EXECUTORCH_XNNPACK_PROFILE=2: also every node of each graph (its last run), with its shape, datatypes and QMode.
  bool per_node = false;
  std::vector<std::pair<const Graph*, std::vector<std::string>>> node_lines;  // graphs in the order first run
  std::mutex mu;
  ~KindProfile() {
    double total = 0;
    for (double v : us) total += v;
    if (total <= 0) return;
    for (size_t i = 0; i < node_lines.size(); ++i) {
      std::fprintf(stderr, "graph %zu:\n", i);
      for (const std::string& line : node_lines[i].second) std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fprintf(stderr, "xnnpack profile (all calls):\n");
    for (int k = 0; k < 128; ++k) {
      if (calls[k] == 0) continue;
      std::fprintf(stderr, "  %-24s %10.1f us %5.1f%% %8" PRId64 " node runs\n", node_name(static_cast<NodeKind>(k)),
                   us[k], 100.0 * us[k] / total, calls[k]);
    }
  }
};

KindProfile* profile() {
  static KindProfile* p = [] {
    const char* env = std::getenv("EXECUTORCH_XNNPACK_PROFILE");
    static KindProfile instance;
    instance.per_node = env != nullptr && env[0] == '2';
    return env != nullptr && (env[0] == '1' || env[0] == '2') ? &instance : nullptr;
  }();
  return p;
}

// The node's kernel: its kind's integer kernel or the one-pass quantized loop for such quantized nodes (quant.cpp),
// else its kind's kernel (which runs on the int8 GEMM or on 4-bit weights where they were packed for it).
Error run_node(Graph& g, const NodeKindDef& def, Node& n, const Shape& so, float* y, int64_t total) {
  if (n.qmode == QMode::kInteger) return def.quant.run_integer(g, n, y, total);
  if (n.qmode == QMode::kOnePass) return run_one_pass(g, def, n, y, total);
  return def.run(g, n, so, y);
}

}  // namespace

Error run_graph(Graph& g, bool do_compute) {
  KindProfile* prof = do_compute ? profile() : nullptr;
  thread_local Shape so;  // reused: no allocation per node once warm
  for (Node& n : g.nodes) {
    so.clear();
    const NodeKindDef* def = node_def(n.kind);
    if (def == nullptr || def->infer_shape == nullptr || def->run == nullptr) return unsupported(n);
    Error e = def->infer_shape(g, n, &so);
    if (e != Error::Ok) return e;
    if (so.size() > kMaxRank) return node_fail(n, "output rank too large:", so);
    int64_t total = 1;
    for (int64_t d : so) {
      if (d < 0 || __builtin_mul_overflow(total, d, &total) || total > kMaxNumel)
        return node_fail(n, "output too large");
    }
    g.shapes[n.out] = so;
    if (!do_compute) continue;
    if (n.fused_away) {
      if (n.elided_concat) g.ptrs[n.out] = (*g.slots)[static_cast<size_t>(g.slot_of[n.out])].data();
      continue;
    }
    float* y = nullptr;
    if (n.into >= 0) {  // channels of an elided concatenation: its buffer, sized here by the first writer
      etk::aligned_vector<float>& buf = (*g.slots)[static_cast<size_t>(g.slot_of[n.into])];
      const size_t need = static_cast<size_t>(so.back() > 0 ? total / so.back() * n.out_stride : 0);
      if (buf.size() < need) buf.resize(need);
      y = buf.data() + n.out_offset;
    } else {
      etk::aligned_vector<float>& buf = (*g.slots)[static_cast<size_t>(g.slot_of[n.out])];
      if (buf.size() < static_cast<size_t>(total)) buf.resize(static_cast<size_t>(total));
      y = buf.data();
    }
    g.ptrs[n.out] = y;
    quant_inputs(g, n);
    if (prof != nullptr) {
      const auto t0 = std::chrono::steady_clock::now();
      e = run_node(g, *def, n, so, y, total);
      quant_output(g, *def, n, y, total);
      const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      const int k = static_cast<int>(n.kind) & 127;
      std::lock_guard<std::mutex> lock(prof->mu);
      prof->us[k] += us;
      ++prof->calls[k];
      if (prof->per_node) {
        auto it = std::find_if(prof->node_lines.begin(), prof->node_lines.end(),
                               [&](const auto& p) { return p.first == &g; });
        if (it == prof->node_lines.end()) it = prof->node_lines.insert(it, {&g, {}});
        std::vector<std::string>& lines = it->second;
        if (lines.size() <= n.index) lines.resize(n.index + 1);
        char line[200];
        const schema::DataType in_type =
            n.in[0] >= 0 ? g.values[static_cast<size_t>(n.in[0])].q.dtype : schema::DataType::fp32;
        std::snprintf(line, sizeof(line), "  node %4u %-22s %8.2f us  -> %s  %s -> %s, qmode %d", n.index,
                      node_name(n.kind), us, shape_str(so).c_str(), schema::EnumNameDataType(in_type),
                      schema::EnumNameDataType(g.values[static_cast<size_t>(n.out)].q.dtype),
                      static_cast<int>(n.qmode));
        lines[n.index] = line;
      }
    } else {
      e = run_node(g, *def, n, so, y, total);
      quant_output(g, *def, n, y, total);
    }
    if (e != Error::Ok) return e;
  }
  return Error::Ok;
}

ValueUse value_use(const Graph& g) {
  ValueUse u{std::vector<int>(g.values.size(), 0), std::vector<int>(g.values.size(), -1)};
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    for (int k = 0; k < n.nin; ++k)
      if (n.in[k] >= 0) ++u.readers[static_cast<size_t>(n.in[k])];
    if (n.post_input >= 0) ++u.readers[static_cast<size_t>(n.post_input)];
    if (n.out >= 0) u.producer[static_cast<size_t>(n.out)] = static_cast<int>(i);
  }
  return u;
}

void remove_nodes(Graph& g, const std::vector<bool>& drop) {
  size_t w = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (drop[i]) continue;
    if (w != i) g.nodes[w] = std::move(g.nodes[i]);
    ++w;
  }
  g.nodes.resize(w);
}

namespace {

// Gives every node output a buffer slot, reusing the slot of a value whose last reader has already run (best fit
// by the serialized size). Graph outputs keep their slot to the end; a node's output never shares a slot with one
// of its own inputs, except a reshape's (below).
void assign_slots(Graph& g) {
  const size_t nv = g.values.size();
  std::vector<int64_t> last(nv, -1);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    for (int k = 0; k < n.nin; ++k)
      if (n.in[k] >= 0) last[static_cast<size_t>(n.in[k])] = static_cast<int64_t>(i);
    for (int v : {n.filter, n.bias, n.post_input})
      if (v >= 0) last[static_cast<size_t>(v)] = static_cast<int64_t>(i);
  }
  g.slot_of.assign(nv, -1);
  std::vector<int64_t> slot_numel;  // the largest serialized size each slot has held
  std::vector<int> free_slots;
  std::vector<bool> released(nv, false);
  auto release = [&](int v) {
    if (v < 0 || released[static_cast<size_t>(v)] || g.slot_of[static_cast<size_t>(v)] < 0) return;
    if (g.values[static_cast<size_t>(v)].is_output) return;
    released[static_cast<size_t>(v)] = true;
    free_slots.push_back(g.slot_of[static_cast<size_t>(v)]);
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.out < 0) continue;
    // A convolution writing into an elided concatenation takes (the first time) the concatenation's slot.
    const size_t out = static_cast<size_t>(n.into >= 0 ? n.into : n.out);
    // A reshape (the same floats under another shape) whose input dies here takes over the input's slot, so
    // run_copy has nothing to copy.
    const int in0 = n.nin == 1 ? n.in[0] : -1;
    if (n.kind == NodeKind::StaticReshape && n.into < 0 && g.slot_of[out] < 0 && in0 >= 0 &&
        (n.qmode == QMode::kNone || n.qmode == QMode::kPassthrough) && g.slot_of[static_cast<size_t>(in0)] >= 0 &&
        last[static_cast<size_t>(in0)] == static_cast<int64_t>(i) && !released[static_cast<size_t>(in0)] &&
        !g.values[static_cast<size_t>(in0)].is_output) {
      g.slot_of[out] = g.slot_of[static_cast<size_t>(in0)];
      released[static_cast<size_t>(in0)] = true;  // its slot lives on as the reshape's
    }
    if (g.slot_of[out] < 0) {
      const int64_t need = numel_of(g.shapes[out]);
      // The smallest free slot that fits, else the largest one (it grows the least).
      auto better = [need](int64_t have, int64_t cur) {
        const bool fits = have >= need;
        if (fits != (cur >= need)) return fits;
        return fits ? have < cur : have > cur;
      };
      int best = -1;
      for (size_t f = 0; f < free_slots.size(); ++f) {
        const int64_t have = slot_numel[static_cast<size_t>(free_slots[f])];
        if (best < 0 || better(have, slot_numel[static_cast<size_t>(free_slots[static_cast<size_t>(best)])]))
          best = static_cast<int>(f);
      }
      if (best >= 0) {
        g.slot_of[out] = free_slots[static_cast<size_t>(best)];
        free_slots.erase(free_slots.begin() + best);
      } else {
        g.slot_of[out] = static_cast<int>(slot_numel.size());
        slot_numel.push_back(0);
      }
      int64_t& sz = slot_numel[static_cast<size_t>(g.slot_of[out])];
      sz = std::max(sz, need);
    }
    for (int k = 0; k < n.nin; ++k)
      if (n.in[k] >= 0 && last[static_cast<size_t>(n.in[k])] == static_cast<int64_t>(i)) release(n.in[k]);
    for (int v : {n.filter, n.bias, n.post_input})
      if (v >= 0 && last[static_cast<size_t>(v)] == static_cast<int64_t>(i)) release(v);
    if (n.into < 0 && last[out] < static_cast<int64_t>(i)) release(n.out);  // never read
  }
  g.num_slots = slot_numel.size();
}

// A depthwise convolution with a channel multiplier (e.g. a stem over a 1-channel input, groups == 1, 64 outputs)
// is a grouped convolution with one input channel per group: it runs on the GEMM as a Conv2d, its filter
// [1, KH, KW, C*m] transposed into OHWI [C*m, KH, KW, 1] once here. (Multiplier 1 keeps the depthwise kernels.)
void depthwise_multiplier_to_conv(Graph& g) {
  for (Node& n : g.nodes) {
    if (n.kind != NodeKind::DepthwiseConv2d || n.gic != 1 || n.goc <= 1 || n.filter < 0) continue;
    Value& f = g.values[static_cast<size_t>(n.filter)];
    const int64_t T = int64_t{n.kh} * n.kw, OC = int64_t{n.groups} * n.goc;
    if (!f.constant || f.dims != Shape{1, n.kh, n.kw, OC}) continue;  // infer_conv reports a bad filter
    const float* fd = materialize(g, f);
    etk::aligned_vector<float> ohwi(static_cast<size_t>(T * OC));
    for (int64_t t = 0; t < T; ++t)
      for (int64_t o = 0; o < OC; ++o) ohwi[static_cast<size_t>(o * T + t)] = fd[t * OC + o];
    g.owned.push_back(std::move(ohwi));
    Value w;
    w.q = f.q;
    if (w.q.kind == QKind::kChannel) w.q.channel_dim = 0;
    w.dims = {OC, n.kh, n.kw, 1};
    w.data = g.owned.back().data();
    w.constant = true;
    n.filter = static_cast<int>(g.values.size());
    if (n.in[1] >= 0) n.in[1] = n.filter;
    g.values.push_back(std::move(w));
    n.kind = NodeKind::Conv2d;
  }
}

// Sigmoid(x) -> s read only by Multiply(x, s) (or (s, x)): the SiLU of EfficientNet-style networks, one pass
// instead of two (and no buffer for s).
void fuse_silu(Graph& g) {
  const std::vector<int> readers = value_use(g).readers;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& sig = g.nodes[i];
    if (sig.kind != NodeKind::Sigmoid || sig.out < 0 || sig.nin != 1) continue;
    const size_t s = static_cast<size_t>(sig.out);
    if (readers[s] != 1 || g.values[s].is_output || sig.qmode != QMode::kNone) continue;
    for (size_t j = i + 1; j < g.nodes.size(); ++j) {
      Node& mul = g.nodes[j];
      if (mul.nin < 1 || std::none_of(mul.in, mul.in + mul.nin, [&](int v) { return v == sig.out; })) continue;
      const int x = sig.in[0];
      const bool pair = mul.kind == NodeKind::Multiply && mul.nin == 2 &&
                        ((mul.in[0] == x && mul.in[1] == sig.out) || (mul.in[1] == x && mul.in[0] == sig.out));
      if (pair && g.shapes[static_cast<size_t>(x)] == g.shapes[s]) {
        sig.fused_away = true;
        mul.silu_input = x;
      }
      break;  // the only reader
    }
  }
}

// A Conv2d / DepthwiseConv2d / FullyConnected with fp32 weights whose output only a Hardswish reads, or only a SiLU
// (fuse_silu's Multiply and its fused-away Sigmoid), or only an Add of two same-shape operands (a residual
// connection, the other operand computed before the layer runs; not after a grouped convolution): the layer applies
// that node to each block of its output as it finishes it (etk::PostOp, on the thread that computed the block) and
// writes that node's output value; the node is removed. MobileNet-V3 has a Hardswish after most of its layers,
// EfficientNet a SiLU, ResNets and inverted residual blocks an Add after their last; each was a pass of its own over
// the output, half of it from the other core's cache.
void fuse_activations(Graph& g) {
  const ValueUse use = value_use(g);
  std::vector<bool> drop(g.nodes.size(), false);
  auto plain = [&](int v) { return v >= 0 && g.values[static_cast<size_t>(v)].q.kind == QKind::kNone; };
  // The node producing v, when it is a layer that can take the post-op and v is read by the fused node(s) alone.
  auto fusable_layer = [&](int v, bool two_operands, int readers = 1) -> Node* {
    const int p = use.producer[static_cast<size_t>(v)];
    if (p < 0 || use.readers[static_cast<size_t>(v)] != readers || g.values[static_cast<size_t>(v)].is_output)
      return nullptr;
    Node& c = g.nodes[static_cast<size_t>(p)];
    const bool layer = (c.kind == NodeKind::Conv2d && (c.groups == 1 || !two_operands)) ||
                       c.kind == NodeKind::DepthwiseConv2d || c.kind == NodeKind::FullyConnected;
    if (!layer || c.fused_away || c.post.fn != nullptr || c.qmode != QMode::kNone || c.dequant_out != 0.f ||
        !plain(c.filter) || !plain(v))
      return nullptr;
    return &c;
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& h = g.nodes[i];
    if (h.out < 0 || h.fused_away || h.qmode != QMode::kNone || h.quant_inv != 0.f || !plain(h.out)) continue;
    Node* c = nullptr;
    if (h.kind == NodeKind::Hardswish && h.nin == 1 && h.in[0] >= 0) {
      c = fusable_layer(h.in[0], false);
      if (c != nullptr) c->post.fn = hardswish_post;
    } else if (h.kind == NodeKind::Multiply && h.silu_input >= 0 && h.nin == 2) {
      // x * sigmoid(x) (fuse_silu): x read by the Multiply and by its fused-away Sigmoid, both removed.
      const int s = h.in[h.in[0] == h.silu_input ? 1 : 0];
      const int sp = s >= 0 ? use.producer[static_cast<size_t>(s)] : -1;
      if (sp < 0 || !g.nodes[static_cast<size_t>(sp)].fused_away || use.readers[static_cast<size_t>(s)] != 1) continue;
      c = fusable_layer(h.silu_input, false, 2);
      if (c == nullptr) continue;
      c->post.fn = silu_post;
      drop[static_cast<size_t>(sp)] = true;
    } else if (h.kind == NodeKind::Add && h.nin == 2 && plain(h.in[0]) && plain(h.in[1]) && h.in[0] != h.in[1]) {
      const Shape& so = g.shapes[static_cast<size_t>(h.out)];
      if (g.shapes[static_cast<size_t>(h.in[0])] != so || g.shapes[static_cast<size_t>(h.in[1])] != so) continue;
      for (int k : {1, 0}) {  // the later layer of the two: the other operand must exist when it runs
        Node* layer = fusable_layer(h.in[k], true);
        const int other = h.in[1 - k];
        if (layer == nullptr || use.producer[static_cast<size_t>(other)] >= use.producer[static_cast<size_t>(h.in[k])])
          continue;
        c = layer;
        c->post.fn = add_post;
        c->post_input = other;
        break;
      }
    }
    if (c == nullptr) continue;
    c->post.lo = h.has_min_max ? h.out_min : -INFINITY;
    c->post.hi = h.has_min_max ? h.out_max : INFINITY;
    c->out = h.out;
    drop[i] = true;
  }
  remove_nodes(g, drop);
}

// One input, same shape out, each element on its own (kElementwise): commutes with any change of layout.
bool elementwise_unary(NodeKind k) {
  const NodeKindDef* def = node_def(k);
  return def != nullptr && (def->traits & kElementwise) != 0;
}

// Transpose -> (Reshape | elementwise)* -> Transpose round trips that give back their input's layout (a layout
// change and its inverse around reshapes that net to no change: what the exporter emits around 1-D convolutions and
// their activations, NHWC -> NCHW, squeeze, LeakyReLU, unsqueeze, NCHW -> NHWC): the transposes and reshapes are not
// run, the elementwise nodes run on the first transpose's input as it is, and the readers of the last transpose read
// the chain's result. Only for unquantized values with static shapes (no inferred reshape dim) that nothing outside
// the chain reads.
void elide_layout_round_trips(Graph& g) {
  const size_t nv = g.values.size();
  const ValueUse use = value_use(g);
  const std::vector<int>&readers = use.readers, &producer = use.producer;
  auto plain = [&](int v) {
    const Value& val = g.values[static_cast<size_t>(v)];
    return val.q.kind == QKind::kNone && !val.constant;
  };
  // A value inside the chain: read only by the next node of the chain, not a graph input or output.
  auto inner = [&](int v) {
    const Value& val = g.values[static_cast<size_t>(v)];
    return plain(v) && readers[static_cast<size_t>(v)] == 1 && !val.is_output && val.external_id < 0 &&
           producer[static_cast<size_t>(v)] >= 0;
  };
  auto one_input = [](const Node& n) { return n.nin == 1 && n.qmode == QMode::kNone; };
  std::vector<bool> drop(g.nodes.size(), false);
  std::vector<int> forward(nv, -1);  // value -> the value its readers read instead
  auto resolve = [&](int v) { return forward[static_cast<size_t>(v)] >= 0 ? forward[static_cast<size_t>(v)] : v; };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& t2 = g.nodes[i];
    if (t2.kind != NodeKind::StaticTranspose || !one_input(t2) || t2.has_min_max || t2.out < 0) continue;
    const Value& out = g.values[static_cast<size_t>(t2.out)];
    if (out.is_output || out.external_id >= 0 || !plain(t2.out)) continue;
    std::vector<size_t> layout{i};  // the nodes not run: t2, the reshapes, t1
    int v = t2.in[0];
    while (inner(v)) {
      const size_t pi = static_cast<size_t>(producer[static_cast<size_t>(v)]);
      const Node& p = g.nodes[pi];
      if (drop[pi] || !one_input(p)) break;
      if (p.kind == NodeKind::StaticReshape && !p.has_min_max) {
        if (std::find(p.v1.begin(), p.v1.end(), 0u) != p.v1.end()) break;  // an inferred dim: shapes may vary
        layout.push_back(pi);
      } else if (!elementwise_unary(p.kind)) {
        break;
      }
      v = p.in[0];
    }
    if (!inner(v)) continue;
    const size_t t1i = static_cast<size_t>(producer[static_cast<size_t>(v)]);
    const Node& t1 = g.nodes[t1i];
    if (t1.kind != NodeKind::StaticTranspose || !one_input(t1) || t1.has_min_max || drop[t1i]) continue;
    const int x = t1.in[0];
    if (x < 0 || !plain(x)) continue;
    // The reshapes net to no change (t1's output shape again), the permutations are inverse: t2 gives x's layout.
    const Shape& xs = g.values[static_cast<size_t>(x)].dims;
    const size_t r = t1.v1.size();
    if (xs.size() != r || t2.v1.size() != r || out.dims != xs ||
        g.values[static_cast<size_t>(t1.out)].dims != g.values[static_cast<size_t>(t2.in[0])].dims)
      continue;
    bool inverse = true;
    for (size_t d = 0; d < r && inverse; ++d) inverse = t2.v1[d] < r && t1.v1[t2.v1[d]] == d;
    if (!inverse) continue;
    layout.push_back(t1i);
    // Forward every dropped node's output to its (forwarded) input, first to last.
    std::sort(layout.begin(), layout.end());
    for (size_t li : layout) {
      drop[li] = true;
      const Node& d = g.nodes[li];
      forward[static_cast<size_t>(d.out)] = resolve(d.in[0]);
    }
  }
  if (std::none_of(drop.begin(), drop.end(), [](bool d) { return d; })) return;
  for (Node& n : g.nodes) {
    for (int k = 0; k < n.nin; ++k)
      if (n.in[k] >= 0) n.in[k] = resolve(n.in[k]);
    if (n.filter >= 0) n.filter = resolve(n.filter);
    if (n.bias >= 0) n.bias = resolve(n.bias);
  }
  remove_nodes(g, drop);
}

// Concatenate(a, b, ...) along the channels (the last dim) of 4-D fp32 (or pass-through quantized) values that are
// each the output of a convolution read by nothing else (SqueezeNet's fire modules, Inception-style branches): the
// convolutions write their channels into the concatenation's buffer, rows out_stride apart, and no copy is made.
void elide_concats(Graph& g) {
  const ValueUse use = value_use(g);
  const std::vector<int>&readers = use.readers, &producer = use.producer;
  auto writes_strided = [&](int v) {
    const int p = producer[static_cast<size_t>(v)];
    if (p < 0 || readers[static_cast<size_t>(v)] != 1) return false;
    const Node& n = g.nodes[static_cast<size_t>(p)];
    const Value& val = g.values[static_cast<size_t>(v)];
    const bool on_float = n.qmode == QMode::kNone || (n.qmode == QMode::kRequant && n.qb.N > 0);
    return n.kind == NodeKind::Conv2d && on_float && !n.fused_away && n.into < 0 && !val.is_output &&
           val.external_id < 0 && g.shapes[static_cast<size_t>(v)].size() == 4;
  };
  for (Node& c : g.nodes) {
    const bool concat = c.kind == NodeKind::Concatenate2 || c.kind == NodeKind::Concatenate3 ||
                        c.kind == NodeKind::Concatenate4 || c.kind == NodeKind::Concatenate5;
    if (!concat || c.out < 0 || (c.qmode != QMode::kNone && c.qmode != QMode::kPassthrough)) continue;
    const Shape& so = g.shapes[static_cast<size_t>(c.out)];
    if (so.size() != 4 || c.axis != 3 || c.out_min != -INFINITY || c.out_max != INFINITY) continue;
    if (g.values[static_cast<size_t>(c.out)].external_id >= 0) continue;
    if (!std::all_of(c.in, c.in + c.nin, writes_strided)) continue;
    int64_t offset = 0;
    for (int k = 0; k < c.nin; ++k) {
      Node& p = g.nodes[static_cast<size_t>(producer[static_cast<size_t>(c.in[k])])];
      p.into = c.out;
      p.out_offset = offset;
      p.out_stride = so[3];
      offset += g.shapes[static_cast<size_t>(c.in[k])][3];
    }
    c.fused_away = true;
    c.elided_concat = true;
  }
}

// The nodes that name each constant with storage (its floats or its pending bytes), in any role, in order.
std::vector<std::vector<size_t>> constant_readers(const Graph& g) {
  std::vector<std::vector<size_t>> readers(g.values.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    auto add = [&](int v) {
      if (v < 0) return;
      const Value& val = g.values[static_cast<size_t>(v)];
      if (val.data == nullptr && val.pending.empty()) return;
      std::vector<size_t>& r = readers[static_cast<size_t>(v)];
      if (r.empty() || r.back() != i) r.push_back(i);
    };
    for (int k = 0; k < n.nin; ++k) add(n.in[k]);
    for (int v : {n.filter, n.bias, n.post_input, n.silu_input, n.into}) add(v);
  }
  return readers;
}

// Whether every node naming constant vi reads only the copy it packed (packed_at_prepare), so that its loaded
// storage can go. Never for a graph input or output.
bool only_packed(const Graph& g, const std::vector<size_t>& readers, int vi) {
  const Value& v = g.values[static_cast<size_t>(vi)];
  if (v.external_id >= 0 || v.is_output) return false;
  return std::all_of(readers.begin(), readers.end(), [&](size_t i) { return packed_at_prepare(g.nodes[i], vi); });
}

// After the quantization plan: an 8-bit constant that every node naming it packed for the int8 GEMM is never
// expanded (its bytes dropped); the others get their floats now.
void materialize_pending(Graph& g) {
  const std::vector<std::vector<size_t>> readers = constant_readers(g);
  for (size_t i = 0; i < g.values.size(); ++i) {
    Value& v = g.values[i];
    if (v.pending.empty()) continue;
    if (only_packed(g, readers[i], static_cast<int>(i)))
      std::vector<uint8_t>().swap(v.pending);
    else
      materialize(g, v);
  }
}

// Releases constant v's loaded storage (its copy in g.owned, or its named data in g.held) once every node naming it
// reads only the copy it packed (packed_at_prepare), so weights are held once, packed, and the loaded ones go as
// their last reader is packed rather than all at the end. Storage another value still points at stays.
void release_if_packed(Graph& g, const std::vector<size_t>& readers, int vi) {
  Value& v = g.values[static_cast<size_t>(vi)];
  if (v.data == nullptr || !only_packed(g, readers, vi)) return;
  for (size_t j = 0; j < g.values.size(); ++j)
    if (j != static_cast<size_t>(vi) && g.values[j].data == v.data) return;
  for (etk::aligned_vector<float>& o : g.owned)
    if (o.data() == v.data) etk::aligned_vector<float>().swap(o);
  for (executorch::runtime::FreeableBuffer& h : g.held)
    if (h.data() == v.data) h.Free();
  v.data = nullptr;
  g.ptrs[static_cast<size_t>(vi)] = nullptr;
}

// The buffers of one execution's intermediate values (Graph::slots), shared by every graph of the process: an
// execution takes a workspace from the pool and gives it back after, so a program split into many delegate calls (a
// transformer whose LayerNorms run outside the delegate has one graph per block) holds one set of buffers, not one
// per graph, while concurrent executions take different workspaces. Emptied when the last graph is destroyed.
struct WorkspacePool {
  std::mutex mu;
  std::vector<std::unique_ptr<std::vector<etk::aligned_vector<float>>>> free;
  size_t users = 0;
};

WorkspacePool& workspace_pool() {
  static WorkspacePool* pool = new WorkspacePool();  // never destroyed: graphs may outlive static destructors
  return *pool;
}

class WorkspaceLease {
 public:
  explicit WorkspaceLease(size_t num_slots) {
    WorkspacePool& p = workspace_pool();
    {
      std::lock_guard<std::mutex> lock(p.mu);
      if (!p.free.empty()) {
        ws_ = std::move(p.free.back());
        p.free.pop_back();
      }
    }
    if (ws_ == nullptr) ws_ = std::make_unique<std::vector<etk::aligned_vector<float>>>();
    if (ws_->size() < num_slots) ws_->resize(num_slots);
  }
  ~WorkspaceLease() {
    WorkspacePool& p = workspace_pool();
    std::lock_guard<std::mutex> lock(p.mu);
    p.free.push_back(std::move(ws_));
  }
  WorkspaceLease(const WorkspaceLease&) = delete;
  WorkspaceLease& operator=(const WorkspaceLease&) = delete;
  std::vector<etk::aligned_vector<float>>* get() const { return ws_.get(); }

 private:
  std::unique_ptr<std::vector<etk::aligned_vector<float>>> ws_;
};

}  // namespace

WorkspaceUser::WorkspaceUser() {
  WorkspacePool& p = workspace_pool();
  std::lock_guard<std::mutex> lock(p.mu);
  ++p.users;
}

WorkspaceUser::~WorkspaceUser() {
  WorkspacePool& p = workspace_pool();
  std::vector<std::unique_ptr<std::vector<etk::aligned_vector<float>>>> drop;
  {
    std::lock_guard<std::mutex> lock(p.mu);
    if (--p.users == 0) drop.swap(p.free);
  }
}

Error prepare_graph(Graph& g) {
  elide_layout_round_trips(g);
  depthwise_multiplier_to_conv(g);
  absorb_input_transposes(g);
  ET_CHECK_OK_OR_RETURN_ERROR(plan_quantized(g));
  materialize_pending(g);
  // Static checks with the serialized shapes, buffer slots, and weight packing.
  g.shapes.assign(g.values.size(), Shape());
  g.ptrs.assign(g.values.size(), nullptr);
  g.slot_of.assign(g.values.size(), -1);
  for (size_t i = 0; i < g.values.size(); ++i) {
    g.shapes[i] = g.values[i].dims;
    g.ptrs[i] = g.values[i].data;
  }
  Error e = run_graph(g, /*compute=*/false);
  if (e != Error::Ok) return e;
  fuse_silu(g);
  fold_converts(g);     // after fuse_silu: a SiLU takes the Convert after it
  lut_activations(g);   // after fold_converts: the SiLUs between quantized layers
  fuse_activations(g);  // after fold_converts: a Hardswish or SiLU that took a Convert stays
  elide_concats(g);
  assign_slots(g);
  pack_blockwise_weights(g);
  const std::vector<std::vector<size_t>> readers = constant_readers(g);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    const NodeKindDef* def = node_def(n.kind);
    if (def != nullptr && def->prepare != nullptr && n.qb.N == 0 && n.qb4.N == 0) def->prepare(g, n);
    for (int v : {n.filter, n.bias})
      if (v >= 0 && !readers[static_cast<size_t>(v)].empty() && readers[static_cast<size_t>(v)].back() == i)
        release_if_packed(g, readers[static_cast<size_t>(v)], v);
  }
  return Error::Ok;
}

namespace {

// The tensor dtype of a graph input or output: float, or int8 / uint8 for a per-tensor quantized value.
executorch::aten::ScalarType external_type(const Value& v) {
  using executorch::aten::ScalarType;
  if (v.q.kind != QKind::kStatic) return ScalarType::Float;
  return v.q.dtype == schema::DataType::quint8 ? ScalarType::Byte : ScalarType::Char;
}

}  // namespace

Error execute_graph(Graph& g, executorch::runtime::Span<executorch::runtime::EValue*> args) {
  using executorch::aten::ScalarType;
  using executorch::aten::Tensor;
  std::lock_guard<std::mutex> lock(g.mu);
  const WorkspaceLease workspace(g.num_slots);
  g.slots = workspace.get();
  for (size_t i = 0; i < g.values.size(); ++i) {
    const Value& v = g.values[i];
    if (v.data != nullptr) {
      g.shapes[i] = v.dims;
      g.ptrs[i] = v.data;
    } else {
      g.ptrs[i] = nullptr;
    }
  }
  // Inputs: physical (dim-order) shapes, data shared.
  for (size_t i = 0; i < g.values.size(); ++i) {
    const Value& v = g.values[i];
    if (v.external_id < 0) continue;
    if (static_cast<size_t>(v.external_id) >= args.size() || args[v.external_id] == nullptr ||
        !args[v.external_id]->isTensor()) {
      return ETXNN_FAIL(Error::InvalidArgument,
                        "external value %" PRId64
                        " is not a tensor argument of the delegate call "
                        "(%zu arguments)",
                        v.external_id, args.size());
    }
    if (!v.is_input) continue;
    const Tensor t = args[v.external_id]->toTensor();
    const ScalarType want = external_type(v);
    if (t.scalar_type() != want) {
      return ETXNN_FAIL(Error::InvalidArgument, "input %" PRId64 " has dtype %s, expected %s", v.external_id,
                        executorch::aten::toString(t.scalar_type()), executorch::aten::toString(want));
    }
    // The tensor's own rank wins (as with xnn_reshape_external_value): a rank-0 scalar may feed a [1] value.
    if (static_cast<size_t>(t.dim()) > kMaxRank) {
      return ETXNN_FAIL(Error::InvalidArgument, "input %" PRId64 " has rank %zd (at most %u)", v.external_id,
                        static_cast<ssize_t>(t.dim()), kMaxRank);
    }
    Shape s(static_cast<size_t>(t.dim()));
    const auto order = t.dim_order();
    for (size_t d = 0; d < s.size(); ++d) {
      const size_t src = order.size() == s.size() ? order[d] : d;
      if (src >= s.size())
        return ETXNN_FAIL(Error::InvalidArgument, "input %" PRId64 " has a bad dim order", v.external_id);
      s[d] = t.sizes()[src];
    }
    if (t.numel() > 0 && t.const_data_ptr() == nullptr) {
      return ETXNN_FAIL(Error::InvalidArgument, "input %" PRId64 " has no data", v.external_id);
    }
    g.shapes[i] = std::move(s);
    if (want == ScalarType::Float) {
      g.ptrs[i] = t.const_data_ptr<float>();
      continue;
    }
    // int8 / uint8 inputs of a quantized value: its integers centered on the zero point, as floats.
    if (g.quantized_inputs.size() < g.values.size()) g.quantized_inputs.resize(g.values.size());
    etk::aligned_vector<float>& buf = g.quantized_inputs[i];
    buf.resize(static_cast<size_t>(t.numel()));
    const float zp = static_cast<float>(v.q.zero_point);
    for (ssize_t k = 0; k < t.numel(); ++k) {
      buf[static_cast<size_t>(k)] = (want == ScalarType::Char ? static_cast<float>(t.const_data_ptr<int8_t>()[k])
                                                              : static_cast<float>(t.const_data_ptr<uint8_t>()[k])) -
                                    zp;
    }
    g.ptrs[i] = buf.data();
  }
  Error e = run_graph(g, /*compute=*/true);
  if (e != Error::Ok) return e;
  // Outputs: resize (logical sizes through the dim order) and copy.
  for (size_t i = 0; i < g.values.size(); ++i) {
    const Value& v = g.values[i];
    if (!v.is_output) continue;
    Tensor t = args[v.external_id]->toTensor();
    const Shape& s = g.shapes[i];
    if (g.ptrs[i] == nullptr)
      return ETXNN_FAIL(Error::InvalidProgram, "output %" PRId64 " is never written", v.external_id);
    const int64_t total = numel_of(s);
    if (static_cast<size_t>(t.dim()) != s.size()) {
      // A different rank (e.g. a rank-0 result of a [1] value) is fine when the element count agrees.
      if (t.numel() != total) {
        return ETXNN_FAIL(Error::InvalidArgument, "output %" PRId64 " has rank %zd, the graph produces %s",
                          v.external_id, static_cast<ssize_t>(t.dim()), shape_str(s).c_str());
      }
    } else {
      std::vector<executorch::aten::SizesType> sizes(s.size());
      const auto order = t.dim_order();
      for (size_t d = 0; d < s.size(); ++d) {
        const size_t dst = order.size() == s.size() ? order[d] : d;
        if (dst >= s.size() || s[d] > 0x7FFFFFFF) {
          return ETXNN_FAIL(Error::InvalidArgument, "output %" PRId64 ": bad dim order or size", v.external_id);
        }
        sizes[dst] = static_cast<executorch::aten::SizesType>(s[d]);
      }
      e = executorch::runtime::resize_tensor(
          t, executorch::runtime::ArrayRef<executorch::aten::SizesType>(sizes.data(), sizes.size()));
      if (e != Error::Ok) {
        return ETXNN_FAIL(e, "output %" PRId64 " cannot take shape %s", v.external_id, shape_str(s).c_str());
      }
    }
    if (total == 0) continue;
    void* dst = t.mutable_data_ptr();
    if (dst == nullptr) return ETXNN_FAIL(Error::InvalidArgument, "output %" PRId64 " has no data", v.external_id);
    const ScalarType want = external_type(v);
    if (want != ScalarType::Float) {
      if (t.scalar_type() != want) {
        return ETXNN_FAIL(Error::InvalidArgument, "output %" PRId64 " has dtype %s, expected %s", v.external_id,
                          executorch::aten::toString(t.scalar_type()), executorch::aten::toString(want));
      }
      const float zp = static_cast<float>(v.q.zero_point);
      for (int64_t k = 0; k < total; ++k) {
        const auto q = static_cast<int32_t>(g.ptrs[i][k] + zp);
        if (want == ScalarType::Char) {
          static_cast<int8_t*>(dst)[k] = static_cast<int8_t>(q);
        } else {
          static_cast<uint8_t*>(dst)[k] = static_cast<uint8_t>(q);
        }
      }
    } else if (t.scalar_type() == ScalarType::Float) {
      std::memmove(dst, g.ptrs[i], static_cast<size_t>(total) * sizeof(float));
    } else if (t.scalar_type() == ScalarType::Long) {
      // Upstream widens int32 results into int64 outputs; for fp32 graphs this only rounds toward zero.
      int64_t* o = static_cast<int64_t*>(dst);
      for (int64_t k = 0; k < total; ++k) o[k] = static_cast<int64_t>(g.ptrs[i][k]);
    } else {
      return ETXNN_FAIL(Error::InvalidArgument, "output %" PRId64 " has dtype %d, expected float", v.external_id,
                        static_cast<int>(t.scalar_type()));
    }
  }
  return Error::Ok;
}

}  // namespace etxnn
