// The XnnpackBackend, and the component descriptor through which the runtime registers it (platform/component.h).
#include <new>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/platform/component.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/version.h>

#include "graph.h"

namespace etxnn {
namespace {

using executorch::runtime::ArrayRef;
using executorch::runtime::BackendExecutionContext;
using executorch::runtime::BackendInitContext;
using executorch::runtime::BackendInterface;
using executorch::runtime::CompileSpec;
using executorch::runtime::DelegateHandle;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;
using executorch::runtime::Span;

class XnnpackBackend final : public BackendInterface {
 public:
  bool is_available() const override { return true; }

  Result<DelegateHandle*> init(BackendInitContext& context, FreeableBuffer* processed,
                               ArrayRef<CompileSpec> /*compile_specs*/) const override {
    if (processed == nullptr) return ETXNN_FAIL(Error::InvalidArgument, "no payload");
    Graph* g = new (std::nothrow) Graph();
    if (g == nullptr) return Error::MemoryAllocationFailed;
    Error e = load_graph(processed->data(), processed->size(), context.get_named_data_map(), g);
    if (e == Error::Ok) e = prepare_graph(*g);
    if (e != Error::Ok) {
      delete g;
      return e;
    }
    processed->Free();  // constants were copied or come from the named data
    return static_cast<DelegateHandle*>(g);
  }

  Error execute(BackendExecutionContext& /*context*/, DelegateHandle* handle, Span<EValue*> args) const override {
    if (handle == nullptr) return Error::DelegateInvalidHandle;
    return execute_graph(*static_cast<Graph*>(handle), args);
  }

  void destroy(DelegateHandle* handle) const override { delete static_cast<Graph*>(handle); }
};

XnnpackBackend g_backend;

uint32_t register_all() {
  const Error e = executorch::runtime::register_backend({"XnnpackBackend", &g_backend});
  if (e != Error::Ok) {
    ET_LOG(Error, "XnnpackBackend: registration failed (error 0x%x); another XnnpackBackend is registered",
           static_cast<unsigned>(e));
  }
  return static_cast<uint32_t>(e);
}

const char* const kNamespaces[] = {nullptr};
const char* const kBackends[] = {"XnnpackBackend", nullptr};
const ExecutorchComponent kComponent = {EXECUTORCH_COMPONENT_API_VERSION,
                                        "xnnpack",
                                        "executorch-xnnpack",
                                        EXECUTORCH_VERSION,
                                        kNamespaces,
                                        kBackends,
                                        &register_all};

}  // namespace
}  // namespace etxnn

EXECUTORCH_COMPONENT(etxnn::kComponent)
