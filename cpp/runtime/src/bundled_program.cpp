// Bundled programs (.bpte, schema/bundled_program.fbs): the program inside, test inputs, output comparison.
#include <executorch/devtools/bundled_program/bundled_program.h>
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/memory_allocator/planned_memory.h>
#include <executorch/runtime/executor/program.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>

#include "bundled_program_generated.h"
#include "internal.h"

namespace executorch {
namespace bundled_program {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
using ::executorch::aten::TensorImpl;
using ::executorch::runtime::Error;
using ::executorch::runtime::EValue;
using ::executorch::runtime::Result;
using ::executorch::runtime::set_last_error;

namespace {

constexpr size_t kMaxRank = 16;

const char* value_kind(et_bundled::ValueUnion t) {
  switch (t) {
    case et_bundled::ValueUnion::Tensor: return "tensor";
    case et_bundled::ValueUnion::Int: return "int";
    case et_bundled::ValueUnion::Bool: return "bool";
    case et_bundled::ValueUnion::Double: return "double";
    default: return "unknown value";
  }
}

// Checks one bundled tensor: a known dtype, rank, non-negative sizes, a dim order that is a permutation, and data
// of exactly numel * element size bytes, aligned to the element size.
Error check_tensor(const et_bundled::Tensor* t, const char* where) {
  const auto type = static_cast<ScalarType>(t->scalar_type());
  if (!executorch::aten::isValid(type)) {
    return set_last_error(Error::InvalidProgram, "bundled program: %s has an unknown dtype (%d)", where,
                          static_cast<int>(t->scalar_type()));
  }
  const size_t rank = t->sizes() != nullptr ? t->sizes()->size() : 0;
  if (rank > kMaxRank) {
    return set_last_error(Error::InvalidProgram, "bundled program: %s has rank %zu (at most %zu)", where, rank,
                          kMaxRank);
  }
  uint64_t numel = 1;
  for (size_t d = 0; d < rank; ++d) {
    const int32_t s = t->sizes()->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (s < 0) return set_last_error(Error::InvalidProgram, "bundled program: %s has a negative size", where);
    if (::executorch::runtime::internal::mul_overflows(numel, static_cast<uint64_t>(s), &numel)) {
      return set_last_error(Error::InvalidProgram, "bundled program: %s has too many elements", where);
    }
  }
  const size_t order = t->dim_order() != nullptr ? t->dim_order()->size() : 0;
  if (order != 0 && order != rank) {
    return set_last_error(Error::InvalidProgram, "bundled program: %s has %zu sizes but %zu dim-order entries", where,
                          rank, order);
  }
  bool seen[kMaxRank] = {};
  for (size_t d = 0; d < order; ++d) {
    const uint8_t o = t->dim_order()->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (o >= rank || seen[o]) {
      return set_last_error(Error::InvalidProgram, "bundled program: the dim order of %s is not a permutation", where);
    }
    seen[o] = true;
  }
  uint64_t nbytes = 0;
  const size_t esize = executorch::aten::elementSize(type);
  const size_t have = t->data() != nullptr ? t->data()->size() : 0;
  if (::executorch::runtime::internal::mul_overflows(numel, esize, &nbytes) || nbytes != have) {
    return set_last_error(Error::InvalidProgram, "bundled program: %s holds %zu bytes of data, its shape needs %llu",
                          where, have, static_cast<unsigned long long>(nbytes));
  }
  if (have > 0 && reinterpret_cast<uintptr_t>(t->data()->data()) % esize != 0) {
    return set_last_error(Error::InvalidProgram, "bundled program: the data of %s is not aligned", where);
  }
  return Error::Ok;
}

Error check_values(const flatbuffers::Vector<flatbuffers::Offset<et_bundled::Value>>* values, const char* what,
                   const char* method, size_t index) {
  if (values == nullptr) return Error::Ok;
  for (flatbuffers::uoffset_t i = 0; i < values->size(); ++i) {
    const auto* v = values->Get(i);
    char where[256];
    std::snprintf(where, sizeof(where), "%s %u of test case %zu of method %s", what, i, index, method);
    switch (v->val_type()) {
      case et_bundled::ValueUnion::Tensor: ET_CHECK_OK_OR_RETURN_ERROR(check_tensor(v->val_as_Tensor(), where)); break;
      case et_bundled::ValueUnion::Int:
      case et_bundled::ValueUnion::Bool:
      case et_bundled::ValueUnion::Double: break;
      default:
        return set_last_error(Error::InvalidProgram, "bundled program: %s has no value or an unknown type", where);
    }
  }
  return Error::Ok;
}

// The whole check of a bundled program: identifier, flatbuffer verifier, program bytes, every test value.
Result<const et_bundled::BundledProgram*> check_bundled(const void* data, size_t size) {
  if (data == nullptr || size < 8) {
    return set_last_error(Error::NotSupported, "not a bundled program: %zu bytes is too short", size);
  }
  if (!et_bundled::BundledProgramBufferHasIdentifier(data)) {
    return set_last_error(Error::NotSupported,
                          "not a bundled program: the file identifier is '%.4s', a bundled program has 'BP08'",
                          static_cast<const char*>(data) + 4);
  }
  if (reinterpret_cast<uintptr_t>(data) % 8 != 0) {
    return set_last_error(Error::InvalidArgument, "bundled program data must be 8-byte aligned");
  }
  flatbuffers::Verifier verifier(static_cast<const uint8_t*>(data), size);
  if (!et_bundled::VerifyBundledProgramBuffer(verifier)) {
    return set_last_error(Error::InvalidProgram,
                          "bundled program: the flatbuffer is damaged (it fails the flatbuffer verifier)");
  }
  const auto* bp = et_bundled::GetBundledProgram(data);
  if (bp->program() == nullptr || bp->program()->size() == 0) {
    return set_last_error(Error::InvalidProgram, "bundled program: it holds no program");
  }
  if (bp->method_test_suites() != nullptr) {
    for (const auto* suite : *bp->method_test_suites()) {
      if (suite->method_name() == nullptr) {
        return set_last_error(Error::InvalidProgram, "bundled program: a test suite has no method name");
      }
      if (suite->test_cases() == nullptr) continue;
      size_t index = 0;
      for (const auto* tc : *suite->test_cases()) {
        ET_CHECK_OK_OR_RETURN_ERROR(check_values(tc->inputs(), "input", suite->method_name()->c_str(), index));
        ET_CHECK_OK_OR_RETURN_ERROR(
            check_values(tc->expected_outputs(), "expected output", suite->method_name()->c_str(), index));
        ++index;
      }
    }
  }
  return bp;
}

// Buffers that passed check_bundled() with their size, so the upstream-style functions that take a pointer only
// can check them again.
std::mutex g_mu;
std::vector<std::pair<const void*, size_t>> g_checked;

void remember(const void* data, size_t size) {
  std::lock_guard<std::mutex> lock(g_mu);
  for (auto& e : g_checked) {
    if (e.first == data) {
      e.second = size;
      return;
    }
  }
  if (g_checked.size() >= 64) g_checked.erase(g_checked.begin());
  g_checked.emplace_back(data, size);
}

Result<const et_bundled::BundledProgram*> checked(const void* data) {
  size_t size = 0;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    for (const auto& e : g_checked) {
      if (e.first == data) size = e.second;
    }
  }
  if (size == 0) {
    return set_last_error(Error::InvalidArgument,
                          "bundled program: pass the file through get_program_data() (or is_bundled_program()) "
                          "first, so its size is known and it can be checked");
  }
  return check_bundled(data, size);
}

Result<const et_bundled::BundledMethodTestCase*> test_case(const et_bundled::BundledProgram* bp, const char* method,
                                                           size_t index) {
  if (bp->method_test_suites() != nullptr) {
    for (const auto* suite : *bp->method_test_suites()) {
      if (std::strcmp(suite->method_name()->c_str(), method) != 0) continue;
      const size_t n = suite->test_cases() != nullptr ? suite->test_cases()->size() : 0;
      if (index >= n) {
        return set_last_error(Error::InvalidArgument, "bundled program: method %s has %zu test cases, no case %zu",
                              method, n, index);
      }
      return suite->test_cases()->Get(static_cast<flatbuffers::uoffset_t>(index));
    }
  }
  return set_last_error(Error::InvalidArgument, "bundled program: it has no test suite for method %s", method);
}

// A Tensor over a (checked) bundled tensor's data.
struct BundledTensor {
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  std::vector<int32_t> strides;
  TensorImpl impl;

