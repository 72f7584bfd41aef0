#pragma once
// Bundled programs (.bpte, upstream ExecuTorch's format, identifier "BP08"): a .pte program plus, per method,
// test cases (inputs and expected outputs). The first functions have upstream's names and semantics, so
// upstream-style code compiles:
//
//   const void* program_data; size_t program_size;
//   get_program_data(file_data, file_size, &program_data, &program_size);   // then Program::load(...)
//   load_bundled_input(method, file_data, i);  method.execute();  verify_method_outputs(method, file_data, i);
//
// verify_bundled_program() runs every test case of every method and reports each one.
// Every function checks the whole file (flatbuffer verifier, tensor sizes against their data) before using it,
// so a damaged file gives an error, never a crash.
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/export.h>

// Upstream switches the namespace for its ATen-mode build; this runtime has the portable mode only.
#ifndef BUNDLED_PROGRAM_NAMESPACE
#define BUNDLED_PROGRAM_NAMESPACE bundled_program
#endif

namespace executorch {
namespace BUNDLED_PROGRAM_NAMESPACE {

// An opaque pointer to a serialized bundled program.
using SerializedBundledProgram = const void;
using ::executorch::ET_RUNTIME_NAMESPACE::Method;

// True when the data starts like a bundled program (its flatbuffer identifier is "BP08").
EXECUTORCH_API bool is_bundled_program(void* file_data, size_t file_data_len);

// Deprecated upstream: use the overload with the length. Looks at the identifier only.
ET_DEPRECATED inline bool is_bundled_program(void* file_data) {
  return file_data != nullptr && std::memcmp(static_cast<const char*>(file_data) + 4, "BP08", 4) == 0;
}

// The .pte program inside a bundled program: a pointer into file_data and its size. NotSupported when the data
// is not a bundled program, InvalidProgram when it is damaged.
ET_NODISCARD EXECUTORCH_API ::executorch::runtime::Error get_program_data(void* file_data, size_t file_data_len,
                                                                          const void** out_program_data,
                                                                          size_t* out_program_data_len);

// Sets the inputs of `method` to those of test case `testset_idx` of its test suite, and tells the method's event
// tracer the case index (bundled_input_index). The bundled program must stay alive until the method has run
// (tensor inputs that are not memory planned point into it). InvalidArgument for a method without a test suite or
// an index out of range; NotSupported when an input cannot be set.
ET_NODISCARD EXECUTORCH_API ::executorch::runtime::Error load_bundled_input(
    Method& method, SerializedBundledProgram* bundled_program_ptr, size_t testset_idx);

// Error statistics of the method's current outputs against test case `testset_idx` (float tensor outputs;
// relative error |a - b| / max(|a|, |b|, 1e-8)). `status` is Ok when the other fields are filled in.
struct ErrorStats {
  ::executorch::runtime::Error status;
  double mean_abs_error;
  double max_abs_error;
  double mean_relative_error;
  double max_relative_error;
};
ET_NODISCARD EXECUTORCH_API ErrorStats compute_method_output_error_stats(Method& method,
                                                                         SerializedBundledProgram* bundled_program_ptr,
                                                                         size_t testset_idx);

// Ok when every output of `method` matches test case `testset_idx` (floats: |a - b| <= atol + rtol * |b|, NaN
// equals NaN, infinities of the same sign are equal; other dtypes bit for bit); NotFound on a mismatch,
// NotSupported when the case has no expected outputs.
ET_NODISCARD EXECUTORCH_API ::executorch::runtime::Error verify_method_outputs(
    Method& method, SerializedBundledProgram* bundled_program_ptr, size_t testset_idx, double rtol = 1e-5,
    double atol = 1e-8);

// The outcome of one test case of verify_bundled_program().
struct TestCaseResult {
  std::string method;
  size_t index = 0;
  bool passed = false;
  // Ok, or why the case could not run or did not match (the message says more).
  ::executorch::runtime::Error status = ::executorch::runtime::Error::Ok;
  double max_abs_error = 0;  // over every float output element (0 when there is none)
  double max_relative_error = 0;
  std::string message;  // empty when passed
};

// Loads the program inside the bundled program (size bytes at data, 8-byte aligned), then for every method test
// suite and every test case: loads the method, sets the inputs, runs it and compares its outputs with rtol/atol.
// Fails only when the file itself is unusable (not a bundled program, damaged, its program does not load); a
// method that fails to load or run fails its cases. With an event tracer (e.g. ETDumpGen), every run is recorded
// as one event block carrying its test case index (bundled_input_index).
EXECUTORCH_API ::executorch::runtime::Result<std::vector<TestCaseResult>> verify_bundled_program(
    const void* data, size_t size, double rtol = 1e-5, double atol = 1e-8,
    ::executorch::runtime::EventTracer* event_tracer = nullptr);

}  // namespace BUNDLED_PROGRAM_NAMESPACE
}  // namespace executorch

namespace torch {
namespace executor {
namespace bundled_program {
using serialized_bundled_program = ::executorch::BUNDLED_PROGRAM_NAMESPACE::SerializedBundledProgram;
ET_NODISCARD inline ::executorch::runtime::Error LoadBundledInput(::executorch::runtime::Method& method,
                                                                  serialized_bundled_program* bundled_program_ptr,
                                                                  size_t testset_idx) {
  return ::executorch::BUNDLED_PROGRAM_NAMESPACE::load_bundled_input(method, bundled_program_ptr, testset_idx);
}
ET_NODISCARD inline ::executorch::runtime::Error VerifyResultWithBundledExpectedOutput(
    ::executorch::runtime::Method& method, serialized_bundled_program* bundled_program_ptr, size_t testset_idx,
    double rtol = 1e-5, double atol = 1e-8) {
  return ::executorch::BUNDLED_PROGRAM_NAMESPACE::verify_method_outputs(method, bundled_program_ptr, testset_idx, rtol,
                                                                        atol);
}
ET_NODISCARD inline ::executorch::runtime::Error GetProgramData(void* file_data, size_t file_data_len,
                                                                const void** out_program_data,
                                                                size_t* out_program_data_len) {
  return ::executorch::BUNDLED_PROGRAM_NAMESPACE::get_program_data(file_data, file_data_len, out_program_data,
                                                                   out_program_data_len);
}
inline bool IsBundledProgram(void* file_data) {
  return file_data != nullptr && std::memcmp(static_cast<const char*>(file_data) + 4, "BP08", 4) == 0;
}
}  // namespace bundled_program
}  // namespace executor
}  // namespace torch
