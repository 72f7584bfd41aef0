#pragma once
#include <ostream>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace runtime {

// Prints `value` as upstream's runners do: None, True/False, integers, doubles with a trailing "." when integral
// ("1."), quoted strings, lists as "(len=N)[a, b, c]", tensors as "tensor(sizes=[2, 3], [1., 2., ...])". Long
// lists show their first and last evalue_edge_items() items around "..."; more than 10 printed items wrap, 10 a
// line. Declared in EValue's namespace so that argument-dependent lookup finds it.
EXECUTORCH_API std::ostream& operator<<(std::ostream& os, const EValue& value);

}  // namespace runtime
}  // namespace executorch

namespace executorch {
namespace extension {

// Stream manipulator: `os << evalue_edge_items(n)` makes EValues printed on `os` afterwards show n items at each
// end of a list before eliding the rest (0 or negative: the default, 3). Sticky, and only for that stream.
class evalue_edge_items final {
 public:
  explicit evalue_edge_items(long edge_items) : edge_items_(edge_items < 0 ? 0 : edge_items) {}

  friend std::ostream& operator<<(std::ostream& os, const evalue_edge_items& e) {
    set_edge_items(os, e.edge_items_);
    return os;
  }

 private:
  EXECUTORCH_API static void set_edge_items(std::ostream& os, long edge_items);

  const long edge_items_;
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::evalue_edge_items;
}  // namespace util
}  // namespace executor
}  // namespace torch