  explicit BundledTensor(const et_bundled::Tensor* t) {
    const size_t rank = t->sizes() != nullptr ? t->sizes()->size() : 0;
    sizes.resize(rank);
    dim_order.resize(rank);
    strides.resize(rank);
    for (size_t d = 0; d < rank; ++d) {
      sizes[d] = t->sizes()->Get(static_cast<flatbuffers::uoffset_t>(d));
      dim_order[d] = t->dim_order() != nullptr && t->dim_order()->size() == rank
                         ? t->dim_order()->Get(static_cast<flatbuffers::uoffset_t>(d))
                         : static_cast<uint8_t>(d);
    }
    void* data = t->data() != nullptr && t->data()->size() > 0 ? const_cast<uint8_t*>(t->data()->data()) : nullptr;
    impl = TensorImpl(static_cast<ScalarType>(t->scalar_type()), static_cast<ssize_t>(rank), sizes.data(), data,
                      dim_order.data(), strides.data());
  }
  Tensor tensor() { return Tensor(&impl); }
};

Error set_inputs(Method& method, const et_bundled::BundledMethodTestCase* tc, size_t index) {
  const char* name = method.method_meta().name();
  const size_t n = tc->inputs() != nullptr ? tc->inputs()->size() : 0;
  if (n != method.inputs_size()) {
    return set_last_error(Error::InvalidArgument,
                          "bundled program: test case %zu of method %s has %zu inputs, the "
                          "method takes %zu",
                          index, name, n, method.inputs_size());
  }
  for (size_t i = 0; i < n; ++i) {
    const auto* v = tc->inputs()->Get(static_cast<flatbuffers::uoffset_t>(i));
    Error err = Error::Ok;
    switch (v->val_type()) {
      case et_bundled::ValueUnion::Tensor: {
        BundledTensor t(v->val_as_Tensor());
        err = method.set_input(EValue(t.tensor()), i);
        break;
      }
      case et_bundled::ValueUnion::Int: err = method.set_input(EValue(v->val_as_Int()->int_val()), i); break;
      case et_bundled::ValueUnion::Bool: err = method.set_input(EValue(v->val_as_Bool()->bool_val()), i); break;
      case et_bundled::ValueUnion::Double: err = method.set_input(EValue(v->val_as_Double()->double_val()), i); break;
      default: err = set_last_error(Error::NotSupported, "bundled program: input %zu has an unknown type", i);
    }
    if (err != Error::Ok) {
      // upstream's load_bundled_input() reports every input that cannot be set as NotSupported
      const std::string why = ::executorch::runtime::last_error_message();
      return set_last_error(Error::NotSupported, "bundled program: test case %zu of method %s: input %zu: %s", index,
                            name, i, why.c_str());
    }
  }
  return Error::Ok;
}

bool elem_is_close(double a, double b, double rtol, double atol) {
  if (std::isnan(a) && std::isnan(b)) return true;
  if (!std::isfinite(a) && !std::isfinite(b) && ((a > 0) == (b > 0))) return true;
  if (rtol == 0 && atol == 0) return a == b;
  const double err = std::fabs(a - b);
  return std::isfinite(err) && err <= atol + std::fabs(rtol * b);
}

struct Comparison {
  bool close = true;
  double max_abs = 0, sum_abs = 0, max_rel = 0, sum_rel = 0;
  size_t count = 0;  // float elements compared
  std::string why;   // first mismatch

