#pragma once
// The node kinds the delegate runs, each defined in one place: its entry in its family's list (nodes/*.cpp) names
// its payload reader, shape rule, fp32 kernel, weight packing, traits (what the quantization plan and the graph
// rewrites may do with it) and quantized kernels, all in that file, found through node_def(kind). Adding a kind
// means writing those functions and one entry; the loader (payload.cpp), the quantization plan (quant.cpp) and the
// interpreter (interpreter.cpp) consult the entry and name no kind except in the graph rewrites of prepare_graph,
// which match patterns of particular kinds (SiLU = Sigmoid and Multiply, Convert folding, transposes around
// reshapes, post-op fusion, concatenation elision). The kernels follow XNNPACK's semantics: NHWC activations, OHWI
// convolution filters, [out, in] fully-connected filters, output_min/output_max clamping.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <unordered_map>
#include <vector>

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

// What the quantization plan and the graph rewrites may do with a kind (NodeKindDef::traits, bits).
enum NodeTrait : uint32_t {
  kNoTraits = 0,
  // One input, each output element a function of its input element alone: commutes with any change of layout
  // (elide_layout_round_trips runs it on the untransposed tensor).
  kElementwise = 1u << 0,
  // Only moves, selects or clamps values: when all its operands share one datatype, scale and zero point, its fp32
  // kernel runs on the centered integers (QMode::kPassthrough).
  kMovesValues = 1u << 1,
  // Its operation is its output range (Clamp): a passthrough converts the range even when the node carries none,
  // and one reading a requantizing node's output alone narrows that node's clamp instead (fuse_clamps).
  kRangeIsOp = 1u << 2,
  // One input: between per-tensor quantized (or fp32) values of other parameters, dequantize, operation and quantize
  // in one pass over the elements (QMode::kOnePass, run_one_pass).
  kOnePass = 1u << 3,
  // Quantizes as XNNPACK's f32 -> qs8 convert (x / scale rounded, then the zero point added), not as its reference
  // kernels (x / scale + zero point, rounded): Convert.
  kConvertRounding = 1u << 4,
  // Accumulates input x constant weight products (exact in fp32 for integers): on per-tensor quantized input and
  // output with integer weights, its fp32 kernel runs on the integers and the output is requantized per channel
  // (QMode::kRequant).
  kRequantizes = 1u << 5,
  // (kRequantizes) its kernel requantizes as it stores, always (quant_output leaves the output as it is).
  kRequantizesInKernel = 1u << 6,
  // Its kernel can quantize its output as it stores (Node::quant_inv): a Convert from fp32 to a per-tensor quantized
  // value that alone reads its output is folded into it (fold_converts).
  kFoldsConvertAfter = 1u << 7,
};

// A kind's own quantized kernels, beyond what the traits let its fp32 kernel do (nullptr: none). Quantized nodes
// that none of these take dequantize their inputs, run the fp32 kernel and quantize the output (QMode::kGeneric).
struct QuantKernels {
  // XNNPACK's integer arithmetic (QMode::kInteger): whether it applies to n (then it sets n.requant, n.qlo, n.qhi
  // and n.qmode), and the kernel computing the output's `total` elements.
  bool (*plan_integer)(Graph& g, Node& n) = nullptr;
  Error (*run_integer)(Graph& g, Node& n, float* y, int64_t total) = nullptr;
  // A dynamically quantized input with per-channel integer weights, fp32 output, on the int8 GEMM
  // (QMode::kDynamicGemm): whether it applies to n (then it packs n.qb and sets n.qmode).
  bool (*plan_dynamic)(Graph& g, Node& n) = nullptr;
  // A kRequant node moved onto the int8 GEMM, where the CPU has one: packs n.qb (n.qb.N > 0; the fp32 kernel
  // then runs on the int8 GEMM) or leaves n as it is.
  void (*pack_int8)(const Graph& g, Node& n) = nullptr;
  // Blockwise 4-bit weights kept 4-bit (after prepare's shape pass; `readers` counts each value's readers): packs
  // n.qb4 (n.qb4.N > 0) and may release the weights' fp32 copy.
  void (*pack_4bit)(Graph& g, Node& n, const std::vector<int>& readers) = nullptr;
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
  uint32_t traits = kNoTraits;  // NodeTrait bits
  QuantKernels quant = {};
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

// XNNPACK's quantization of an fp32 output bound: lrintf(clamp(bound / scale + zero_point)) (quant.cpp).
float quantized_bound(float bound, const Quant& q);
// n.qlo / n.qhi: the range of n's per-tensor quantized output y on its centered integers, [qmin, qmax] narrowed by
// n's output range (quantized_bound) when it has one.
void set_quantized_range(Node& n, const Quant& y);

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
