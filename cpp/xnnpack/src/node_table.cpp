// node_def: the families' lists gathered into one table indexed by kind, and the helpers every family uses.
#include "node_table.h"

#include <cinttypes>
#include <cstdio>
#include <iterator>

namespace etxnn {

std::string shape_str(const Shape& s) {
  std::string r = "[";
  char buf[32];
  for (size_t i = 0; i < s.size(); ++i) {
    std::snprintf(buf, sizeof(buf), "%s%" PRId64, i ? ", " : "", s[i]);
    r += buf;
  }
  return r + "]";
}

Error node_fail(const Node& n, const char* what) {
  return ETXNN_FAIL(Error::InvalidArgument, "node %u (%s): %s", n.index, node_name(n.kind), what);
}
Error node_fail(const Node& n, const char* what, const Shape& a) {
  return ETXNN_FAIL(Error::InvalidArgument, "node %u (%s): %s %s", n.index, node_name(n.kind), what,
                    shape_str(a).c_str());
}
Error node_fail(const Node& n, const char* what, const Shape& a, const Shape& b) {
  return ETXNN_FAIL(Error::InvalidArgument, "node %u (%s): %s %s and %s", n.index, node_name(n.kind), what,
                    shape_str(a).c_str(), shape_str(b).c_str());
}

Error same_shape(const Graph& g, const Node& n, Shape* out) {
  *out = g.shapes[n.in[0]];
  return Error::Ok;
}

namespace {

// Kinds of the schema that the delegate rejects at load, by name (not as unknown kinds).
constexpr NodeKindDef kRejected[] = {
    {NodeKind::ArgMaxPooling2d, nullptr, nullptr, nullptr, nullptr},
    {NodeKind::ScaledDotProductAttention, nullptr, nullptr, nullptr, nullptr},
};

struct Table {
  NodeKindDef defs[static_cast<size_t>(NodeKind::MAX) + 1] = {};
  Table() {
    const NodeKindList lists[] = {binary_node_kinds(),  unary_node_kinds(), gemm_node_kinds(),
                                  pooling_node_kinds(), shape_node_kinds(), {kRejected, std::size(kRejected)}};
    for (const NodeKindList& list : lists)
      for (size_t i = 0; i < list.count; ++i) defs[static_cast<size_t>(list.defs[i].kind)] = list.defs[i];
  }
};

}  // namespace

const NodeKindDef* node_def(NodeKind kind) {
  // Built on first use (graphs load after every static initializer has run); the families' lists live in their
  // own translation units, so the table cannot be a constant.
  static const Table table;
  const auto k = static_cast<size_t>(kind);
  if (k > static_cast<size_t>(NodeKind::MAX) || table.defs[k].kind != kind || kind == NodeKind::NONE) return nullptr;
  return &table.defs[k];
}

}  // namespace etxnn
