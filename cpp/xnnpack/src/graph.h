#pragma once
// The delegate's in-memory form of one XNNPACK payload: values (tensors) and nodes, resolved to dense indices
// and checked once at init, plus the per-call state of the interpreter.
//
// Every node runs on the delegate's own fp32 NHWC kernels, defined per node kind (reader, shape rule, kernel) in
// nodes/*.cpp and found through node_table.h; the heavy ones on the GEMM shared with libexecutorch_kernels
// (cpp/cpu), with weights packed once at init (see docs/xnnpack.md).
#include <cmath>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/core/evalue.h>

#include "gemm.h"
#include "qb4gemm.h"
#include "qgemm.h"
#include "winograd.h"
#include "xnnpack_generated.h"

namespace etxnn {

using executorch::runtime::Error;
using executorch::runtime::NamedDataMap;
using NodeKind = schema::NodeUnion;

constexpr uint32_t kInvalidId = 0xFFFFFFFFu;
constexpr uint32_t kMaxRank = 6;
constexpr uint32_t kMaxExterns = 4096;

// XNNPACK flag bits the payload uses.
constexpr uint32_t kFlagTransposeWeights = 0x1;  // FullyConnected: filter [in, out]; BMM: B transposed
constexpr uint32_t kFlagTensorflowLegacy = 0x4;  // ResizeBilinear: legacy (no half-pixel) mode
constexpr uint32_t kFlagSamePadding = 0x4;       // Conv / pooling: TensorFlow SAME padding (not emitted upstream)
constexpr uint32_t kFlagAlignCorners = 0x8;      // ResizeBilinear
constexpr uint32_t kFlagKeepDims = 0x40;         // pooling / reductions

using Shape = std::vector<int64_t>;

// How a value is quantized (quant.cpp). Quantized values are held as floats, so every fp32 kernel serves them:
//   kStatic   per-tensor qint8 / quint8 / qint32: the float of q - zero_point (an integer), scale `scale`;
//   kChannel  per-channel constants (qcint8 / qcint4 / qcint32 weights and biases): the float of q - zero_point,
//             one scale per index along `channel_dim`;
//   kDynamic  qdint8 activations quantized at run time per row (token) of the last dim: q - zero_point of that
//             row, the rows' scales in Graph::row_scale.
// Blockwise qbint4 weights are dequantized to fp32 at load (their value is then not quantized).
enum class QKind : uint8_t { kNone, kStatic, kChannel, kDynamic };

struct Quant {
  QKind kind = QKind::kNone;
  schema::DataType dtype = schema::DataType::fp32;
  float scale = 1.f;
  int32_t zero_point = 0;
  int32_t qmin = 0, qmax = 0;  // the datatype's range (q, not centered)
  std::vector<float> scales;   // kChannel
  uint32_t channel_dim = 0;    // kChannel: the channel dim; kDynamic: the number of non-batch (row) dims
  int32_t group_size = 0;      // blockwise weights (while loading)
};

// Both per-tensor quantized with one datatype, scale and zero point (the same integers mean the same reals).
inline bool same_static_quant(const Quant& a, const Quant& b) {
  return a.kind == QKind::kStatic && b.kind == QKind::kStatic && a.dtype == b.dtype && a.scale == b.scale &&
         a.zero_point == b.zero_point;
}

struct Value {
  Shape dims;                   // as serialized (example shapes for non-constants)
  const float* data = nullptr;  // constants only: their floats (see pending; null once released after packing)
  bool constant = false;        // a constant of the payload (or a rewrite's copy of one)
  // An 8-bit quantized constant's bytes as loaded (data null): only the nodes that need its floats get them
  // (materialize_pending, after the quantization plan); the int8 GEMM packs from these bytes, a layer at a time,
  // so the weights are never all expanded to floats at once.
  std::vector<uint8_t> pending;
  int64_t external_id = -1;  // position in the DelegateCall args, or -1
  bool is_input = false;
  bool is_output = false;
  uint32_t id_out = 0;
  Quant q;
  // Blockwise 4-bit weights (qbint4), dequantized into data at load: their group size and scales, so that a fully
  // connected node can keep them 4-bit (Node::qb4) and the fp32 copy can be dropped.
  int64_t block_group = 0;
  std::vector<float> block_scales;
};

// How a node treats quantized operands (decided at prepare, quant.cpp, from its kind's NodeKindDef: node_table.h):
//   kNone     fp32 only;
//   kRequant  a node of a kRequantizes kind (convolutions, fully connected) on a static quantized input with integer
//             weights: the fp32 kernel accumulates the integers exactly, then each output channel is requantized like
//             XNNPACK (acc * input_scale * weight_scale / output_scale, rounded to nearest even, clamped);
//   kPassthrough  a node of a kMovesValues kind (reshape, transpose, slice, concatenate, max pooling, clamp) whose
//             operands share one datatype, scale and zero point: the fp32 kernel runs on the centered integers
//             directly (its output range converted to them);
//   kGeneric  any other node with quantized operands: its inputs are dequantized, the fp32 kernel runs, and its
//             output is quantized (per tensor, or per row for a dynamic output).
//   kInteger  a node its kind's QuantKernels::plan_integer takes (Add / Multiply of two same-shaped quantized
//             activations, global average pooling of one): XNNPACK's integer arithmetic (QuantKernels::run_integer
//             instead of the fp32 kernel).
//   kDynamicGemm  a node its kind's QuantKernels::plan_dynamic takes (fully connected on a dynamically quantized
//             input with per-channel int8 / int4 weights: qd8 x qc8w, fp32 out) on the int8 GEMM.
//   kOnePass  a node of a kOnePass kind (Clamp, Convert) between per-tensor quantized (or fp32) values with different
//             parameters: kGeneric's dequantize, operation and quantize in one pass over the elements (run_one_pass;
//             the same arithmetic).
enum class QMode : uint8_t { kNone, kRequant, kPassthrough, kGeneric, kInteger, kDynamicGemm, kOnePass };

struct Node {
  NodeKind kind = NodeKind::NONE;
  uint32_t index = 0;  // position in xnodes (for messages)
  uint32_t debug_handle = 0;
  int in[5] = {-1, -1, -1, -1, -1};
  int nin = 0;
  int out = -1;
  uint32_t flags = 0;
  float out_min = -INFINITY;
  float out_max = INFINITY;
  bool has_min_max = false;
  // convolution / pooling
  uint32_t pad_t = 0, pad_r = 0, pad_b = 0, pad_l = 0;
  uint32_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  uint32_t gic = 0, goc = 0, groups = 1, adj_h = 0, adj_w = 0;
  int filter = -1, bias = -1;
  // others
  uint32_t axis = 0;
  float alpha = 0.f;
  uint32_t new_h = 0, new_w = 0;
  std::vector<uint32_t> v1, v2;  // perm / new_shape / offsets / pre_paddings ; sizes / post_paddings
  // Fusion (decided at prepare): a Sigmoid whose only reader is the Multiply x * sigmoid(x) is not computed
  // (fused_away); that Multiply computes SiLU of silu_input in one pass.
  bool fused_away = false;
  int silu_input = -1;
  // A convolution / fully connected layer that runs the Hardswish or the residual Add after it on each block of its
  // output (fuse_activations; that node removed): fn is null otherwise. An Add's other operand is value
  // post_input (read by this node from then on: its buffer lives until this node has run).
  etk::PostOp post;
  int post_input = -1;
  // A Concatenate along channels whose inputs all come from convolutions read by it alone is not computed either
  // (fused_away, elided_concat): each convolution writes its channels straight into the concatenation's buffer
  // (value `into`, from channel out_offset, rows out_stride floats apart).
  bool elided_concat = false;
  int into = -1;
  int64_t out_offset = 0, out_stride = 0;
  // A convolution that reads its input in NCHW (the transpose to NHWC before it not run; absorb_input_transposes).
  bool nchw_input = false;
  std::vector<etk::PackedB> packed;  // weights (+ bias) packed at init, one per group (constant filter and bias)
  etk::PackedWinograd wino;          // or a 3x3 convolution's, transformed for Winograd (wino.OC > 0; gemm.cpp)
  etk::PackedWinogradQ8 wino_q8;     // a static int8 3x3 convolution's, for int8 Winograd (wino_q8.OC > 0)
  // A depthwise convolution's constant filter [T][C], then its bias at a multiple of 16 floats, copied at init onto
  // cache lines (a .pte aligns constants to 16 bytes at best: each 64-byte weight load would span two lines).
  etk::aligned_vector<float> dw_weights;
  etk::aligned_vector<float> scratch;  // per-call work buffer (padded input, transposed convolution columns)
  std::vector<const float*> table;     // convolution segment pointers, valid for table_key (input address, shapes)
  std::vector<int64_t> table_key;
  // Quantized operands (quant.cpp).
  QMode qmode = QMode::kNone;
  etk::aligned_vector<float> requant;  // kRequant: per output channel
  float qlo = 0.f, qhi = 0.f;          // kRequant, quant_inv: the output's clamp range, centered (q - zero_point)
  etk::PackedQB qb;                    // kRequant fully connected / convolution on the int8 GEMM (qb.N > 0)
  etk::QActivations qact;              // per call: such a convolution's input as the int8 GEMM's bytes
  // Such a convolution on padded rows (an image stem) whose filter rows are not whole 4-byte groups (3 x 3
  // channels): its padded input has padded_c channels, the extra ones zero, and its weights zero rows for them, so
  // the int8 GEMM reads each filter row in place instead of copying it per output pixel (0: gic channels).
  uint32_t padded_c = 0;
  etk::PackedQB4 qb4;  // a fully connected node with blockwise 4-bit weights kept 4-bit (qb4.N > 0)
  // A kDynamicGemm fully connected node that reads the fp32 input of the Convert to qdint8 before it (the Convert
  // removed, fold_converts): the int8 GEMM quantizes each row as it converts it.
  bool qd8_input = false;
  // A kRequant node that writes the fp32 output of the Convert after it (the Convert removed, fold_converts): its
  // requantized outputs (q - zero_point) times this scale (0: not folded; qb.out_scale too on the int8 GEMM).
  float dequant_out = 0.f;
  // An fp32 node (Hardswish, SiLU) that writes the quantized output of the Convert after it (the Convert removed,
  // fold_converts): quantize_like_convert with this 1 / scale and [qlo, qhi], in the same pass (0: not folded).
  float quant_inv = 0.f;
  // Such a SiLU whose input is a requantizing node's output dequantized (dequant_out) is a function of that node's
  // 8-bit values: lut[q - lut_base] is its quantized output (lut_activations; the layer before then stores q -
  // zero_point, without the dequantization).
  etk::aligned_vector<float> lut;
  float lut_base = 0.f;
};

// Every live graph holds one: the workspaces (interpreter.cpp) are released when the last graph is destroyed.
struct WorkspaceUser {
  WorkspaceUser();
  ~WorkspaceUser();
  WorkspaceUser(const WorkspaceUser&) = delete;
  WorkspaceUser& operator=(const WorkspaceUser&) = delete;
};

struct Graph {
  std::vector<Value> values;
  std::vector<Node> nodes;
  uint32_t num_externs = 0;
  std::vector<executorch::runtime::FreeableBuffer> held;  // named-data buffers constants point into
  std::vector<etk::aligned_vector<float>> owned;          // constants copied out of the blob
  // Per-call state (guarded by mu).
  std::mutex mu;
  std::vector<Shape> shapes;
  std::vector<const float*> ptrs;
  // Intermediate values share buffers by liveness (assigned once at prepare): a value's buffer is reused by a
  // later node once its last reader has run, so a deep network touches a few cache-resident buffers instead of
  // one fresh buffer per node. slot_of[value] is -1 for constants and external inputs. The buffers themselves
  // belong to a Workspace, shared by every graph (execute_graph): slots points at its buffers during a call.
  std::vector<int> slot_of;
  size_t num_slots = 0;
  std::vector<etk::aligned_vector<float>>* slots = nullptr;
  WorkspaceUser workspace_user;
  // kDynamic values: the scale of each row, written by the node that quantizes them (per call).
  std::vector<std::vector<float>> row_scale;
  std::vector<std::vector<float>> row_offset;                // and of each row, zero_point + 128 (its u8 = q + 128)
  std::vector<etk::aligned_vector<float>> dequantized;       // per-call scratch: a kGeneric node's dequantized inputs
  const float* saved_ptrs[5] = {};                           // and their own pointers, restored after the node
  std::vector<etk::aligned_vector<float>> quantized_inputs;  // per-call: int8 / uint8 graph inputs as floats
};

// Name of a node kind, e.g. "Conv2d".
const char* node_name(NodeKind kind);

struct NodeKindDef;  // node_table.h

// Records "XnnpackBackend: <message>" through the runtime's error helper (set_last_error: last_error_message(),
// logged) and returns `error`; the format must be a string literal.
#define ETXNN_FAIL(error, ...) ::executorch::runtime::set_last_error(error, "XnnpackBackend: " __VA_ARGS__)

// Parses and checks a processed blob (XH00 header or bare flatbuffer). Constants come from `named` (may be null)
// or are copied out of the blob's constant region, so the blob may be freed afterwards.
Error load_graph(const void* blob, size_t size, const executorch::runtime::NamedDataMap* named, Graph* graph);

// Checks the graph once with the serialized shapes and packs constant weights (after load_graph).
Error prepare_graph(Graph& g);

// Infers every node's output shape from the given input shapes (shapes must hold the constants' and external
// inputs' shapes); with `compute` also runs the kernels (ptrs must hold the inputs' data).
Error run_graph(Graph& g, bool compute);

// Who reads and writes each value (the graph rewrites at prepare): readers[v] counts the node inputs naming v,
// producer[v] is the node writing v (-1 for constants and graph inputs).
struct ValueUse {
  std::vector<int> readers, producer;
};
ValueUse value_use(const Graph& g);
// Removes the nodes marked in `drop`, keeping the others' order.
void remove_nodes(Graph& g, const std::vector<bool>& drop);

// Convolutions that copy their input into a padded buffer anyway (few input channels: an image stem) and read it
// through a NCHW -> NHWC transpose nothing else reads (fp32, or quantized with the same parameters on both sides):
// they copy from the NCHW tensor, and the transpose is not run (nodes/gemm.cpp; at prepare, before the quantization
// plan).
void absorb_input_transposes(Graph& g);
// Whether a Conv2d node pads its input once and reads one segment per filter row (few input channels; nodes/gemm.cpp).
bool conv_uses_padded_rows(const Node& n);
// etk::PostOp functions of a layer that took the node after it (fuse_activations), in place, clamped to [lo, hi]:
// Hardswish (nodes/unary.cpp), y + o and SiLU (nodes/binary.cpp). Only add_post reads a second operand.
void hardswish_post(float* y, const float* o, int64_t n, float lo, float hi);
void add_post(float* y, const float* o, int64_t n, float lo, float hi);
void silu_post(float* y, const float* o, int64_t n, float lo, float hi);

// Quantized graphs (quant.cpp). Copies `nbytes` bytes of constant `index` (of the payload's constant data) into
// `out`, with the loader's checks and messages.
using ConstantFetch = std::function<Error(uint32_t index, uint64_t nbytes, std::vector<uint8_t>* out)>;
// Reads a QuantizedTensorValue's parameters into v->q (v's dims and id are set), checking them against the dims.
Error read_quant(size_t index, const schema::QuantizedTensorValue& qv, const ConstantFetch& fetch, bool is_constant,
                 Value* v);
// Bytes a constant of `v`'s datatype occupies in the payload (numel elements).
uint64_t constant_bytes(const Value& v, uint64_t numel);
// Turns a constant's payload bytes into its floats: q - zero_point, or for blockwise 4-bit weights the dequantized
// fp32 values (v.q is then reset to fp32).
void constant_to_float(Value& v, const void* src, float* dst);
// At prepare (after the serialized shapes are known): decides each node's QMode, computes requantization scales,
// and gives the nodes that need real-valued weights dequantized copies of quantized constants.
Error plan_quantized(Graph& g);
// Converts folded into the node next to them, and removed (after plan_quantized and fuse_silu): a Convert from fp32
// to qdint8 read only by a kDynamicGemm fully connected node on the int8 GEMM (that node reads the Convert's input
// and quantizes its rows itself, Node::qd8_input); a Convert from a per-tensor quantized value to fp32 that is the
// only reader of a kRequant node's output (that node dequantizes as it stores, Node::dequant_out); a Convert from
// fp32 to a per-tensor quantized value that is the only reader of an fp32 Hardswish or SiLU (that node quantizes as
// it stores, Node::quant_inv). The same arithmetic, one pass over the activations and one node less.
void fold_converts(Graph& g);
// After fold_converts: an fp32 SiLU that quantizes its output (quant_inv) and reads only the dequantized output of
// a requantizing node (dequant_out) is tabulated over that node's 8-bit values, computed by the node's own kernel at
// prepare (so bit for bit the same), and the layer before no longer dequantizes. (A Hardswish is cheaper to compute
// than to gather.)
void lut_activations(Graph& g);
// A lut_activations node's outputs.
void apply_lut(const Node& n, const float* x, float* y, int64_t total);
// Before / after a node's kernel (run_graph): dequantizes a kGeneric node's quantized inputs into scratch
// (swapping g.ptrs), then restores g.ptrs and quantizes its output, or requantizes a kRequant node's output.
void quant_inputs(Graph& g, const Node& n);
void quant_output(Graph& g, const NodeKindDef& def, const Node& n, float* y, int64_t total);
// A kRequant node's output accumulated in fp32 (`total` values, n.requant.size() channels innermost): requantized in
// place. (Depthwise convolutions call it themselves, or requantize inside their kernel.)
void requantize_output(const Node& n, float* y, int64_t total);
// Weights kept 4-bit (QuantKernels::pack_4bit of each node's kind), their fp32 copy released when nothing else
// reads it. After prepare's shape pass.
void pack_blockwise_weights(Graph& g);
// A kOnePass node's output (`def`: its kind's).
Error run_one_pass(Graph& g, const NodeKindDef& def, const Node& n, float* y, int64_t total);

// A constant's floats (q - zero_point for quantized ones): its data, or its pending bytes converted into `tmp`.
const float* constant_floats(const Value& v, std::vector<float>* tmp);
// A pending constant whose floats are its bytes as int8 (qint8 / qcint8, zero point 0): those bytes, else null.
const int8_t* pending_int8(const Value& v);
// Gives a pending constant its floats for good (v.data, in g.owned).
const float* materialize(Graph& g, Value& v);

// Whether node n reads constant `value` only through the copy its kind packed at prepare (filter and bias packed
// for the GEMM, a depthwise filter copied onto cache lines), so that its loaded storage may be released
// (nodes/gemm.cpp).
bool packed_at_prepare(const Node& n, int value);

// Executes the graph on the DelegateCall's args (inputs and outputs by external id).
Error execute_graph(Graph& g, executorch::runtime::Span<executorch::runtime::EValue*> args);

}  // namespace etxnn
