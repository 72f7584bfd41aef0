// CudaBackend's view of a payload: the embedded program's values and kernel calls (host only, no CUDA types), and
// the per-call plan (shapes and launch parameters) derived from the actual input shapes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/error.h>

#include "descs.h"

namespace etcuda {

using executorch::runtime::ArrayRef;
using executorch::runtime::CompileSpec;
using executorch::runtime::Error;
using executorch::runtime::NamedDataMap;

constexpr size_t kMaxValues = 1u << 20;
constexpr size_t kMaxSteps = 1u << 20;
constexpr size_t kMagicSize = 8;    // "ETCUDA01"
constexpr size_t kHeaderSize = 16;  // magic + u64 length

// The operators of ops.def (ETCUDA_OP), in its order.
enum class Op : uint8_t {
#define ETCUDA_OP(Id, ...) Id,
#include "ops.def"
};

// An operator's "name.overload" and argument letters (ops.def), indexed by Op.
struct OpInfo {
  const char* name;
  const char* args;
};
inline constexpr OpInfo kOps[] = {
#define ETCUDA_OP(Id, name, args, ...) {name, args},
#include "ops.def"
};
inline constexpr size_t kNumOps = sizeof(kOps) / sizeof(kOps[0]);

enum class Kind : uint8_t {
  None,
  Int,
  Double,
  Bool,
  String,
  IntList,
  DoubleList,
  BoolList,
  Tensor,
  TensorList,
  OptionalTensorList
};

struct Value {
  Kind kind = Kind::None;
  int64_t i = 0;
  double d = 0;
  bool b = false;
  std::string s;
  std::vector<int64_t> ints;   // IntList, resolved from its Int values
  std::vector<int32_t> items;  // TensorList / OptionalTensorList: value indices (-1: none)
  // Tensor
  std::vector<int64_t> sizes;     // serialized (upper-bound) shape
  const uint8_t* data = nullptr;  // constant: its bytes inside the payload (valid during init only)
  bool constant = false;
  bool input = false;
  bool written = false;  // some kernel call writes it
};

struct Step {
  Op op;
  std::string name;           // "aten::mm.out"
  std::vector<int32_t> args;  // value indices
};

struct alignas(16) Block16 {
  uint8_t bytes[16];
};

struct Graph {
  std::vector<Block16> storage;  // an aligned copy of the embedded program when the payload is misaligned
  std::vector<Value> values;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<Step> steps;
};

struct Copy {
  int32_t src = -1;
  int32_t dst = -1;
  int64_t src_offset = 0;  // elements
  int64_t dst_offset = 0;
  CopyDesc desc;
};

// What one kernel call does this time (shapes already checked).
struct StepPlan {
  // gemm: out[batch][m][n] = alpha * a[batch][m][k] @ b (b: [k][n], or [n][k] when b_transposed) + beta * out
  int32_t a = -1, b = -1, out = -1;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  bool b_transposed = false;
  float alpha = 1.f, beta = 0.f;
  std::vector<Copy> copies;  // run first: bias/self prefill, or the whole op for the copy ops
  // elementwise
  BinaryDesc bin;
  bool b_scalar = false;
  float scalar = 0.f;
  Fn fn = Fn::None;          // the elementwise function (binary, unary)
  float lo = 0.f, hi = 0.f;  // clamp bounds (+-inf when absent)
  // softmax / layer norm
  bool log = false;  // log_softmax
  int64_t outer = 0, len = 0, inner = 0;
  int32_t weight = -1, bias = -1, mean = -1, rstd = -1;
  float eps = 0.f;
  int64_t numel = 0;  // elements of `out` (memcpy-style copies, unary)
};

struct Plan {
  std::vector<std::vector<int64_t>> shapes;  // per value (tensors only)
  std::vector<StepPlan> steps;
};

// Records "CudaBackend: <message>" through the runtime's error helper (set_last_error: last_error_message(),
// logged) and returns `error`; the format must be a string literal.
#define ETCUDA_FAIL(error, ...) ::executorch::runtime::set_last_error(error, "CudaBackend: " __VA_ARGS__)

// Reads and checks a payload (docs/cuda.md). On error returns non-Ok with the reason set via set_last_error. The
// graph's constant pointers point into `data`.
Error parse_payload(const uint8_t* data, size_t size, ArrayRef<CompileSpec> specs, const NamedDataMap* named_data,
                    Graph* graph);

// Derives every tensor's shape and every call's launch parameters from the shapes of the inputs (in graph.inputs
// order). Fails with the reason set when a shape or argument does not fit.
Error make_plan(const Graph& graph, const std::vector<std::vector<int64_t>>& input_shapes, Plan* plan);

inline int64_t numel_of(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

}  // namespace etcuda
