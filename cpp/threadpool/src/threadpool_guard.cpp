#include <executorch/extension/threadpool/threadpool_guard.h>

namespace executorch {
namespace extension {
namespace threadpool {
namespace {
thread_local bool t_no_threadpool = false;
}  // namespace

bool NoThreadPoolGuard::is_enabled() { return t_no_threadpool; }

void NoThreadPoolGuard::set_enabled(bool enabled) { t_no_threadpool = enabled; }

}  // namespace threadpool
}  // namespace extension
}  // namespace executorch
