#pragma once
// The node kinds the delegate runs, each defined in one place: its payload reader, shape rule and kernel sit
// together in its family's file (nodes/*.cpp) and are found through node_def(kind). Adding a kind means writing
// those functions and one entry in its family's list; the loader (payload.cpp) and the interpreter
// (interpreter.cpp) name no kind except in the graph rewrites of prepare_graph. The kernels follow XNNPACK's
// semantics: NHWC activations, OHWI convolution filters, [out, in] fully-connected filters, output_min/output_max
// clamping.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <unordered_map>

#include <executorch/runtime/core/result.h>

#include "graph.h"

namespace etxnn {

// Element counts above this are rejected (outputs, reshapes), so products of dims stay far from int64 overflow.
constexpr int64_t kMaxNumel = int64_t{1} << 34;

// How a node's reader resolves its serialized value ids (to value indices, with the loader's messages).
class NodeReader {
 public:
  explicit NodeReader(const std::unordered_map<uint32_t, int>& ids) : ids_(ids) {}

  // `optional` accepts the invalid id as "none" (-1).
  Error id(const Node& n, uint32_t raw, int* out, bool optional = false) const;
  // Appends `ins` to n.in and sets n.out.
  Error io(Node& n, std::initializer_list<uint32_t> ins, uint32_t outp) const;
  // The flatbuffer node's parameter table, which the verifier lets be absent.
  template <typename T>
  Error need(const Node& n, const T* t) const {
    if (t == nullptr)
      return ETXNN_FAIL(Error::InvalidProgram, "node %u (%s) has no parameters", n.index, node_name(n.kind));
    return Error::Ok;
  }

 private:
  const std::unordered_map<uint32_t, int>& ids_;
};

struct NodeKindDef {
  NodeKind kind;
  // Fills n's operands and parameters from the flatbuffer node (n's kind, index and output range are set);
  // nullptr marks a kind of the schema that the delegate rejects by name.
  Error (*read)(const NodeReader& r, const schema::Node& xn, Node& n);
  // The output shape from the input shapes in g.shapes, checking the parameters against the operands (run once
  // at prepare with the serialized shapes, then per call).
  Error (*infer_shape)(const Graph& g, const Node& n, Shape* out);
  // Computes the output y (shape `so`, from infer_shape) from the inputs in g.ptrs.
  Error (*run)(Graph& g, Node& n, const Shape& so, float* y);
  // Once at prepare, after the graph rewrites and slot assignment (packs constant weights); may be nullptr.
  void (*prepare)(const Graph& g, Node& n);
};

// The definition of `kind`; nullptr for kinds outside the schema (0, or newer than this delegate).
const NodeKindDef* node_def(NodeKind kind);

// The families' lists (nodes/*.cpp), which node_def indexes by kind; a kind appears in one list only.
struct NodeKindList {
  const NodeKindDef* defs;
  size_t count;
};
NodeKindList binary_node_kinds();   // nodes/binary.cpp: broadcasting arithmetic
NodeKindList unary_node_kinds();    // nodes/unary.cpp: activations, math functions, softmax
NodeKindList gemm_node_kinds();     // nodes/gemm.cpp: fully connected, convolutions, batch matmul
NodeKindList pooling_node_kinds();  // nodes/pooling.cpp: pooling, bilinear resize
NodeKindList shape_node_kinds();    // nodes/shape_ops.cpp: reshape, transpose, slice, pad, concatenate, copy

// Readers of the schema's generic parameter tables (payload.cpp).
Error read_node1x1(const NodeReader& r, const schema::Node& xn, Node& n);
Error read_node2x1(const NodeReader& r, const schema::Node& xn, Node& n);

// Shape rule of the nodes whose output has the input's shape.
Error same_shape(const Graph& g, const Node& n, Shape* out);

inline int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// "[1, 2, 3]"
std::string shape_str(const Shape& s);

// InvalidArgument with "node <index> (<kind>): <what> [shapes]".
Error node_fail(const Node& n, const char* what);
Error node_fail(const Node& n, const char* what, const Shape& a);
Error node_fail(const Node& n, const char* what, const Shape& a, const Shape& b);

}  // namespace etxnn
