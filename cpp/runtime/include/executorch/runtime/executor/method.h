#pragma once
#include <cstddef>
#include <memory>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace runtime {

namespace internal {
struct MethodState;
}

// A loaded method: values, planned memory, resolved kernels and initialised delegates. Movable, not copyable.
// Outputs alias the method's planned memory: they stay valid until the next execute().
class EXECUTORCH_API Method final {
 public:
  Method(Method&&) noexcept;
  Method& operator=(Method&&) noexcept;
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;
  ~Method();

  // Sets input `input_idx`. Tensors must have the planned dtype and rank and fit its bound; their data is
  // copied into planned memory (or shared when the input is not memory planned). Scalars must equal the value
  // the program was traced with.
  Error set_input(const EValue& input, size_t input_idx);
  Error set_inputs(const ArrayRef<EValue>& inputs);
  // Uses `buffer` for output `output_idx` (only for outputs that are neither planned nor constant).
  Error set_output_data_ptr(void* buffer, size_t size, size_t output_idx);
  // Runs every instruction. Fails when an input was never set, or with the error a kernel or delegate reported.
  Error execute();

  size_t inputs_size() const;
  size_t outputs_size() const;
  const EValue& get_input(size_t i) const;
  const EValue& get_output(size_t i) const;
  Error get_outputs(EValue* output_evalues, size_t length);
  MethodMeta method_meta() const;
  // The event tracer given to Program::load_method() (null when none).
  EventTracer* get_event_tracer();

 private:
  friend class Program;
  explicit Method(std::unique_ptr<internal::MethodState> state);
  std::unique_ptr<internal::MethodState> state_;
};

}  // namespace runtime
}  // namespace executorch
