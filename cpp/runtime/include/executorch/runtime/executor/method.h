#pragma once
#include <cstddef>
#include <memory>
#include <string_view>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

class KernelRuntimeContext;
using OpFunction = void (*)(KernelRuntimeContext&, Span<EValue*>);
using InstructionArgs = Span<EValue*>;

namespace internal {
struct MethodState;
}

// A loaded method: values, planned memory, resolved kernels and initialised delegates. Movable, not copyable;
// used by one thread at a time. Outputs alias the method's planned memory: they stay valid until the next
// execute().
class EXECUTORCH_API Method final {
 public:
  Method(Method&&) noexcept;
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;
  Method& operator=(Method&&) = delete;
  ~Method();

  // Sets input `input_idx`. Tensors must have the planned dtype, rank and dim order and fit its bound; their data
  // is copied into planned memory (or shared when the input is not memory planned). Scalars must equal the value
  // the program was traced with.
  ET_NODISCARD Error set_input(const EValue& input_evalue, size_t input_idx);
  ET_NODISCARD Error set_inputs(const executorch::aten::ArrayRef<EValue>& input_evalues);
  // Uses `buffer` (at least the output's nbytes) for output `output_idx`; only for outputs the program does not
  // place itself (exported with memory planning of outputs turned off). InvalidState for a planned output.
  ET_NODISCARD Error set_output_data_ptr(void* buffer, size_t size, size_t output_idx);
  ET_NODISCARD Error get_outputs(EValue* output_evalues, size_t length);
  ET_DEPRECATED ET_NODISCARD Error get_inputs(EValue* input_evalues, size_t length);
  // The tensor of the method named `name` (its fully qualified name, e.g. a weight kept in a data file);
  // NotFound when there is none.
  ET_NODISCARD Result<executorch::aten::Tensor> get_attribute(std::string_view name);

  // Runs every instruction. InvalidArgument when an input was never set; otherwise the error a kernel or
  // delegate reported (last_error_message() names the operator and why).
  ET_NODISCARD Error execute();
  // Runs the next instruction; EndOfMethod once every instruction ran (then reset_execution()).
  ET_EXPERIMENTAL ET_NODISCARD Error step();
  ET_DEPRECATED ET_NODISCARD Error experimental_step();
  ET_EXPERIMENTAL ET_NODISCARD bool in_progress() const;
  // After step() returned EndOfMethod: makes the method ready to run again. InvalidState before that.
  ET_EXPERIMENTAL ET_NODISCARD Error reset_execution();
  ET_DEPRECATED ET_NODISCARD Error experimental_reset_execution();

  MethodMeta method_meta() const;
  size_t inputs_size() const;
  size_t outputs_size() const;
  const EValue& get_output(size_t i) const;
  // The event tracer given to Program::load_method() (null when none).
  EventTracer* get_event_tracer();
  ET_DEPRECATED const EValue& get_input(size_t i) const;
  ET_DEPRECATED EValue& mutable_input(size_t i);
  ET_DEPRECATED EValue& mutable_output(size_t i);

 private:
  friend class Program;
  explicit Method(std::unique_ptr<internal::MethodState> state);
  std::unique_ptr<internal::MethodState> state_;
};

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::ET_RUNTIME_NAMESPACE::Method;
}  // namespace executor
}  // namespace torch
