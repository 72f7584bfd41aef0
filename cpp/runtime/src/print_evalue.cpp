#include <executorch/extension/evalue_util/print_evalue.h>

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

namespace executorch {
namespace extension {
namespace {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;

// Printed items per line once a list wraps, and the default number of items shown at each end of a long list
// (the text upstream's runners print; people diff it).
constexpr size_t kItemsPerLine = 10;
constexpr size_t kDefaultEdgeItems = 3;

// The stream slot that holds the edge-item count (allocated once, on first use).
int edge_items_slot() {
  static const int slot = std::ios_base::xalloc();
  return slot;
}

size_t edge_items_of(std::ostream& os) {
  const long n = os.iword(edge_items_slot());
  return n <= 0 ? kDefaultEdgeItems : static_cast<size_t>(n);
}

// As PyTorch prints floats: a trailing "." when the value looks integral ("1.", "-0."), so it reads as a float.
void print_double(std::ostream& os, double value) {
  bool dot = false;
  if (std::isfinite(value)) {
    if (value == 0.0) {
      dot = true;  // also -0.0, which prints "-0"
    } else if (std::fabs(value) < 9.2e18) {
      std::ostringstream as_float, as_int;
      as_float << value;
      as_int << static_cast<int64_t>(value);
      dot = as_float.str() == as_int.str();
    }
  }
  os << value;
  if (dot) os << ".";
}

// One list element, printed as the EValue of its Scalar would be.
template <typename T>
void print_item(std::ostream& os, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    os << (v ? "True" : "False");
  } else if constexpr (std::is_integral_v<T>) {
    os << static_cast<int64_t>(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    print_double(os, static_cast<double>(v));
  } else {
    print_double(os, static_cast<double>(static_cast<float>(v)));  // Half, BFloat16
  }
}

// "[a, b, c]" (with "(len=N)" before it when `print_length`): long lists show their edge items around "...",
// and more than kItemsPerLine printed items go kItemsPerLine to a line, every item followed by ", ".
template <typename T>
void print_list(std::ostream& os, const T* items, size_t n, bool print_length = true, bool elide = true) {
  const size_t edge = elide ? edge_items_of(os) : static_cast<size_t>(std::numeric_limits<long>::max());
  if (print_length) os << "(len=" << n << ")";
  const size_t shown = elide ? std::min(n, edge * 2) : n;
  const bool wrapping = shown > kItemsPerLine;
  os << "[";
  size_t on_line = 0;
  for (size_t i = 0; i < n; ++i) {
    if (wrapping && on_line % kItemsPerLine == 0) os << "\n  ";
    print_item(os, items[i]);
    if (wrapping || i + 1 < n) os << ", ";
    ++on_line;
    if (i + 1 == edge && i + edge + 1 < n) {
      if (wrapping) {
        // The elision gets its own line, and the short line comes right after it so the list ends on a full one.
        os << "\n  ...,";
        on_line = kItemsPerLine - edge % kItemsPerLine;
        if (on_line % kItemsPerLine != 0) os << "\n  ";
      } else {
        os << "..., ";
      }
      i = n - edge - 1;
    }
  }
  if (wrapping) os << "\n";
  os << "]";
}

void print_tensor(std::ostream& os, const Tensor& t) {
  os << "tensor(sizes=";
  print_list(os, t.sizes().data(), t.sizes().size(), /*print_length=*/false, /*elide=*/false);
  os << ", ";
  switch (t.scalar_type()) {
#define ET_INTERNAL_PRINT_DATA(ctype, dtype)                                                           \
  case ScalarType::dtype:                                                                              \
    print_list(os, t.const_data_ptr<ctype>(), static_cast<size_t>(t.numel()), /*print_length=*/false); \
    break;
    ET_FORALL_REALHBBF16_TYPES(ET_INTERNAL_PRINT_DATA)
#undef ET_INTERNAL_PRINT_DATA
    default: os << "[<unhandled scalar type " << static_cast<int>(t.scalar_type()) << ">]";
  }
  os << ")";
}

// Tensor lists: one entry per line ("  [i]: ...") when there is more than one; never elided.
template <typename PrintEntry>
void print_entries(std::ostream& os, size_t n, PrintEntry print_entry) {
  os << "(len=" << n << ")[";
  for (size_t i = 0; i < n; ++i) {
    if (n > 1) os << "\n  [" << i << "]: ";
    print_entry(i);
    if (n > 1) os << ",";
  }
  if (n > 1) os << "\n";
  os << "]";
}

}  // namespace

void evalue_edge_items::set_edge_items(std::ostream& os, long edge_items) { os.iword(edge_items_slot()) = edge_items; }

}  // namespace extension
}  // namespace executorch

namespace executorch {
namespace runtime {

std::ostream& operator<<(std::ostream& os, const EValue& value) {
  using namespace executorch::extension;
  switch (value.tag) {
    case Tag::None: os << "None"; break;
    case Tag::Bool: os << (value.toBool() ? "True" : "False"); break;
    case Tag::Int: os << value.toInt(); break;
    case Tag::Double: print_double(os, value.toDouble()); break;
    case Tag::String: {
      const auto s = value.toString();
      os << std::quoted(std::string(s.data(), s.size()));
      break;
    }
    case Tag::Tensor: print_tensor(os, value.toTensor()); break;
    case Tag::ListBool: {
      const auto l = value.toBoolList();
      print_list(os, l.data(), l.size());
      break;
    }
    case Tag::ListInt: {
      const auto l = value.toIntList();
      print_list(os, l.data(), l.size());
      break;
    }
    case Tag::ListDouble: {
      const auto l = value.toDoubleList();
      print_list(os, l.data(), l.size());
      break;
    }
    case Tag::ListTensor: {
      const auto l = value.toTensorList();
      print_entries(os, l.size(), [&](size_t i) { print_tensor(os, l[i]); });
      break;
    }
    case Tag::ListOptionalTensor: {
      const auto l = value.toListOptionalTensor();
      print_entries(os, l.size(), [&](size_t i) {
        if (l[i].has_value()) {
          print_tensor(os, l[i].value());
        } else {
          os << "None";
        }
      });
      break;
    }
    default: os << "<Unknown EValue tag " << static_cast<int>(value.tag) << ">"; break;
  }
  return os;
}

}  // namespace runtime
}  // namespace executorch