  void elem(double actual, double expected, double rtol, double atol, const char* where, size_t k) {
    const double err = std::fabs(actual - expected);
    const bool both_nan = std::isnan(actual) && std::isnan(expected);
    if (!both_nan && std::isfinite(err)) {
      // the floor is upstream's (a float 1e-8 widened to double)
      const double rel = err / std::max({std::fabs(actual), std::fabs(expected), static_cast<double>(1e-8f)});
      max_abs = std::max(max_abs, err);
      max_rel = std::max(max_rel, rel);
      sum_abs += err;
      sum_rel += rel;
    }
    ++count;
    if (!elem_is_close(actual, expected, rtol, atol) && close) {
      close = false;
      char buf[256];
      std::snprintf(buf, sizeof(buf), "%s element %zu: got %.9g, expected %.9g (|diff| %.3g > %.3g)", where, k, actual,
                    expected, err, atol + std::fabs(rtol * expected));
      why = buf;
    }
  }
  void mismatch(const std::string& w) {
    if (close) why = w;
    close = false;
  }
};

void compare_tensor(const Tensor& actual, const et_bundled::Tensor* bt, double rtol, double atol, const char* where,
                    Comparison* c) {
  BundledTensor expected_store(bt);
  const Tensor expected = expected_store.tensor();
  if (actual.scalar_type() != expected.scalar_type()) {
    c->mismatch(std::string(where) + ": dtype " + executorch::aten::toString(actual.scalar_type()) + ", expected " +
                executorch::aten::toString(expected.scalar_type()));
    return;
  }
  bool same_shape = actual.dim() == expected.dim();
  for (ssize_t d = 0; same_shape && d < actual.dim(); ++d) {
    same_shape = actual.size(d) == expected.size(d) && actual.dim_order()[d] == expected.dim_order()[d];
  }
  if (!same_shape) {
    std::string got, want;
    for (ssize_t d = 0; d < actual.dim(); ++d) got += (d ? "," : "") + std::to_string(actual.size(d));
    for (ssize_t d = 0; d < expected.dim(); ++d) want += (d ? "," : "") + std::to_string(expected.size(d));
    c->mismatch(std::string(where) + ": shape [" + got + "], expected [" + want + "] (or another dim order)");
    return;
  }
  const size_t n = static_cast<size_t>(expected.numel());
  if (n == 0) return;
  if (actual.const_data_ptr() == nullptr) {
    c->mismatch(std::string(where) + ": the output has no data");
    return;
  }
  switch (expected.scalar_type()) {
    case ScalarType::Float: {
      const float* a = actual.const_data_ptr<float>();
      const float* b = expected.const_data_ptr<float>();
      for (size_t k = 0; k < n; ++k) c->elem(a[k], b[k], rtol, atol, where, k);
      break;
    }
    case ScalarType::Double: {
      const double* a = actual.const_data_ptr<double>();
      const double* b = expected.const_data_ptr<double>();
      for (size_t k = 0; k < n; ++k) c->elem(a[k], b[k], rtol, atol, where, k);
      break;
    }
    case ScalarType::Half:
    case ScalarType::BFloat16: {
      float (*to_float)(uint16_t) = expected.scalar_type() == ScalarType::Half
                                        ? ::executorch::runtime::float16::half_to_float
                                        : ::executorch::runtime::float16::bf16_to_float;
      const uint16_t* a = static_cast<const uint16_t*>(actual.const_data_ptr());
      const uint16_t* b = static_cast<const uint16_t*>(expected.const_data_ptr());
      for (size_t k = 0; k < n; ++k) c->elem(to_float(a[k]), to_float(b[k]), rtol, atol, where, k);
      break;
    }
    default:  // other dtypes are compared bit for bit, as upstream does
      if (std::memcmp(actual.const_data_ptr(), expected.const_data_ptr(), expected.nbytes()) != 0) {
        c->mismatch(std::string(where) + ": the " + executorch::aten::toString(expected.scalar_type()) +
                    " data differs");
      }
  }
}

// Compares every output of `method` with the test case. Err only when the comparison cannot be made.
Error compare_outputs(Method& method, const et_bundled::BundledMethodTestCase* tc, size_t index, double rtol,
                      double atol, Comparison* c) {
  const char* name = method.method_meta().name();
  const size_t n = tc->expected_outputs() != nullptr ? tc->expected_outputs()->size() : 0;
  if (n == 0) {
    return set_last_error(Error::NotSupported, "bundled program: test case %zu of method %s has no expected outputs",
                          index, name);
  }
  if (n != method.outputs_size()) {
    return set_last_error(Error::InvalidArgument,
                          "bundled program: test case %zu of method %s expects %zu outputs, "
                          "the method has %zu",
                          index, name, n, method.outputs_size());
  }
  for (size_t i = 0; i < n; ++i) {
    const auto* v = tc->expected_outputs()->Get(static_cast<flatbuffers::uoffset_t>(i));
    const EValue& out = method.get_output(i);
    char where[64];
    std::snprintf(where, sizeof(where), "output %zu", i);
    switch (v->val_type()) {
      case et_bundled::ValueUnion::Tensor:
        if (!out.isTensor()) {
          c->mismatch(std::string(where) + ": a " + ::executorch::runtime::tag_to_string(out.tag) +
                      ", expected a tensor");
        } else {
          compare_tensor(out.toTensor(), v->val_as_Tensor(), rtol, atol, where, c);
        }
        break;
      case et_bundled::ValueUnion::Int:
        if (!out.isInt() || out.toInt() != v->val_as_Int()->int_val())
          c->mismatch(std::string(where) + ": int differs");
        break;
      case et_bundled::ValueUnion::Bool:
        if (!out.isBool() || out.toBool() != v->val_as_Bool()->bool_val()) {
          c->mismatch(std::string(where) + ": bool differs");
        }
        break;
      case et_bundled::ValueUnion::Double:
        if (!out.isDouble()) {
          c->mismatch(std::string(where) + ": expected a double");
        } else {
          c->elem(out.toDouble(), v->val_as_Double()->double_val(), rtol, atol, where, 0);
        }
        break;
      default:
        return set_last_error(Error::NotSupported, "bundled program: expected output %zu is a %s", i,
                              value_kind(v->val_type()));
    }
  }
  return Error::Ok;
}

}  // namespace

bool is_bundled_program(void* file_data, size_t file_data_len) {
  if (file_data == nullptr || file_data_len < 8) return false;
  if (!et_bundled::BundledProgramBufferHasIdentifier(file_data)) return false;
  remember(file_data, file_data_len);
  return true;
}

Error get_program_data(void* file_data, size_t file_data_len, const void** out_program_data,
                       size_t* out_program_data_len) {
  if (out_program_data == nullptr || out_program_data_len == nullptr) {
    return set_last_error(Error::InvalidArgument, "get_program_data: null output pointer");
  }
  Result<const et_bundled::BundledProgram*> bp = check_bundled(file_data, file_data_len);
  if (!bp.ok()) return bp.error();
  remember(file_data, file_data_len);
  *out_program_data = (*bp)->program()->data();
  *out_program_data_len = (*bp)->program()->size();
  return Error::Ok;
}

Error load_bundled_input(Method& method, SerializedBundledProgram* bundled_program_ptr, size_t testset_idx) {
  Result<const et_bundled::BundledProgram*> bp = checked(bundled_program_ptr);
  if (!bp.ok()) return bp.error();
  Result<const et_bundled::BundledMethodTestCase*> tc = test_case(*bp, method.method_meta().name(), testset_idx);
  if (!tc.ok()) return tc.error();
  ET_CHECK_OK_OR_RETURN_ERROR(set_inputs(method, *tc, testset_idx));
  if (auto* tracer = method.get_event_tracer()) tracer->set_bundled_input_index(static_cast<int>(testset_idx));
  return Error::Ok;
}

ErrorStats compute_method_output_error_stats(Method& method, SerializedBundledProgram* bundled_program_ptr,
                                             size_t testset_idx) {
  Result<const et_bundled::BundledProgram*> bp = checked(bundled_program_ptr);
  if (!bp.ok()) return {bp.error(), 0, 0, 0, 0};
  Result<const et_bundled::BundledMethodTestCase*> tc = test_case(*bp, method.method_meta().name(), testset_idx);
  if (!tc.ok()) return {tc.error(), 0, 0, 0, 0};
  // As upstream: statistics are over tensor outputs only, of the same number of elements.
  const size_t n = (*tc)->expected_outputs() != nullptr ? (*tc)->expected_outputs()->size() : 0;
  for (size_t i = 0; i < n && i < method.outputs_size(); ++i) {
    const auto* v = (*tc)->expected_outputs()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (v->val_type() != et_bundled::ValueUnion::Tensor) {
      set_last_error(Error::NotSupported,
                     "bundled program: error statistics need tensor outputs; expected output %zu "
                     "is a %s",
                     i, value_kind(v->val_type()));
      return {Error::NotSupported, 0, 0, 0, 0};
    }
    const EValue& out = method.get_output(i);
    BundledTensor expected(v->val_as_Tensor());
    if (!out.isTensor() || out.toTensor().numel() != expected.tensor().numel()) {
      set_last_error(Error::InvalidArgument,
                     "bundled program: output %zu does not have the expected number of "
                     "elements",
                     i);
      return {Error::InvalidArgument, 0, 0, 0, 0};
    }
  }
  Comparison c;
  const Error err = compare_outputs(method, *tc, testset_idx, 0, 0, &c);
  if (err != Error::Ok) return {err, 0, 0, 0, 0};
  if (c.count == 0) return {Error::Ok, 0, 0, 0, 0};
  return {Error::Ok, c.sum_abs / c.count, c.max_abs, c.sum_rel / c.count, c.max_rel};
}

Error verify_method_outputs(Method& method, SerializedBundledProgram* bundled_program_ptr, size_t testset_idx,
                            double rtol, double atol) {
  Result<const et_bundled::BundledProgram*> bp = checked(bundled_program_ptr);
  if (!bp.ok()) return bp.error();
  Result<const et_bundled::BundledMethodTestCase*> tc = test_case(*bp, method.method_meta().name(), testset_idx);
  if (!tc.ok()) return tc.error();
  Comparison c;
  ET_CHECK_OK_OR_RETURN_ERROR(compare_outputs(method, *tc, testset_idx, rtol, atol, &c));
  if (!c.close) {
    return set_last_error(Error::NotFound, "method %s, test case %zu: the outputs do not match: %s",
                          method.method_meta().name(), testset_idx, c.why.c_str());
  }
  return Error::Ok;
}

Result<std::vector<TestCaseResult>> verify_bundled_program(const void* data, size_t size, double rtol, double atol,
                                                           ::executorch::runtime::EventTracer* event_tracer) {
  Result<const et_bundled::BundledProgram*> bp = check_bundled(data, size);
  if (!bp.ok()) return bp.error();
  ::executorch::extension::BufferDataLoader loader((*bp)->program()->data(), (*bp)->program()->size());
  Result<::executorch::runtime::Program> program = ::executorch::runtime::Program::load(&loader);
  if (!program.ok()) {
    const std::string why = ::executorch::runtime::last_error_message();
    return set_last_error(program.error(), "bundled program: its program does not load: %s", why.c_str());
  }
  std::vector<TestCaseResult> results;
  if ((*bp)->method_test_suites() == nullptr) return results;
  for (const auto* suite : *(*bp)->method_test_suites()) {
    const char* name = suite->method_name()->c_str();
    const size_t ncases = suite->test_cases() != nullptr ? suite->test_cases()->size() : 0;
    auto fail_all = [&](Error err, const std::string& why) {
      for (size_t i = 0; i < ncases; ++i) {
        TestCaseResult r;
        r.method = name;
        r.index = i;
        r.status = err;
        r.message = why;
        results.push_back(std::move(r));
      }
    };
    Result<::executorch::runtime::MethodMeta> meta = program->method_meta(name);
    if (!meta.ok()) {
      fail_all(meta.error(), ::executorch::runtime::last_error_message());
      continue;
    }
    Result<std::unique_ptr<::executorch::extension::PlannedMemory>> memory =
        ::executorch::extension::PlannedMemory::create(*meta);
    if (!memory.ok()) {
      fail_all(memory.error(), std::string("cannot allocate the planned memory of method ") + name);
      continue;
    }
    Result<Method> method = program->load_method(name, (*memory)->memory_manager(), event_tracer);
    if (!method.ok()) {
      fail_all(method.error(),
               std::string("loading the method failed: ") + ::executorch::runtime::last_error_message());
      continue;
    }
    for (size_t i = 0; i < ncases; ++i) {
      const auto* tc = suite->test_cases()->Get(static_cast<flatbuffers::uoffset_t>(i));
      TestCaseResult r;
      r.method = name;
      r.index = i;
      ::executorch::runtime::clear_last_error();
      r.status = set_inputs(*method, tc, i);
      if (r.status == Error::Ok) {
        if (event_tracer != nullptr) event_tracer->set_bundled_input_index(static_cast<int>(i));
        r.status = method->execute();
        if (event_tracer != nullptr) event_tracer->set_bundled_input_index(-1);
      }
      Comparison c;
      if (r.status == Error::Ok) r.status = compare_outputs(*method, tc, i, rtol, atol, &c);
      if (r.status != Error::Ok) {
        r.message = ::executorch::runtime::last_error_message();
      } else {
        r.passed = c.close;
        r.max_abs_error = c.max_abs;
        r.max_relative_error = c.max_rel;
        if (!c.close) {
          r.status = Error::NotFound;  // upstream's verify_method_outputs() status for a mismatch
          r.message = c.why;
        }
      }
      results.push_back(std::move(r));
    }
  }
  return results;
}

}  // namespace bundled_program
}  // namespace executorch
